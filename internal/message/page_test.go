package message_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/message"
)

func TestOfPage(t *testing.T) {
	long := "🚨 <b>Incident update</b>\n\n" + strings.Repeat("word ", 2000)
	for _, c := range []struct {
		name, text, page, want string
	}{
		{"no page: unchanged", "🚨 <b>Incident update</b>", "", "🚨 <b>Incident update</b>"},
		{"named in front", "🚨 <b>Incident update</b>", "github", "<b>github</b> · 🚨 <b>Incident update</b>"},
		{"a name is escaped", "x", "a<b", "<b>a&lt;b</b> · x"},
	} {
		t.Run(c.name, func(t *testing.T) { require.Equal(t, c.want, message.OfPage(c.text, c.page)) })
	}
	t.Run("a long notice stays within the limit", func(t *testing.T) {
		got := message.OfPage(long, "github")
		require.True(t, strings.HasPrefix(got, "<b>github</b> · 🚨"))
		require.LessOrEqual(t, message.VisibleLength(got), message.MaxLength)
		require.LessOrEqual(t, len([]rune(got)), message.MaxLength)
	})
}
