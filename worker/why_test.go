package worker_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

var timeTags = regexp.MustCompile(`</?tg-time[^>]*>`)

// /why on the real stack: after one component outage, a chat filtered to
// another component is told it was withheld by its filter, a chat in its
// quiet hours that it came silently, a plain chat that it was sent with
// sound as a message; each from the records the delivery wrote.
func TestWhyExplainsFilteredSilencedAndDelivered(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	now := time.Now().UTC()
	clock := func(t time.Time) string { return fmt.Sprintf("%02d:%02d", t.Hour(), t.Minute()) }
	components := []event.Kind{event.KindComponent}
	filtered := storyChat{id: 971, kinds: components, filter: []string{"chatgpt001"}, settings: store.Settings{Mode: store.ModeMessages}}
	quiet := storyChat{id: 972, kinds: components, settings: store.Settings{Mode: store.ModeMessages,
		QuietStart: clock(now.Add(-time.Hour)), QuietEnd: clock(now.Add(2 * time.Hour))}}
	plain := storyChat{id: 973, kinds: components, settings: store.Settings{Mode: store.ModeMessages}}
	subscribeStoryChats(t, s, filtered, quiet, plain)
	s.StartWorker(t)
	s.WaitForBaseline(t)

	plainBox, quietBox := newInbox(s, plain.id), newInbox(s, quiet.id)
	s.Page.SetComponent("api0000001", "API", "major_outage")
	plainBox.wait(t, 1, "the outage")
	got := quietBox.wait(t, 1, "the outage, silently")[0]
	require.True(t, got.Silent)
	waitDeliveriesClosed(t, s)

	why := func(c storyChat) string {
		text, err := notice.WhyAnswer(context.Background(), s.Store, store.SubscriberKey(c.id, 0), time.UTC, notice.OnePage)
		require.NoError(t, err)
		return timeTags.ReplaceAllString(text, "")
	}
	const about = "• <b>Component change: API, Operational → Major Outage</b>\n  "
	require.Contains(t, why(filtered), about+"Withheld: not about the components this chat follows (/subscribe component).")
	require.Contains(t, why(quiet), about+"Sent ")
	require.Contains(t, why(quiet), ", silently (quiet hours), as a message.")
	require.Contains(t, why(plain), about+"Sent ")
	require.Contains(t, why(plain), ", with sound, as a message.")
	t.Logf("/why in the quiet chat:\n%s", why(quiet))
}
