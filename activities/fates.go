package activities

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/openai-status-bot/statusbot/internal/event"
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
			fate(s.Key, store.FateWaiting, "behind an earlier update of the same story")
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
func (a *Activities) noteSentWith(ctx context.Context, eventKey string, r Recipient, severitySilent, quiet bool, as, later string) {
	together := a.togetherOf(ctx, eventKey)
	if later != "" {
		together = strings.TrimPrefix(together+" and "+later, " and ")
	}
	a.noteFate(ctx, store.Fate{Sub: r.Key, Event: eventKey, Outcome: store.FateSent, As: as,
		Silent: severitySilent || quiet, Quiet: quiet, NoNews: r.NoNews && !quiet && severitySilent, Together: together, At: a.now()})
}

// noteFailed records a send that failed (Send's error): waiting for a
// retry, or failed for good.
func (a *Activities) noteFailed(ctx context.Context, eventKey string, r Recipient, err error) {
	f := store.Fate{Sub: r.Key, Event: eventKey, Outcome: store.FateWaiting, Why: "could not reach Telegram or MongoDB; retrying", At: a.now()}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) {
		switch ae.Type() {
		case ErrTypeRateLimited:
			d := ae.NextRetryDelay()
			f.Why, f.RetryAt = fmt.Sprintf("Telegram asked to wait (retry_after %d s)", int(d/time.Second)), a.now().Add(d)
		case ErrTypePermanentMessage:
			f.Outcome, f.Why = store.FateFailed, "Telegram refused it: "+ae.Message()
		default:
			f.Why = "Telegram failed (" + ae.Message() + "); retrying"
		}
	}
	a.noteFate(ctx, f)
}

// GaveUp is a chat the delivery will not try again, and why: /why says
// so rather than "retrying" for notices that will never come.
type GaveUp struct {
	Key string `json:"key"`
	Why string `json:"why"`
}

// noteGivenUp records that the event will not reach these chats.
func (a *Activities) noteGivenUp(ctx context.Context, eventKey string, gave []GaveUp) {
	if len(gave) == 0 {
		return
	}
	fates := make([]store.Fate, len(gave))
	for i, g := range gave {
		fates[i] = store.Fate{Sub: g.Key, Event: eventKey, Outcome: store.FateFailed, Why: g.Why, At: a.now()}
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fateWriteTimeout)
	defer cancel()
	if err := a.Store.RecordFates(wctx, fates); err != nil {
		activity.GetLogger(ctx).Warn("could not record notices given up (for /why)", "count", len(gave), "error", err)
	}
}

// givenUp is each of keys given up for one reason.
func givenUp(keys []string, why string) []GaveUp {
	out := make([]GaveUp, len(keys))
	for i, k := range keys {
		out[i] = GaveUp{Key: k, Why: why}
	}
	return out
}

func (a *Activities) noteFate(ctx context.Context, f store.Fate) {
	// No summary: /why reads the few notices it shows (a read per send
	// would cost every delivery).
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fateWriteTimeout)
	defer cancel()
	if err := a.Store.RecordFates(wctx, []store.Fate{f}); err != nil {
		activity.GetLogger(ctx).Warn("could not record what became of a notice (for /why)", "subscriber", f.Sub, "error", err)
	}
}
