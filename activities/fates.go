package activities

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
	"go.temporal.io/sdk/temporal"
)

// What became of each notice for each chat (store.Fate), for /why: the
// page of recipients writes the withheld and the held back, the send what
// it sent, or what it waits for.

// fateSummary is what a notice is about, on one line.
func fateSummary(e event.Event) string {
	s := []rune(e.Summary())
	if len(s) > 160 {
		s = append(s[:159], '…')
	}
	return string(s)
}

// pageFates are the fates a page of recipients settles: chats whose
// choices withhold the event (a reminder that is not a chat's is no
// notice of it) and chats held back behind an earlier update.
func pageFates(e event.Event, subs []store.Subscriber, verdicts map[string]notice.Verdict, blocked map[string]bool, now time.Time) []store.Fate {
	var out []store.Fate
	fate := func(sub, outcome, why string) {
		out = append(out, store.Fate{Sub: sub, Event: e.Key, Summary: fateSummary(e), Outcome: outcome, Why: why, At: now})
	}
	for _, s := range subs {
		switch v, ok := verdicts[s.Key]; {
		case blocked[s.Key]:
			why, r := because("behindEarlier", 0)
			fate(s.Key, store.FateWaiting, why)
			out[len(out)-1].Reason = r
		case !e.AcceptsKind(s.Kinds):
			if e.Reminder == nil {
				fate(s.Key, store.FateWithheld, string(notice.WhyKinds))
			}
		case ok && !v.Send && v.Why != notice.WhyNoReminder && v.Why != notice.WhyPage:
			fate(s.Key, store.FateWithheld, string(v.Why))
		}
	}
	return out
}

// fateWriteTimeout bounds the write of a send's fate: it is told, never
// waited for (a send is never repeated for it).
const fateWriteTimeout = 2 * time.Second

// noteSentWith records, after a send, how it went (later names the later
// steps it told too); a failed write is logged.
func (a *Activities) noteSentWith(ctx context.Context, eventKey string, r Recipient, severitySilent, quiet bool, as, later string, laterTold *store.FateSteps) {
	together := a.togetherOf(ctx, eventKey)
	var earlier *store.FateSteps
	if together != "" {
		earlier = a.earlierTold(ctx, eventKey)
	}
	if later != "" {
		together = strings.TrimPrefix(together+" and "+later, " and ")
	}
	a.noteFate(ctx, store.Fate{Sub: r.Key, Event: eventKey, Outcome: store.FateSent, As: as,
		Silent: severitySilent || quiet, Quiet: quiet, NoNews: r.NoNews && !quiet && severitySilent, Together: together,
		Earlier: earlier, Later: laterTold, At: a.now()})
}

// earlierTold is the earlier steps an event tells (message.TogetherLine in
// parts), read only for an event that tells some; nil when it cannot be
// read (/why then quotes the English line).
func (a *Activities) earlierTold(ctx context.Context, eventKey string) *store.FateSteps {
	e, err := a.storedEvent(ctx, eventKey)
	if err != nil || e == nil || e.Together() == 0 {
		return nil
	}
	t := &store.FateSteps{Count: e.Together()}
	for i, s := range e.Folded {
		if i == 5 {
			t.More = true
			break
		}
		t.Steps = append(t.Steps, store.FateStep{Status: s.Status, At: s.At})
	}
	return t
}

// because is a reason of the catalogs (store.Reason; n the count of a
// plural one, args name, value pairs) and its English, the Why stored
// with it.
func because(code string, n int, args ...string) (string, *store.Reason) {
	r := &store.Reason{Code: code, N: n}
	for i := 0; i+1 < len(args); i += 2 {
		if r.Args == nil {
			r.Args = map[string]string{}
		}
		r.Args[args[i]] = args[i+1]
	}
	return notice.ReasonIn(i18n.Of(i18n.Default), *r), r
}

// noteFailed records a send that failed (Send's error): waiting for a
// retry, or failed for good.
func (a *Activities) noteFailed(ctx context.Context, eventKey string, r Recipient, err error) {
	f := store.Fate{Sub: r.Key, Event: eventKey, Outcome: store.FateWaiting, At: a.now()}
	f.Why, f.Reason = because("unreachable", 0)
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		switch ae.Type() {
		case ErrTypeRateLimited:
			d := ae.NextRetryDelay()
			f.Why, f.Reason = because("rateLimited", 0, "Seconds", strconv.Itoa(int(d/time.Second)))
			f.RetryAt = a.now().Add(d)
		case ErrTypePermanentMessage:
			f.Outcome = store.FateFailed
			f.Why, f.Reason = because("refused", 0, "Detail", ae.Message())
		default:
			f.Why, f.Reason = because("telegramFailed", 0, "Detail", ae.Message())
		}
	}
	a.noteFate(ctx, f)
}

// GaveUp is a chat the delivery will not try again, and why: /why says
// so rather than "retrying" for notices that will never come.
type GaveUp struct {
	Key string `json:"key"`
	Why string `json:"why"`
	// reason is Why's code, for the ones an activity gives up itself (not
	// in a workflow's history: the delivery writes only Why, whose reason
	// burstsSpent reads back).
	reason *store.Reason
}

// noteGivenUp records that the event will not reach these chats.
func (a *Activities) noteGivenUp(ctx context.Context, eventKey string, gave []GaveUp) {
	if len(gave) == 0 {
		return
	}
	fates := make([]store.Fate, len(gave))
	for i, g := range gave {
		r := g.reason
		if r == nil {
			r = burstsSpent(g.Why)
		}
		fates[i] = store.Fate{Sub: g.Key, Event: eventKey, Outcome: store.FateFailed, Why: g.Why, Reason: r, At: a.now()}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fateWriteTimeout)
	defer cancel()
	if err := a.Store.RecordFates(wctx, fates); err != nil {
		activity.GetLogger(ctx).Warn("could not record notices given up (for /why)", "count", len(gave), "error", err)
	}
}

// givenUp is each of keys given up for one reason (a code of because).
func givenUp(keys []string, code string) []GaveUp {
	why, r := because(code, 0)
	out := make([]GaveUp, len(keys))
	for i, k := range keys {
		out[i] = GaveUp{Key: k, Why: why, reason: r}
	}
	return out
}

// burstsSpent is the reason of a delivery's "gave up after 12 bursts:
// 502 Bad Gateway" (workflows' words, in its history); nil for any other.
func burstsSpent(why string) *store.Reason {
	rest, ok := strings.CutPrefix(why, "gave up after ")
	if !ok {
		return nil
	}
	count, detail, ok := strings.Cut(rest, " bursts: ")
	n, err := strconv.Atoi(count)
	if !ok || err != nil || n <= 0 {
		return nil
	}
	return &store.Reason{Code: "burstsSpent", N: n, Args: map[string]string{"Detail": detail}}
}

func (a *Activities) noteFate(ctx context.Context, f store.Fate) {
	if b, ok := ctx.Value(fatesKey{}).(*fateBuffer); ok {
		b.add(f) // a batch's: written with the others (batch.go)
		return
	}
	// No summary: /why reads the few notices it shows (a read per send
	// would cost every delivery).
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fateWriteTimeout)
	defer cancel()
	if err := a.Store.RecordFate(wctx, f); err != nil {
		activity.GetLogger(ctx).Warn("could not record what became of a notice (for /why)", "subscriber", f.Sub, "error", err)
	}
}

// fateBuffer holds the fates a batch of sends notes until the batch
// writes them, together (batch.go).
type fateBuffer struct {
	mu    sync.Mutex
	fates []store.Fate
	since time.Time // of the oldest fate held
}

// fatesKept is how long a batch holds the fates it noted before writing
// them while it goes on (it writes them all when it ends).
const fatesKept = 5 * time.Second

type fatesKey struct{}

func (b *fateBuffer) add(f store.Fate) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.fates) == 0 {
		b.since = time.Now()
	}
	b.fates = append(b.fates, f)
}

// writeOlder writes the fates held when the oldest is older than d.
func (b *fateBuffer) writeOlder(ctx context.Context, a *Activities, d time.Duration) {
	b.mu.Lock()
	due := len(b.fates) > 0 && time.Since(b.since) >= d
	b.mu.Unlock()
	if due {
		b.write(ctx, a)
	}
}

// write records the fates noted since the last write, in one round trip.
func (b *fateBuffer) write(ctx context.Context, a *Activities) {
	b.mu.Lock()
	fates := b.fates
	b.fates = nil
	b.mu.Unlock()
	if len(fates) == 0 {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fateWriteTimeout)
	defer cancel()
	if err := a.Store.RecordFates(wctx, fates); err != nil {
		activity.GetLogger(ctx).Warn("could not record what became of notices (for /why)", "count", len(fates), "error", err)
	}
}
