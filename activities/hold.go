package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/openai-status-bot/statusbot/internal/event"
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

// hold records the notice for the window's summary instead of sending it.
func (a *Activities) hold(ctx context.Context, in SendInput, r Recipient, now time.Time) (*SendResult, error) {
	window := r.Quiet.EndAfter(now)
	n, err := a.Store.Notice(ctx, in.EventKey)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	if a.StartSummary == nil {
		return nil, errors.New("morning summary: no workflow starter configured")
	}
	// Started (or found running) after the record: a summary never runs
	// without what it tells.
	if err := a.StartSummary(ctx, SummaryInput{Sub: r.Key, Window: window}); err != nil {
		return nil, fmt.Errorf("morning summary: start the window's timer: %w", err)
	}
	a.noteFate(ctx, store.Fate{Sub: r.Key, Event: in.EventKey, Outcome: store.FateHeld, Why: FateHeldWhy, RetryAt: window, At: now})
	return &SendResult{As: store.AsHeld}, nil
}

// SendMorningSummary sends a chat the summary of its window's held
// notices, then forgets them. Nothing held (all sent by a retry before the
// hold, or the chat left): nothing is sent.
func (a *Activities) SendMorningSummary(ctx context.Context, in SummaryInput) (bool, error) {
	// A group that became a supergroup in the night: its held notices
	// moved with it (store.MigrateChatAt), the summary goes there.
	key, err := a.Store.CurrentKey(ctx, in.Sub)
	if err != nil {
		return false, err
	}
	in.Sub = key
	held, err := a.Store.HeldNotices(ctx, in.Sub, in.Window)
	if err != nil || len(held) == 0 {
		return false, err
	}
	sub, err := a.Store.Subscription(ctx, in.Sub)
	if errors.Is(err, store.ErrNotSubscribed) {
		return false, a.Store.ForgetHeld(ctx, in.Sub, in.Window)
	}
	if err != nil {
		return false, err
	}
	text := MorningSummary(held, notice.Zone(sub.Settings))
	// The summary is a call like any other: it takes its slot of the bot's
	// budget and its turn in the chat, or comes back when they are free.
	tctx := telegram.WithTurn(ctx, a.chatTurn(sub.ChatID, summaryTicket(in), telegram.BudgetOf(sub.ChatID), 0))
	if err := a.Telegram.Send(tctx, sub.ChatID, sub.ThreadID, text); err != nil {
		var se *telegram.SendError
		if errors.As(err, &se) && se.Outcome == telegram.NotYet {
			return false, temporal.NewApplicationErrorWithOptions("the chat's turn has not come", ErrTypeNotYet,
				temporal.ApplicationErrorOptions{NextRetryDelay: max(time.Second, se.RetryAt.Sub(a.now()))})
		}
		if errors.As(err, &se) && se.Outcome == telegram.Migrated {
			// Moved now: move the chat, and the next attempt sends there.
			if _, err := a.Store.MigrateChatAt(ctx, sub.ChatID, se.MigrateTo, a.now()); err != nil {
				return false, err
			}
			return false, temporal.NewApplicationError("the group became a supergroup: the summary goes there", ErrTypeTransient)
		}
		r := Recipient{Key: sub.Key, ChatID: sub.ChatID, ThreadID: sub.ThreadID}
		_, ferr := a.failed(ctx, err, r, nil)
		return false, ferr
	}
	activity.GetLogger(ctx).Info("morning summary sent", "subscriber", in.Sub, "held", len(held))
	fates := make([]store.Fate, 0, len(held))
	for _, h := range held {
		fates = append(fates, store.Fate{Sub: h.Sub, Event: h.Event, Summary: h.Summary, Outcome: store.FateSent,
			As: store.AsSummary, At: a.now()})
	}
	if err := a.Store.RecordFates(ctx, fates); err != nil {
		activity.GetLogger(ctx).Warn("could not record the summary's notices (for /why)", "error", err)
	}
	// A failed delete is retried with the activity: the send is not
	// repeated, since the summary workflow has at most one summary
	// activity and Telegram was called once. Logged, not failed.
	if err := a.Store.ForgetHeld(ctx, in.Sub, in.Window); err != nil {
		activity.GetLogger(ctx).Warn("could not forget held notices (pruned later)", "error", err)
	}
	return true, nil
}

// summaryTicket names a morning summary in its chat's queue of turns, at
// the end of its window: after the notices of the night, before the
// morning's.
func summaryTicket(in SummaryInput) string {
	return in.Window.UTC().Format("2006-01-02T15:04:05.000Z") + "|summary|" + in.Sub + "|" + callFirst
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
