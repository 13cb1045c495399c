package bot

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/commands"
	"github.com/openai-status-bot/statusbot/internal/fakes"
)

// waitWithin is waitFor with its own deadline.
func waitWithin(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Telegram restarts its update IDs after a week without updates (the next
// ID is random) or when the token changes: updates then arrive below the
// stored offset, and the bot must follow them, while running and after a
// restart.
func TestUpdateIDsRestartBelowOffset(t *testing.T) {
	h := newHarness(t)
	h.start()
	ctx := context.Background()
	first := h.upd.Push(private(20, "/help"))
	waitFor(t, "the first reply", func() bool { return len(h.tg.MessagesTo(20, 0)) == 1 })
	waitFor(t, "the offset saved", func() bool { id, _, _ := h.st.LastUpdateID(ctx); return id == first })

	h.upd.RestartIDs(17)
	id := h.upd.Push(private(20, "/help"))
	waitWithin(t, 3*time.Second, "the reply after Telegram restarted its IDs", func() bool { return len(h.tg.MessagesTo(20, 0)) == 2 })
	waitFor(t, "the offset saved in the new ID space", func() bool { got, _, _ := h.st.LastUpdateID(ctx); return got == id })
	if rep, ok := h.hs.Evaluate(ctx); !ok {
		t.Fatalf("health after the restart of IDs: %+v", rep)
	}
	if !strings.Contains(h.logs.String(), "Telegram restarted its update IDs") {
		t.Error("the restart of IDs was not logged")
	}

	// The same while the bot is down: it starts from the stored offset,
	// which is now above every ID Telegram hands out.
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // let the abandoned long poll end
	h.upd.RestartIDs(3)
	id = h.upd.Push(private(20, "/help"))
	h.start()
	waitWithin(t, 3*time.Second, "the reply after a restart with new IDs", func() bool { return len(h.tg.MessagesTo(20, 0)) == 3 })
	waitFor(t, "the offset saved", func() bool { got, _, _ := h.st.LastUpdateID(ctx); return got == id })
	// Later updates are handled once each.
	h.upd.Push(private(20, "/help"))
	waitFor(t, "the next reply", func() bool { return len(h.tg.MessagesTo(20, 0)) == 4 })
	time.Sleep(300 * time.Millisecond)
	if n := len(h.tg.MessagesTo(20, 0)); n != 4 {
		t.Fatalf("%d replies, want 4 (an update handled twice?)", n)
	}
}

// Health fails, and says why, when updates arrive but none is handled.
func TestHealthFailsWhenUpdatesAreNotHandled(t *testing.T) {
	now := time.Now()
	p := &poller{now: func() time.Time { return now }, silence: time.Minute, stallAfter: time.Minute}
	p.lastRound.Store(now.UnixNano())
	p.arrived(now.Add(-2 * time.Minute))
	p.arrived(now.Add(-30 * time.Second)) // the oldest unhandled arrival counts
	err := p.healthy(context.Background())
	if err == nil || !strings.Contains(err.Error(), "updates arrived 2m0s ago but none was handled since") {
		t.Fatalf("stalled handling: %v", err)
	}
	p.handled()
	if err := p.healthy(context.Background()); err != nil {
		t.Fatalf("after progress: %v", err)
	}
	p.arrived(now.Add(-30 * time.Second))
	if err := p.healthy(context.Background()); err != nil {
		t.Fatalf("arrived 30s ago: %v", err)
	}
}

// One chat flooding the bot must not hold other chats' commands: Telegram
// returns at most 100 updates after the oldest unfinished one.
func TestFloodingChatDoesNotHoldOthers(t *testing.T) {
	h := newHarness(t)
	h.tg.RealLimits()
	h.cfg.BotReplyRate = 4 // the default
	h.tn.flood = defaultFlood
	h.start()
	for range 300 {
		h.upd.Push(private(30, "/help"))
	}
	sent := time.Now()
	h.upd.Push(private(31, "/help"))
	waitWithin(t, 5*time.Second, "the other chat's reply", func() bool { return len(h.tg.MessagesTo(31, 0)) == 1 })
	took := h.tg.MessagesTo(31, 0)[0].At.Sub(sent)
	t.Logf("the other chat was answered %v after its command", took.Round(time.Millisecond))
	if took > time.Second {
		for _, m := range h.tg.Messages() {
			t.Logf("%v chat %d %.30q", m.At.Sub(sent).Round(time.Millisecond), m.ChatID, m.Text)
		}
		for _, c := range h.upd.Calls() {
			t.Logf("getUpdates offset %d returned %d", c.Offset, len(c.Returned))
		}
		t.Fatalf("the other chat waited %v", took)
	}
	// The flooding chat got its first answer and one note, nothing more.
	waitFor(t, "the flood note", func() bool {
		for _, m := range h.tg.MessagesTo(30, 0) {
			if m.Text == commands.ReplyFlood {
				return true
			}
		}
		return false
	})
	time.Sleep(1500 * time.Millisecond)
	msgs := h.tg.MessagesTo(30, 0)
	notes := 0
	for _, m := range msgs {
		if m.Text == commands.ReplyFlood {
			notes++
		}
	}
	// Its burst, one note, and one more per refill since the flood began
	// (and those waiting for their turn).
	if limit := defaultFlood.Burst + 1 + int((time.Since(sent)+defaultFlood.Backlog)/defaultFlood.Refill) + 1; notes != 1 || len(msgs) > limit {
		t.Fatalf("flooding chat got %d replies, %d of them notes", len(msgs), notes)
	}
	waitFor(t, "every update confirmed", func() bool { return h.upd.Pending() == 0 })
}

// The component filter changes in one atomic update: a change made by
// someone else between the command reading the subscription and writing
// it (here, while the status page is fetched) is kept.
func TestComponentFilterKeepsAConcurrentChange(t *testing.T) {
	h := newHarness(t)
	h.start()
	if got := h.ask(40, 0, private(40, "/start")); !strings.HasPrefix(got, "Subscribed") {
		t.Fatal(got)
	}
	var once sync.Once
	h.sp.Fault("summary", func(http.ResponseWriter, *http.Request) bool {
		once.Do(func() {
			if err := h.st.SetComponents(context.Background(), "40", []string{"chatgpt001"}); err != nil {
				t.Error(err)
			}
		})
		return false
	})
	got := h.ask(40, 0, private(40, "/subscribe component API"))
	if !strings.HasPrefix(got, "Added <b>API</b>") {
		t.Fatal(got)
	}
	if sub := h.subscription("40"); sub == nil || !slices.Equal(sub.Components, []string{"chatgpt001", "api0000001"}) {
		t.Fatalf("filter %+v, want the concurrent change kept", sub)
	}
	if !strings.Contains(got, "Notices now cover: ChatGPT, API.") && !strings.Contains(got, "Notices now cover: API, ChatGPT.") {
		t.Fatalf("reply does not show the filter as stored: %q", got)
	}
}

// End to end: commands arrive, none is answered (a hanging status page
// holds the only one), and /healthz says so until it is handled.
func TestHealthReportsUnhandledUpdates(t *testing.T) {
	h := newHarness(t)
	h.tn.stallAfter = 300 * time.Millisecond
	h.sp.Fault("", fakes.Hang)
	h.start()
	h.upd.Push(private(50, "/status"))
	waitFor(t, "health to fail", func() bool {
		rep, ok := h.hs.Evaluate(context.Background())
		return !ok && strings.Contains(rep.Checks["telegram_long_poll"], "but none was handled since")
	})
	h.sp.Fault("", nil)
	waitFor(t, "the reply once the fetch gave up", func() bool { return len(h.tg.MessagesTo(50, 0)) == 1 })
	waitFor(t, "health to recover", func() bool { _, ok := h.hs.Evaluate(context.Background()); return ok })
}
