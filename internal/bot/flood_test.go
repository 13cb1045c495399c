package bot

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// floodGroup is a group where member floods /status while the admin
// works: Telegram's real limits, the default reply rate and flood rule.
type floodGroup struct {
	h             *harness
	chat          int64
	admin, member int64
	stop          chan struct{}
	wg            sync.WaitGroup
}

// maxAdminWait is Telegram's second between two messages of a chat, as
// the bot keeps it, plus handling.
var maxAdminWait = groupPace.interval + 200*time.Millisecond

func newFloodGroup(t *testing.T) *floodGroup {
	h := newHarness(t)
	g := &floodGroup{h: h, chat: -100500, admin: 7, member: 8, stop: make(chan struct{})}
	h.tg.ChatMembers(map[int64]map[int64]string{g.chat: {g.admin: "creator"}})
	h.tg.RealLimits()
	h.cfg.BotReplyRate = 4 // the default
	h.tn.flood = defaultFlood
	h.tn.groupPace = groupPace
	h.snapshot(testPage(h.sp.URL()))
	h.start()
	t.Cleanup(g.quiet)
	return g
}

// flood makes the member send /status every gap until quiet.
func (g *floodGroup) flood(gap time.Duration) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		tick := time.NewTicker(gap)
		defer tick.Stop()
		for {
			select {
			case <-g.stop:
				return
			case <-tick.C:
				g.h.upd.Push(group(g.chat, g.member, "/status"))
			}
		}
	}()
}

func (g *floodGroup) quiet() {
	select {
	case <-g.stop:
	default:
		close(g.stop)
	}
	g.wg.Wait()
}

// reply waits for the first message in the chat after since whose text
// has prefix, and returns how long after since it was accepted.
func (g *floodGroup) reply(t *testing.T, since time.Time, prefix string) (fakes.Message, time.Duration) {
	t.Helper()
	var got fakes.Message
	waitWithin(t, 20*time.Second, "a reply starting "+prefix, func() bool {
		for _, m := range g.h.tg.MessagesTo(g.chat, 0) {
			if m.At.After(since) && strings.HasPrefix(m.Text, prefix) {
				got = m
				return true
			}
		}
		return false
	})
	return got, got.At.Sub(since)
}

// The case: a member sends 4 /status and then one every 3 s. On
// the old per-chat rule every drop restarted 5 quiet seconds, and the
// admin's /stop 7 s later was dropped: the group stayed subscribed.
func TestMemberSendingSteadilyDoesNotDeafenTheAdmin(t *testing.T) {
	g := newFloodGroup(t)
	h := g.h
	h.ask(g.chat, 0, group(g.chat, g.admin, "/start"))
	for range 4 {
		h.upd.Push(group(g.chat, g.member, "/status"))
	}
	g.flood(3 * time.Second)
	time.Sleep(7 * time.Second)
	sent := time.Now()
	h.upd.Push(group(g.chat, g.admin, "/stop"))
	_, took := g.reply(t, sent, "Unsubscribed")
	t.Logf("the admin's /stop was answered %v after it was sent", took.Round(time.Millisecond))
	if sub := h.subscription(store.SubscriberKey(g.chat, 0)); sub != nil {
		t.Fatal("the group is still subscribed after the admin's /stop")
	}
}

// A member flooding /status at any rate never delays an admin's /stop or
// /settings beyond the one second Telegram keeps between two messages of
// a chat (a member's reply may have gone out just before; the bot's own
// spacing is that second plus a 50 ms margin, and handling takes a few
// ms more), and every tap, the flooder's included, is answered within a
// second: answers are not rate-limited and never wait behind a message.
//
// Figures: go test ./internal/bot -run TestGroupFloodNeverDelaysAdmins -v
// logs each wait.
func TestGroupFloodNeverDelaysAdmins(t *testing.T) {
	for _, gap := range []time.Duration{10 * time.Millisecond, 300 * time.Millisecond, 2 * time.Second} {
		t.Run(gap.String(), func(t *testing.T) {
			g := newFloodGroup(t)
			h := g.h
			h.ask(g.chat, 0, group(g.chat, g.admin, "/start"))
			time.Sleep(1100 * time.Millisecond) // Telegram's second between two messages in a chat
			g.flood(gap)
			time.Sleep(2 * time.Second)

			sent := time.Now()
			h.upd.Push(group(g.chat, g.admin, "/settings"))
			kb, took := g.reply(t, sent, "<b>Settings</b>")
			t.Logf("flood every %v: /settings answered in %v", gap, took.Round(time.Millisecond))
			if took > maxAdminWait {
				t.Errorf("the admin's /settings took %v", took)
			}

			// Four quick taps by the admin and four by the flooder.
			var ids []string
			tapped := time.Now()
			for range 4 {
				ids = append(ids, h.tg.Tap(h.upd, kb, models.ChatTypeSupergroup, g.admin, button(t, kb, "Severity").CallbackData))
				ids = append(ids, h.tg.Tap(h.upd, kb, models.ChatTypeSupergroup, g.member, button(t, kb, "Severity").CallbackData))
			}
			for _, id := range ids {
				waitWithin(t, 15*time.Second, "an answer to tap "+id, func() bool { _, ok := h.tg.Answer(id); return ok })
			}
			slowest := time.Duration(0)
			for _, a := range h.tg.Answers() {
				for _, id := range ids {
					if a.QueryID == id {
						slowest = max(slowest, a.At.Sub(tapped))
					}
				}
			}
			t.Logf("flood every %v: 8 taps answered, the slowest %v after the taps", gap, slowest.Round(time.Millisecond))
			if slowest > time.Second {
				t.Errorf("a tap was answered %v after it was made", slowest)
			}

			// The admin's own redraws (one or two edits) use the chat's
			// seconds; the flood is what is measured.
			time.Sleep(2500 * time.Millisecond)
			sent = time.Now()
			h.upd.Push(group(g.chat, g.admin, "/stop"))
			_, took = g.reply(t, sent, "Unsubscribed")
			t.Logf("flood every %v: /stop answered in %v", gap, took.Round(time.Millisecond))
			if took > maxAdminWait {
				t.Errorf("the admin's /stop took %v", took)
			}
			if h.subscription(store.SubscriberKey(g.chat, 0)) != nil {
				t.Error("still subscribed after /stop")
			}
			g.quiet()
			if n := h.tg.TooManyCount(); n > 0 {
				t.Logf("flood every %v: %d replies met a 429", gap, n)
			}
		})
	}
}
