package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// Morning summary: a chat whose quiet hours hold (store.Settings.QuietHold)
// gets no notice during the window; the send records the notice
// (store.Held) and makes sure the window's summary workflow runs, which
// sleeps on a Temporal timer until the window ends and then calls
// SendMorningSummary: one message, built from what was held.

// SummaryInput names one chat's window: its subscription and the end.
type SummaryInput struct {
	Sub    string    `json:"sub"`
	Window time.Time `json:"window"`
}

// FateHeldWhy is what /why says of a held notice.
const FateHeldWhy = "held for the morning summary"

// hold records the notice for the window's summary instead of sending it;
// held is false when the window's summary had begun (a worker's clock
// behind the server's, an attempt that ran late): the notice was taken
// back and the caller sends it as usual (store.CloseWindow).
func (a *Activities) hold(ctx context.Context, in SendInput, r Recipient, now time.Time) (res *SendResult, held bool, err error) {
	window := r.Quiet.EndAfter(now)
	n, err := a.Store.Notice(ctx, in.EventKey)
	if err != nil {
		return nil, false, err
	}
	h := store.Held{Sub: r.Key, Window: window, Event: in.EventKey, At: now}
	if n.Event != nil {
		h.Story, h.Title, h.Summary = n.Event.OrderKey, storyTitle(*n.Event), fateSummary(*n.Event)
		h.Opens, h.Ends, h.EventAt = opensStory(*n.Event), n.Event.EndsEpisode(), n.Event.At
	} else {
		h.Story, h.Title, h.Summary, h.EventAt = in.EventKey, in.EventKey, in.EventKey, now
	}
	if r.Page != "" {
		h.Title = r.Page + " · " + h.Title // the morning summary names the page, as the notice would
	}
	if err := a.Store.HoldNotice(ctx, h); err != nil {
		return nil, false, err
	}
	closed, err := a.Store.WindowClosed(ctx, r.Key, window)
	if err != nil {
		return nil, false, err
	}
	if closed {
		back, err := a.Store.Unhold(ctx, h, now)
		if err != nil || back {
			return nil, false, err
		}
		// Claimed by the summary under way: told there.
	} else {
		if a.StartSummary == nil {
			return nil, false, errors.New("morning summary: no workflow starter configured")
		}
		// Started (or found running) after the record: a summary never
		// runs without what it tells.
		if err := a.StartSummary(ctx, SummaryInput{Sub: r.Key, Window: window}); err != nil {
			return nil, false, fmt.Errorf("morning summary: start the window's timer: %w", err)
		}
	}
	a.noteFate(ctx, store.Fate{Sub: r.Key, Event: in.EventKey, Outcome: store.FateHeld, Why: FateHeldWhy, RetryAt: window, At: now})
	return &SendResult{As: store.AsHeld}, true, nil
}

// SendMorningSummary sends a chat the summary of its window's held
// notices. It fits Telegram's limits whatever the night was
// (MorningSummary); when it takes several messages, each is a call with
// its own turn, and the notices a part told are forgotten as soon as
// Telegram accepts it, so that a retry (the next part's turn, a failure)
// goes on with what is left and never tells a part again. Nothing held
// (all sent by a retry before the hold, or the chat left): nothing is sent.
//
// A part accepted by Telegram whose attempt dies before its notices are
// forgotten is told again: twice rather than never.
func (a *Activities) SendMorningSummary(ctx context.Context, in SummaryInput) (bool, error) {
	// A group that became a supergroup in the night: its held notices
	// moved with it (store.MigrateChatAt), the summary goes there.
	key, err := a.Store.CurrentKey(ctx, in.Sub)
	if err != nil {
		return false, err
	}
	in.Sub = key
	sub, err := a.Store.Subscription(ctx, in.Sub)
	if errors.Is(err, store.ErrNotSubscribed) {
		return false, a.Store.ForgetHeld(ctx, in.Sub, in.Window)
	}
	if err != nil {
		return false, err
	}
	// Parts already sent by earlier attempts (the heartbeat's details): the
	// next is headed as a continuation and takes the next ticket.
	var sentParts int
	if activity.HasHeartbeatDetails(ctx) {
		_ = activity.GetHeartbeatDetails(ctx, &sentParts)
	}
	sent := sentParts > 0
	// Closed before the first read: a notice held from now on is taken
	// back by its own send, or claimed here (store.CloseWindow).
	if err := a.Store.CloseWindow(ctx, in.Sub, in.Window, a.now()); err != nil {
		return sent, err
	}
	lang := i18n.Of(sub.Settings.Lang)
	for {
		held, err := a.Store.HeldNotices(ctx, in.Sub, in.Window)
		if err != nil || len(held) == 0 {
			return sent, err
		}
		part := MorningSummaryIn(lang, held, notice.Zone(sub.Settings), sentParts > 0)[0]
		claimed, err := a.Store.ClaimHeld(ctx, part.Told, a.now())
		if err != nil {
			return sent, err
		}
		if len(claimed) < len(part.Told) {
			// Some were taken back by their sends meanwhile: this part
			// tells the rest.
			if len(claimed) == 0 {
				continue
			}
			part = MorningSummaryIn(lang, claimed, notice.Zone(sub.Settings), sentParts > 0)[0]
		}
		if err := a.sendSummaryPart(ctx, in, sub, sentParts, part); err != nil {
			return sent, err
		}
		sent, sentParts = true, sentParts+1
		activity.RecordHeartbeat(ctx, sentParts)
		activity.GetLogger(ctx).Info("morning summary sent", "subscriber", in.Sub, "part", sentParts, "told", len(part.Told))
	}
}

// sendSummaryPart makes the call of one part (the n-th, from 0) and
// forgets the notices it told.
func (a *Activities) sendSummaryPart(ctx context.Context, in SummaryInput, sub *store.Subscriber, n int, part SummaryPart) error {
	// The summary is a call like any other: it takes its slot of the bot's
	// budget and its turn in the chat, or comes back when they are free.
	tctx := telegram.WithTurn(ctx, a.chatTurn(sub.ChatID, summaryTicket(in, n, part), telegram.BudgetOf(sub.ChatID), 0))
	if err := a.Telegram.Send(tctx, sub.ChatID, sub.ThreadID, part.Text); err != nil {
		var se *telegram.SendError
		if errors.As(err, &se) && se.Outcome == telegram.NotYet {
			return temporal.NewApplicationErrorWithOptions("the chat's turn has not come", ErrTypeNotYet,
				temporal.ApplicationErrorOptions{NextRetryDelay: max(time.Second, se.RetryAt.Sub(a.now()))})
		}
		if errors.As(err, &se) && se.Outcome == telegram.Migrated {
			// Moved now: move the chat, and the next attempt sends there.
			if _, err := a.Store.MigrateChatAt(ctx, sub.ChatID, se.MigrateTo, a.now()); err != nil {
				return err
			}
			return temporal.NewApplicationError("the group became a supergroup: the summary goes there", ErrTypeTransient)
		}
		r := Recipient{Key: sub.Key, ChatID: sub.ChatID, ThreadID: sub.ThreadID}
		_, ferr := a.failed(ctx, err, r, nil)
		return ferr
	}
	ctx = context.WithoutCancel(ctx) // told: what follows records it
	fates := make([]store.Fate, 0, len(part.Told))
	for _, h := range part.Told {
		fates = append(fates, store.Fate{Sub: h.Sub, Event: h.Event, Summary: h.Summary, Outcome: store.FateSent,
			As: store.AsSummary, At: a.now()})
	}
	if err := a.Store.RecordFates(ctx, fates); err != nil {
		activity.GetLogger(ctx).Warn("could not record the summary's notices (for /why)", "error", err)
	}
	return a.Store.ForgetTold(ctx, part.Told)
}

// summaryTicket names a message of a morning summary in its chat's queue
// of turns, at the end of its window: after the notices of the night,
// before the morning's. A later part (n > 0) is named also by the first
// notice it tells, which no other part tells: each part its own turn.
func summaryTicket(in SummaryInput, n int, part SummaryPart) string {
	t := in.Window.UTC().Format("2006-01-02T15:04:05.000Z") + "|summary|" + in.Sub + "|" + callFirst
	if n > 0 && len(part.Told) > 0 {
		t += fmt.Sprintf(".%03d.%s", n, part.Told[0].Event)
	}
	return t
}

// storyTitle names the incident, maintenance or component of e.
func storyTitle(e event.Event) string {
	switch {
	case e.IncidentName != "":
		return e.IncidentName
	case e.ComponentName != "":
		return e.ComponentName
	}
	return fateSummary(e)
}

// opensStory: e is the first step of its story (an incident's first
// update, a component leaving operational).
func opensStory(e event.Event) bool {
	if e.Kind == event.KindComponent {
		return e.OpensEpisode()
	}
	return e.Predecessor == ""
}
