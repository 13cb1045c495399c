package bot

import (
	"context"
	"sync"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/dispatch"
)

// Telegram lets a bot send about one message a second in one chat and 20
// a minute in one group, edits included (apis.md); beyond that it answers
// 429 with a wait of up to a minute. In a busy group the bot spends that
// budget itself, before Telegram has to refuse: replies that matter to
// the group's admins (to /start, /stop, /settings, keyboard edits) are
// urgent and always take the chat's next free second; replies anyone can
// ask for (/status, /help, refusals, usage errors, flood notes) are
// casual, take at most casualPerMinute of the group's minute and yield to
// any urgent reply waiting, and to an admin's command the bot has received
// and not yet answered (expect). Urgent is earned: a command's replies
// turn urgent only once its sender passed the admin check, so no member
// can spend the admins' seconds.
//
// Casual replies are shared per sender, not first come: a sender already
// answered this minute leaves the last casualSpare of the casual share to
// those who were not, and a reply waits while one for a sender answered
// less often this minute waits too. So one member flooding /status never
// uses up what another member's single /status needs. A message's second is counted from when Telegram
// answered its send (so from no earlier than Telegram counted it), one
// send in flight per group. So however members flood, an admin's reply
// goes out at most Telegram's one second after a member's reply that
// left before the bot saw the admin's command; the admin's own handling
// (its admin check, the store) runs within that second.

// sendClass says whose budget a message uses (dispatch.Class, as the
// commands mark their replies).
type sendClass = dispatch.Class

const (
	casual = dispatch.Casual
	urgent = dispatch.Urgent
)

// paceRule is the budget of one group chat.
type paceRule struct {
	interval        time.Duration // between two messages in the chat
	perMinute       int           // messages a minute in the chat
	casualPerMinute int           // of which casual ones
	// casualSpare of those are kept for senders not answered this minute.
	casualSpare int
}

// groupPace is Telegram's group limits. The second needs no margin: it
// is counted from the answer to the previous send, which comes after
// Telegram counted that message; the minute keeps one message spare.
var groupPace = paceRule{interval: time.Second, perMinute: 19, casualPerMinute: 10, casualSpare: 3}

// expectHold bounds how long an admin's command received but not yet
// answered holds casual replies back: its handling takes milliseconds;
// one that turns into a casual refusal must not wait for itself long.
const expectHold = 300 * time.Millisecond

// chatSends is what a chat was sent in the last minute.
type chatSends struct {
	all    []time.Time // every message, oldest first
	casual []sentBy
	// urgentWaiting counts urgent messages waiting for their slot,
	// casualWaiting casual ones per sender.
	urgentWaiting int
	casualWaiting map[int64]int
	// expected holds, until when, the admins' commands received and not
	// yet handled: casual messages wait for them (expect).
	expected []time.Time
	// inFlight: a message was let through and its send has not been
	// answered yet (done); the next waits for that answer, at most
	// maxInFlight (a send that never reports back must not close the
	// chat for good).
	inFlight bool
}

// maxInFlight is longer than any send may take (the HTTP timeout and a
// 429 wait are far shorter).
const maxInFlight = time.Minute

// sentBy is a casual message sent at, for sender (the user or chat whose
// command it answers; 0: none).
type sentBy struct {
	at     time.Time
	sender int64
}

// answered counts the casual messages for sender within the minute
// before now.
func (s chatSends) answered(sender int64, now time.Time) int {
	n := 0
	for _, c := range s.casual {
		if c.sender == sender && now.Sub(c.at) < time.Minute {
			n++
		}
	}
	return n
}

// next is when a message of class for sender may go into the chat at the
// earliest, as far as the rule is concerned (now or later). A casual
// message waits while an urgent one does, and while one for a sender
// answered less often this minute does.
func (r paceRule) next(s chatSends, class sendClass, sender int64, now time.Time) time.Time {
	at := now
	if n := len(s.all); n > 0 {
		at = later(at, s.all[n-1].Add(r.interval))
		if n >= r.perMinute {
			at = later(at, s.all[n-r.perMinute].Add(time.Minute))
		}
	}
	if class == casual {
		limit := r.casualPerMinute
		mine := s.answered(sender, now)
		if mine > 0 && r.casualSpare > 0 {
			limit = max(r.casualPerMinute-r.casualSpare, 1)
		}
		if n := len(s.casual); n >= limit && r.casualPerMinute > 0 {
			at = later(at, s.casual[n-limit].at.Add(time.Minute))
		}
		for other, waiting := range s.casualWaiting {
			if other != sender && waiting > 0 && s.answered(other, now) < mine {
				at = later(at, now.Add(pacePoll))
				break
			}
		}
		if s.urgentWaiting > 0 {
			at = later(at, now.Add(pacePoll))
		}
		for _, until := range s.expected {
			if until.After(now) {
				at = later(at, now.Add(min(pacePoll, until.Sub(now))))
			}
		}
	}
	if n := len(s.all); s.inFlight && n > 0 && now.Sub(s.all[n-1]) < maxInFlight {
		at = later(at, now.Add(pacePoll))
	}
	return at
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// pacePoll is how often a waiting message looks again (an urgent one
// may have taken its slot meanwhile).
const pacePoll = 20 * time.Millisecond

// record notes a message sent at now and forgets what is a minute old.
func (s *chatSends) record(class sendClass, sender int64, now time.Time) {
	cut := now.Add(-time.Minute)
	s.all = append(dropBefore(s.all, cut), now)
	i := 0
	for i < len(s.casual) && !s.casual[i].at.After(cut) {
		i++
	}
	s.casual = s.casual[i:]
	if class == casual {
		s.casual = append(s.casual, sentBy{at: now, sender: sender})
	}
}

func dropBefore(ts []time.Time, cut time.Time) []time.Time {
	i := 0
	for i < len(ts) && !ts[i].After(cut) {
		i++
	}
	return ts[i:]
}

// chatPacer applies the rule to every group chat (private chats are not
// paced: one person does not flood their own chat with the bot).
type chatPacer struct {
	rule    paceRule
	maxWait time.Duration // a casual message that would wait longer is dropped
	now     func() time.Time

	mu    sync.Mutex
	chats map[int64]*chatSends
}

func newChatPacer(rule paceRule, maxWait time.Duration, now func() time.Time) *chatPacer {
	return &chatPacer{rule: rule, maxWait: maxWait, now: now, chats: map[int64]*chatSends{}}
}

// wait blocks until a message of class for sender may go into chatID and
// counts it as sent; false when ctx ended or a casual message would wait
// longer than maxWait.
func (p *chatPacer) wait(ctx context.Context, chatID int64, class sendClass, sender int64) bool {
	if p == nil || chatID > 0 || p.rule.interval <= 0 {
		return ctx.Err() == nil
	}
	start := p.now()
	p.mu.Lock()
	s := p.chats[chatID]
	if s == nil {
		s = &chatSends{}
		p.chats[chatID] = s
	}
	if class == urgent {
		s.urgentWaiting++
		defer func() { p.mu.Lock(); s.urgentWaiting--; p.mu.Unlock() }()
	} else {
		if s.casualWaiting == nil {
			s.casualWaiting = map[int64]int{}
		}
		s.casualWaiting[sender]++
		defer func() {
			p.mu.Lock()
			if s.casualWaiting[sender]--; s.casualWaiting[sender] <= 0 {
				delete(s.casualWaiting, sender)
			}
			p.mu.Unlock()
		}()
	}
	for {
		now := p.now()
		at := p.rule.next(*s, class, sender, now)
		if !at.After(now) {
			s.record(class, sender, now)
			s.inFlight = true
			p.forget(now)
			p.mu.Unlock()
			return true
		}
		if class == casual && at.Sub(start) > p.maxWait {
			p.mu.Unlock()
			return false
		}
		p.mu.Unlock()
		if !sleep(ctx, min(at.Sub(now), pacePoll)) {
			return false
		}
		p.mu.Lock()
	}
}

// forget drops chats quiet for a minute; the caller holds p.mu.
func (p *chatPacer) forget(now time.Time) {
	if len(p.chats) < 1000 {
		return
	}
	for id, s := range p.chats {
		if n := len(s.all); s.urgentWaiting == 0 && len(s.casualWaiting) == 0 && !s.inFlight && len(s.expected) == 0 && (n == 0 || now.Sub(s.all[n-1]) > time.Minute) {
			delete(p.chats, id)
		}
	}
}

// done notes that the send wait let through for chatID was answered (or
// failed) at now: the chat's second counts from then.
func (p *chatPacer) done(chatID int64) {
	if p == nil || chatID > 0 || p.rule.interval <= 0 {
		return
	}
	now := p.now()
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.chats[chatID]
	if s == nil || !s.inFlight {
		return
	}
	s.inFlight = false
	if n := len(s.all); n > 0 {
		sent := s.all[n-1]
		s.all[n-1] = later(sent, now)
		if c := len(s.casual); c > 0 && s.casual[c-1].at.Equal(sent) {
			s.casual[c-1].at = s.all[n-1]
		}
	}
}

// expect notes that an admin's command for chatID was received: casual
// messages wait until release is called, at most expectHold.
func (p *chatPacer) expect(chatID int64) (release func()) {
	if p == nil || chatID > 0 || p.rule.interval <= 0 {
		return func() {}
	}
	until := p.now().Add(expectHold)
	p.mu.Lock()
	s := p.chats[chatID]
	if s == nil {
		s = &chatSends{}
		p.chats[chatID] = s
	}
	s.expected = append(s.expected, until)
	p.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			for i, t := range s.expected {
				if t.Equal(until) {
					s.expected = append(s.expected[:i], s.expected[i+1:]...)
					break
				}
			}
		})
	}
}
