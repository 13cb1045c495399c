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

func newFloodGroup(t testing.TB) *floodGroup {
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
func (g *floodGroup) reply(t testing.TB, since time.Time, prefix string) (fakes.Message, time.Duration) {
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

// memberReply waits for the next reply to the member (a /status) accepted
// after since, and returns when it was accepted.
func (g *floodGroup) memberReply(t *testing.T, since time.Time) fakes.Message {
	t.Helper()
	m, _ := g.reply(t, since, "<b>OpenAI status:</b>")
	return m
}

// nextAfter checks that reply is the chat's very next message after
// member: nothing the members asked for went in between.
func (g *floodGroup) nextAfter(t *testing.T, member, reply fakes.Message) {
	t.Helper()
	msgs := g.h.tg.MessagesTo(g.chat, 0)
	for i, m := range msgs {
		if m.ID == member.ID {
			if i+1 >= len(msgs) || msgs[i+1].ID != reply.ID {
				t.Errorf("a message went into the chat between the member's reply and the admin's: %q", msgs[i+1].Text)
			}
			return
		}
	}
	t.Errorf("the member's reply %d is not in the chat", member.ID)
}

// adminAsks sends the admin's command the instant a member's reply was
// accepted (the worst moment: Telegram keeps the chat's next second) when
// afterMember, else at once, and returns the reply and how long after
// the command it was accepted.
func (g *floodGroup) adminAsks(t *testing.T, text, prefix string, afterMember bool) (fakes.Message, time.Duration, time.Time) {
	t.Helper()
	var member fakes.Message
	if afterMember {
		member = g.memberReply(t, time.Now())
	}
	sent := time.Now()
	g.h.upd.Push(group(g.chat, g.admin, text))
	m, took := g.reply(t, sent, prefix)
	if afterMember {
		g.nextAfter(t, member, m)
	}
	return m, took, member.At
}

// sendSlack is what a member's reply sent just before the admin's
// command adds to Telegram's second: the second counts from Telegram's
// answer to that send (its way back, and the bot's timers and goroutines
// waiting for a CPU), so the admin's reply is accepted this much after
// the second has passed. Measured 0-23 ms on a quiet machine; with the
// whole suite and three other sessions on two CPUs (load 21) a goroutine
// can wait 300 ms for a CPU, so the bound is generous: the figures are
// in the README, and what cannot depend on the load is checked exactly
// (the admin's reply is the chat's very next message).
const sendSlack = 500 * time.Millisecond

// A member flooding /status at any rate delays an admin's /stop or
// /settings by at most Telegram's second between two messages of a chat
// (plus sendSlack), and every tap, the flooder's included, is answered
// within a second: answers are not rate-limited and never wait behind a
// message.
//
// The delay is measured against the same command in the same group
// without the flood, at the worst moment: the admin's command sent the
// instant a member's reply was accepted. Telegram (and the fake) accept
// the chat's next message only a second after that reply, so "within a
// second" cannot hold strictly: the admin's reply comes 1 s after the
// member's, whatever the bot does. What the bot keeps is that the flood
// costs no more than that second: no member reply leaves once the bot
// has the admin's command (pace.go expect), the second is counted from
// Telegram's answer to the member's reply with no margin on top, and the
// admin's own handling (its admin check, the store) runs within it.
//
// Figures: go test ./internal/bot -run TestGroupFloodNeverDelaysAdmins -v
// logs each wait.
func TestGroupFloodNeverDelaysAdmins(t *testing.T) {
	for _, gap := range []time.Duration{10 * time.Millisecond, 300 * time.Millisecond, 2 * time.Second} {
		t.Run(gap.String(), func(t *testing.T) {
			g := newFloodGroup(t)
			h := g.h
			// Between two of the admin's commands: Telegram's second
			// between two messages in a chat, and the admin's own flood
			// budget (one command every 2 s after the first few).
			pause := 2100 * time.Millisecond
			g.adminAsks(t, "/start", "Subscribed", false)

			// The same commands without the flood.
			time.Sleep(pause)
			_, quietSettings, _ := g.adminAsks(t, "/settings", "<b>Settings</b>", false)
			time.Sleep(pause)
			_, quietStop, _ := g.adminAsks(t, "/stop", "Unsubscribed", false)
			time.Sleep(pause)
			g.adminAsks(t, "/start", "Subscribed", false)
			time.Sleep(pause)

			g.flood(gap)
			time.Sleep(2 * time.Second)
			kb, took, member := g.adminAsks(t, "/settings", "<b>Settings</b>", true)
			added := took - quietSettings
			t.Logf("flood every %v: /settings answered in %v (%v without the flood; %v after the member's reply was accepted): the flood added %v",
				gap, took.Round(time.Millisecond), quietSettings.Round(time.Millisecond), kb.At.Sub(member).Round(time.Millisecond), added.Round(time.Millisecond))
			if added > time.Second+sendSlack || kb.At.Sub(member) > time.Second+sendSlack {
				t.Errorf("the flood delayed the admin's /settings by %v (%v after the member's reply)", added, kb.At.Sub(member))
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
			m, took, member := g.adminAsks(t, "/stop", "Unsubscribed", true)
			added = took - quietStop
			t.Logf("flood every %v: /stop answered in %v (%v without the flood; %v after the member's reply was accepted): the flood added %v",
				gap, took.Round(time.Millisecond), quietStop.Round(time.Millisecond), m.At.Sub(member).Round(time.Millisecond), added.Round(time.Millisecond))
			if added > time.Second+sendSlack || m.At.Sub(member) > time.Second+sendSlack {
				t.Errorf("the flood delayed the admin's /stop by %v (%v after the member's reply)", added, m.At.Sub(member))
			}
			if h.subscription(store.SubscriberKey(g.chat, 0)) != nil {
				t.Error("still subscribed after /stop")
			}
			g.quiet()
			if n := h.tg.TooManyCount(); n > 0 {
				t.Errorf("flood every %v: %d sends met a 429", gap, n)
			}
		})
	}
}

// A member's /settings is held as an admin's command would be (casual
// replies wait for it) only until it turns out to be a refusal: the
// refusal itself goes at once, not after expectHold.
func TestRefusalIsNotHeldForItself(t *testing.T) {
	g := newFloodGroup(t)
	sent := time.Now()
	g.h.upd.Push(group(g.chat, g.member, "/settings"))
	_, took := g.reply(t, sent, "Only group administrators")
	t.Logf("the member's refusal came %v after the command", took.Round(time.Millisecond))
	if took >= expectHold {
		t.Fatalf("the refusal waited %v: held for its own command", took)
	}
}
