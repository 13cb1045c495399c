package bot

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// "/settings test" sends a sample notice where a real one would go (the
// topic), silent in quiet hours, and says so.
func TestSettingsTestNotice(t *testing.T) {
	h := newHarness(t)
	h.start()
	const chat, admin, thread = -100900, 7, 33
	h.tg.ChatMembers(map[int64]map[int64]string{chat: {admin: "creator"}})
	h.ask(chat, thread, topicMsg(chat, admin, thread, "/start"))
	// Quiet hours around now, in UTC.
	now := time.Now().UTC()
	from, to := now.Add(-time.Hour).Format("15:04"), now.Add(time.Hour).Format("15:04")
	h.ask(chat, thread, topicMsg(chat, admin, thread, fmt.Sprintf("/settings quiet %s-%s", from, to)))
	got := h.exchange(chat, thread, topicMsg(chat, admin, thread, "/settings test"))
	if len(got) != 1 {
		t.Fatalf("test notice: %+v", got)
	}
	n := got[0]
	checkHTML(t, n.Text)
	if !n.Silent || !strings.Contains(n.Text, "Sent silently: it is quiet hours") || !strings.Contains(n.Text, "Test notice from /settings test") {
		t.Fatalf("test notice in quiet hours: silent %v\n%s", n.Silent, n.Text)
	}
	h.ask(chat, thread, topicMsg(chat, admin, thread, "/settings quiet off"))
	got = h.exchange(chat, thread, topicMsg(chat, admin, thread, "/settings test"))
	if len(got) != 1 || got[0].Silent || !strings.Contains(got[0].Text, "Sent with sound.") {
		t.Fatalf("test notice outside quiet hours: %+v", got)
	}
}
