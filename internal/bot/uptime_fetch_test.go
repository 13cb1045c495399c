package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// With the page hanging, a second /uptime is not blocked behind the
// first one's fetch: each caller waits until its own deadline only. On
// the old code the second call held on the lock until the first fetch
// ended.
// A failed fetch is remembered: the page is not asked again by every
// /uptime until failFor has passed.
// End to end, with incident.io's component_impacts hanging: six chats
// asking /uptime at once are all answered (with the figures the bot
// computes itself) after the 3 s the bot waits for the page's, and the
// page is asked once, not by every /uptime. On the old code the lock made
// them queue behind one another's fetches and some never got an answer.
func TestConcurrentUptimeWithAHangingPage(t *testing.T) {
	io := fakes.NewIncidentIO()
	defer io.Close()
	h := newHarness(t)
	h.cfg.StatuspageProvider = "incidentio"
	h.cfg.StatuspageURL = io.URL()
	pg, _, err := statuspage.NewIncidentIO(io.URL(), 5*time.Second).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h.snapshot(pg)
	io.Fault("component_impacts", fakes.Hang)
	before := io.TotalRequests()
	h.start()
	sent := time.Now()
	for chat := int64(70); chat < 76; chat++ {
		h.upd.Push(private(chat, "/uptime"))
	}
	waitWithin(t, 20*time.Second, "every /uptime answered", func() bool {
		for chat := int64(70); chat < 76; chat++ {
			if len(h.tg.MessagesTo(chat, 0)) == 0 {
				return false
			}
		}
		return true
	})
	t.Logf("6 concurrent /uptime answered within %v", time.Since(sent).Round(100*time.Millisecond))
	for chat := int64(70); chat < 76; chat++ {
		if m := h.tg.MessagesTo(chat, 0)[0]; !strings.HasPrefix(m.Text, "<b>Uptime</b>") {
			t.Fatalf("chat %d: %q", chat, m.Text)
		}
	}
	// The snapshot is fresh: every request now is for component_impacts.
	if n := io.TotalRequests() - before; n != 1 {
		t.Errorf("the page asked %d times, want once (one shared fetch)", n)
	}
}
