package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// RetryPageInput asks for the next page of retries due.
type RetryPageInput struct {
	Event   event.Event   `json:"event"`
	Cursor  string        `json:"cursor,omitempty"`
	Limit   int           `json:"limit"`
	DueBy   time.Time     `json:"due_by"`
	Recheck time.Duration `json:"recheck,omitempty"`
}

// RetryPage is one page of retries to send now.
type RetryPage struct {
	Retries []Retry `json:"retries,omitempty"`
	// Unsubscribed left (or changed filters) since their last try: dropped.
	Unsubscribed int `json:"unsubscribed,omitempty"`
	// Blocked wait for an earlier update still: put off by Recheck.
	Blocked int    `json:"blocked,omitempty"`
	Next    string `json:"next,omitempty"`
}

// Retries reads a page of the event's retries due by DueBy, drops those
// whose subscription is gone or that no longer get the event, follows
// groups that moved to a supergroup, and puts off those an earlier update
// has not reached yet.
func (a *Activities) Retries(ctx context.Context, in RetryPageInput) (*RetryPage, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // a delivery's step
	due, next, err := a.Store.DueRetries(ctx, in.Event.Key, in.Cursor, in.DueBy, in.Limit)
	if err != nil {
		return nil, err
	}
	live, gone, unwanted, err := a.liveRetries(ctx, in.Event, due)
	if err != nil {
		return nil, err
	}
	blocked, err := a.blockers(ctx, in.Event, retryKeys(live))
	if err != nil {
		return nil, err
	}
	var held []string
	var ready []liveRetry
	for _, r := range live {
		if blocked[r.retry.Sub] {
			held = append(held, r.retry.Sub)
		} else {
			ready = append(ready, r)
		}
	}
	out := &RetryPage{Next: next, Blocked: len(held)}
	// A chat told this step in an earlier step's message (together.go)
	// since its retry was read: settled, not sent again.
	told, err := a.Store.Delivered(ctx, in.Event.Key, retryKeys(ready))
	if err != nil {
		return nil, err
	}
	untold := ready[:0:0]
	for _, r := range ready {
		if told[r.retry.Sub] {
			gone = append(gone, r.retry.Sub)
		} else {
			untold = append(untold, r)
		}
	}
	ready = untold
	sends, dropped, err := a.retrySends(ctx, in.Event, ready)
	if err != nil {
		return nil, err
	}
	dropped = append(unwanted, dropped...)
	out.Retries, gone = sends, append(gone, retryKeysOf(dropped)...)
	if _, err := a.Store.DeleteRetries(ctx, in.Event.Key, gone); err != nil {
		return nil, err
	}
	// A chat that left is not asked; one still here may ask /why.
	a.noteGivenUp(ctx, in.Event.Key, dropped)
	out.Unsubscribed = len(gone)
	if err := a.Store.PutOffRetries(ctx, in.Event.Key, held, a.now().Add(in.Recheck)); err != nil {
		return nil, err
	}
	return out, nil
}

// liveRetry is a due retry with the subscription it goes to.
type liveRetry struct {
	retry store.Retry
	sub   store.Subscriber
}

// droppedBy: a retry dropped by the chat's own choice since its last try.
func droppedBy(key string, w notice.Why) GaveUp {
	code := "dropped.other"
	switch w {
	case notice.WhyKinds:
		code = "dropped.kinds"
	case notice.WhyFilter:
		code = "dropped.filter"
	case notice.WhySeverity:
		code = "dropped.severity"
	case notice.WhyNeverTold:
		code = "dropped.neverTold"
	}
	why, r := because(code, 0, "Setting", string(w))
	return GaveUp{Key: key, Why: why, reason: r}
}

func retryKeysOf(gave []GaveUp) []string {
	keys := make([]string, len(gave))
	for i, g := range gave {
		keys[i] = g.Key
	}
	return keys
}

func retryKeys(rs []liveRetry) []string {
	keys := make([]string, len(rs))
	for i, r := range rs {
		keys[i] = r.retry.Sub
	}
	return keys
}

// liveRetries pairs each due retry with its subscription (following a
// group to its supergroup); retries of chats that left are gone, those of
// chats that no longer take the event's kind unwanted.
func (a *Activities) liveRetries(ctx context.Context, e event.Event, due []store.Retry) (live []liveRetry, gone []string, unwanted []GaveUp, err error) {
	keys := make([]string, len(due))
	for i, r := range due {
		keys[i] = r.Sub
	}
	subs, err := a.Store.Subscriptions(ctx, keys)
	if err != nil {
		return nil, nil, nil, err
	}
	have := map[string]store.Subscriber{}
	for _, s := range subs {
		have[s.Key] = s
	}
	for _, r := range due {
		s, ok := have[r.Sub]
		if !ok {
			moved, err := a.follow(ctx, e, r)
			if err != nil {
				return nil, nil, nil, err
			}
			if moved == nil {
				gone = append(gone, r.Sub)
				continue
			}
			r, s = moved.retry, moved.sub
		}
		if !e.AcceptsKind(s.Kinds) {
			unwanted = append(unwanted, droppedBy(r.Sub, notice.WhyKinds))
			continue
		}
		live = append(live, liveRetry{retry: r, sub: s})
	}
	return live, gone, unwanted, nil
}

// retrySends decides each ready retry now, not when it was saved (the
// earlier step it waited for may have brought the chat into the story
// meanwhile), and returns the sends and the chats that no longer get it.
func (a *Activities) retrySends(ctx context.Context, e event.Event, ready []liveRetry) (sends []Retry, dropped []GaveUp, err error) {
	subs := make([]store.Subscriber, len(ready))
	for i, r := range ready {
		subs[i] = r.sub
	}
	verdicts, told, err := a.verdicts(ctx, e, subs)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range ready {
		v := verdicts[r.retry.Sub]
		if !v.Send {
			dropped = append(dropped, droppedBy(r.retry.Sub, v.Why))
			continue
		}
		// The send needs the recipient and the burst count: the error text
		// stays in MongoDB (a page of them would be 100+ KB of history).
		sends = append(sends, Retry{Recipient: Recipient{Key: r.retry.Sub, ChatID: r.retry.ChatID, ThreadID: r.retry.ThreadID,
			Silent: v.Silent, NoNews: v.NoNews, Quiet: notice.QuietFor(r.sub.Settings, e), Zone: notice.TextZone(r.sub.Settings, e),
			Page: a.Pages.Label(r.sub.Pages, e.Page), Told: toldFolded(e, told[r.retry.Sub]), Lang: r.sub.Settings.Lang}, Bursts: r.retry.Bursts})
	}
	return sends, dropped, nil
}

// follow re-keys the retry of a group that became a supergroup since its
// last try (the retry moves to the new key); nil when there is nothing to
// follow or the new key has a retry of its own already.
func (a *Activities) follow(ctx context.Context, e event.Event, r store.Retry) (*liveRetry, error) {
	m, err := a.Store.MigrationOf(ctx, r.Sub)
	if err != nil || m == nil {
		return nil, err
	}
	sub, err := a.Store.Subscription(ctx, m.NewKey)
	if errors.Is(err, store.ErrNotSubscribed) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if own, err := a.Store.Retry(ctx, e.Key, m.NewKey); err != nil || own != nil {
		return nil, err
	}
	delivered, err := a.Store.Delivered(ctx, e.Key, []string{m.NewKey})
	if err != nil || delivered[m.NewKey] {
		return nil, err
	}
	n := r
	n.Sub, n.ChatID, n.ThreadID = sub.Key, sub.ChatID, sub.ThreadID
	if err := a.Store.SaveRetries(ctx, []store.Retry{n}); err != nil {
		return nil, err
	}
	if _, err := a.Store.DeleteRetries(ctx, e.Key, []string{r.Sub}); err != nil {
		return nil, err
	}
	return &liveRetry{retry: n, sub: *sub}, nil
}

// PendingSummary is what a delivery shows of its pending subscribers.
type PendingSummary struct {
	Count  int       `json:"count"`
	NextAt time.Time `json:"next_at,omitempty"`
	// Worst is the subscriber with the most failed bursts.
	WorstKey     string `json:"worst_key,omitempty"`
	WorstBursts  int    `json:"worst_bursts,omitempty"`
	WorstError   string `json:"worst_error,omitempty"`
	WorstBlocked bool   `json:"worst_blocked,omitempty"`
	// Sample is a few pending keys, due first first.
	Sample []string `json:"sample,omitempty"`
}

// SummarizePending counts the event's retries and finds the next due and
// the worst off: three round trips.
func (a *Activities) SummarizePending(ctx context.Context, eventKey string) (*PendingSummary, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // a delivery's step
	s, err := a.Store.SummarizeRetries(ctx, eventKey, 10)
	if err != nil {
		return nil, err
	}
	out := &PendingSummary{Count: int(s.Count), Sample: s.Sample}
	if s.Next != nil {
		out.NextAt = s.Next.NextAt
	}
	if s.Worst != nil {
		out.WorstKey, out.WorstBursts, out.WorstError, out.WorstBlocked = s.Worst.Sub, s.Worst.Bursts, s.Worst.Error, s.Worst.Blocked
	}
	return out, nil
}

// DropPending removes every retry of a delivery that gave up, so that later
// updates do not wait for it; it returns how many there were.
// Each chat dropped is told by /why that it was given up.
func (a *Activities) DropPending(ctx context.Context, eventKey string) (int, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // a delivery's step
	keys, err := a.Store.RetryKeys(ctx, eventKey)
	if err != nil {
		return 0, err
	}
	n, err := a.Store.DropRetries(ctx, eventKey)
	if err != nil {
		return 0, err
	}
	a.noteGivenUp(ctx, eventKey, givenUp(keys, "operatorGaveUp"))
	return int(n), nil
}

// SkipInput names the subscriber an operator skips.
type SkipInput struct {
	EventKey string `json:"event_key"`
	Key      string `json:"key"`
}

// SkipOutcome says where the skipped subscriber stood.
type SkipOutcome struct {
	// Delivered: the ledger has it; nothing to skip.
	Delivered bool `json:"delivered,omitempty"`
	// WasPending: its retry was removed.
	WasPending bool   `json:"was_pending,omitempty"`
	Bursts     int    `json:"bursts,omitempty"`
	LastError  string `json:"last_error,omitempty"`
	// Subscribed: a subscription has the key (it may not be read yet).
	Subscribed bool `json:"subscribed,omitempty"`
}

// SkipSubscriber removes the subscriber's retry of the event, if any, and
// says where it stood.
func (a *Activities) SkipSubscriber(ctx context.Context, in SkipInput) (*SkipOutcome, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // a delivery's step
	done, err := a.Store.Delivered(ctx, in.EventKey, []string{in.Key})
	if err != nil {
		return nil, err
	}
	if done[in.Key] {
		return &SkipOutcome{Delivered: true}, nil
	}
	out := &SkipOutcome{}
	r, err := a.Store.Retry(ctx, in.EventKey, in.Key)
	if err != nil {
		return nil, err
	}
	if r != nil {
		if _, err := a.Store.DeleteRetries(ctx, in.EventKey, []string{in.Key}); err != nil {
			return nil, err
		}
		out.WasPending, out.Bursts, out.LastError = true, r.Bursts, r.Error
	}
	_, err = a.Store.Subscription(ctx, in.Key)
	switch {
	case err == nil:
		out.Subscribed = true
	case !errors.Is(err, store.ErrNotSubscribed):
		return nil, err
	}
	a.noteGivenUp(ctx, in.EventKey, givenUp([]string{in.Key}, "operatorSkipped"))
	return out, nil
}

// PruneInput bounds one pruning activity.
type PruneInput struct {
	// Batch is the most documents deleted per collection and round trip.
	Batch int `json:"batch"`
	// Budget is how long the activity keeps pruning before it returns.
	Budget time.Duration `json:"budget"`
}

// PruneResult says how much was deleted and whether more is left.
type PruneResult struct {
	Deleted int64 `json:"deleted"`
	More    bool  `json:"more"`
}

// PruneExpired deletes ledger entries, messages, retries, moves and
// component history past retention, in batches, for at most Budget.
func (a *Activities) PruneExpired(ctx context.Context, in PruneInput) (*PruneResult, error) {
	out := &PruneResult{More: true}
	deadline := time.Now().Add(in.Budget)
	for out.More && time.Now().Before(deadline) {
		n, more, err := a.Store.PruneBatch(ctx, a.now(), in.Batch)
		if err != nil {
			return nil, err
		}
		out.Deleted += n
		out.More = more
		activity.RecordHeartbeat(ctx, out.Deleted)
	}
	return out, nil
}
