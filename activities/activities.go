// Package activities holds every side effect of the pipeline: fetching the
// status page, the checkpoint, subscriber paging, the ledger and Telegram.
package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// Error types the workflows branch on.
const (
	ErrTypeRateLimited      = "RateLimited"
	ErrTypePermanentMessage = "PermanentMessageError"
	ErrTypeTransient        = "TransientSendError"
)

// Activities holds the dependencies; register one instance per worker.
type Activities struct {
	Store    *store.Store
	Page     statuspage.Fetcher
	Telegram *telegram.Sender
	// Temporal lets a delivery wait for its predecessor.
	Temporal client.Client
	// DeliveryStarted reports whether the delivery of an event exists.
	DeliveryStarted func(ctx context.Context, eventKey string) (bool, error)
	Now             func() time.Time
	// BlindAfter is how long a part of the page may fail before the poll
	// reports it as a blind spot (three poll intervals).
	BlindAfter time.Duration
	// Cadence, when set, is told after every poll whether an incident is
	// open, so the Schedule polls faster while one is.
	Cadence func(ctx context.Context, incidentOpen bool) error
	// Reminders, when set, is given every page read, to keep one reminder
	// workflow per scheduled maintenance (worker/reminders.go).
	Reminders func(ctx context.Context, page *statuspage.Page) error

	msgMu    sync.Mutex
	messages map[string]string
}

func (a *Activities) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// Detection is what one poll found.
type Detection struct {
	Baseline      bool          `json:"baseline,omitempty"`
	Events        []event.Event `json:"events,omitempty"`
	Prune         []string      `json:"prune,omitempty"`
	ComponentsErr string        `json:"components_err,omitempty"`
	IncidentsErr  string        `json:"incidents_err,omitempty"`
	BytesFetched  int64         `json:"bytes_fetched"`
	// Provider that read the page; Rebaseline when it differs from the
	// checkpoint's (nobody is told about what the new one sees first).
	Provider   string `json:"provider,omitempty"`
	Rebaseline bool   `json:"rebaseline,omitempty"`
	// BaselinedParts names the parts seen for the first time this poll.
	BaselinedParts []string `json:"baselined_parts,omitempty"`
	// Renamed counts components whose IDs changed (filters followed them).
	Renamed int `json:"renamed,omitempty"`
	// Blind lists the parts of the page that have failed for longer than
	// BlindAfter: nobody hears of changes there until they come back.
	Blind []store.BlindSpot `json:"blind,omitempty"`
}

// DetectEvents fetches the page, stores it as the latest snapshot, and
// diffs it against the checkpoint. An idle poll costs two MongoDB round
// trips (snapshot write, checkpoint read).
func (a *Activities) DetectEvents(ctx context.Context) (*Detection, error) {
	page, n, err := a.Page.Fetch(ctx)
	if err != nil {
		return nil, fmt.Errorf("fetch status page: %w", err)
	}
	d := &Detection{ComponentsErr: page.ComponentsErr, IncidentsErr: page.IncidentsErr, BytesFetched: n, Provider: page.Provider}
	cp, err := a.Store.LoadCheckpoint(ctx)
	if err != nil {
		return nil, err
	}
	if len(cp.Intent) > 0 {
		if err := a.settleIntent(ctx, &cp); err != nil {
			return nil, err
		}
	}
	// Before the snapshot is replaced: it may hold the old names.
	if d.Renamed, err = a.followRenames(ctx, &cp, page); err != nil {
		return nil, err
	}
	if page.ComponentsErr == "" {
		if err := a.Store.SaveSnapshot(ctx, page, a.now()); err != nil {
			return nil, err
		}
	}
	if a.Cadence != nil && page.IncidentsErr == "" {
		if err := a.Cadence(ctx, page.Open()); err != nil {
			// Polling at the usual pace is no reason to fail the poll.
			activity.GetLogger(ctx).Warn("could not adjust the poll interval", "error", err)
		}
	}
	if a.Reminders != nil {
		if err := a.Reminders(ctx, page); err != nil {
			// Told again on the next poll; a missed poll is no reason to
			// hold back the page's changes.
			activity.GetLogger(ctx).Warn("could not schedule maintenance reminders", "error", err)
		}
	}
	res := event.Diff(cp, page)
	d.Rebaseline = res.Rebaseline
	if d.BaselinedParts, err = a.saveBaseline(ctx, cp, res, page.Provider); err != nil {
		return nil, err
	}
	// After the baseline: saving one replaces the checkpoint document.
	if d.Blind, err = a.trackBlindSpots(ctx, cp, page, res.Baseline != nil); err != nil {
		return nil, err
	}
	d.Baseline = res.Baseline != nil && len(res.Events) == 0
	d.Events, d.Prune = res.Events, res.Prune
	metrics.EventsDetected(d.Events)
	if len(d.Events) > 0 {
		if err := a.Store.SaveIntent(ctx, d.Events); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// saveBaseline records the parts of the page seen for the first time (or
// again under another provider) and names them.
func (a *Activities) saveBaseline(ctx context.Context, cp event.Checkpoint, res event.Result, provider string) ([]string, error) {
	if res.Baseline == nil {
		return nil, nil
	}
	if err := a.Store.SaveBaseline(ctx, res.Baseline); err != nil {
		return nil, err
	}
	parts := newlyBaselined(cp, res)
	activity.GetLogger(ctx).Info("status page baselined: nobody is told about what it already shows",
		"provider", provider, "parts", parts, "provider_changed", res.Rebaseline)
	return parts, nil
}

func newlyBaselined(cp event.Checkpoint, res event.Result) []string {
	var parts []string
	was := func(part bool) bool { return part && !res.Rebaseline }
	if res.Baseline.ComponentsBaselined && !was(cp.Baseline || cp.ComponentsBaselined) {
		parts = append(parts, "components")
	}
	if res.Baseline.IncidentsBaselined && !was(cp.Baseline || cp.IncidentsBaselined) {
		parts = append(parts, "incidents")
	}
	return parts
}

// followRenames maps subscribers' component filters, and the checkpoint's
// marks, to new component IDs when the page changed them (a provider
// change, or a page that renumbered its components), matching by name and
// group. It returns how many components were mapped.
func (a *Activities) followRenames(ctx context.Context, cp *event.Checkpoint, page *statuspage.Page) (int, error) {
	switching := cp.ProviderChanged(page)
	if page.ComponentsErr != "" || (!switching && !event.MissingComponents(*cp, page)) {
		return 0, nil
	}
	refs := cp.Refs()
	if len(refs) < len(cp.Components) {
		// Marks from before names were kept: the last snapshot knows them.
		snap, err := a.Store.LatestSnapshot(ctx)
		if err != nil {
			return 0, err
		}
		if snap != nil {
			for _, c := range snap.Page.Components {
				if _, known := cp.Components[c.ID]; known && !c.Group && refs[c.ID].Name == "" {
					refs[c.ID] = event.ComponentRef{Name: c.Name, Group: c.GroupName}
				}
			}
		}
	}
	renames := event.Renames(refs, page)
	if len(renames) == 0 {
		return 0, nil
	}
	subs, err := a.Store.RemapComponentFilters(ctx, renames)
	if err != nil {
		return 0, err
	}
	activity.GetLogger(ctx).Info("component IDs changed: filters mapped by name",
		"components", len(renames), "subscriptions", subs, "provider", page.Provider)
	if !switching {
		cp.RenameComponents(renames)
		if err := a.Store.ReplaceCheckpoint(ctx, *cp); err != nil {
			return 0, err
		}
	}
	return len(renames), nil
}

// trackBlindSpots records since when each part of the page has failed and
// returns those failing for longer than BlindAfter.
func (a *Activities) trackBlindSpots(ctx context.Context, cp event.Checkpoint, page *statuspage.Page, rewrite bool) ([]store.BlindSpot, error) {
	now := a.now()
	failing := map[string]store.BlindSpot{}
	for part, msg := range map[string]string{"components": page.ComponentsErr, "incidents": page.IncidentsErr, "maintenances": page.MaintenancesErr} {
		if msg == "" {
			continue
		}
		since := now
		if prev, ok := cp.Failing[part]; ok {
			since = prev
		}
		failing[part] = store.BlindSpot{Part: part, Since: since, Err: store.CapError(msg)}
	}
	if rewrite || !sameParts(cp.Failing, failing) {
		if err := a.Store.SaveFailingParts(ctx, failing); err != nil {
			return nil, err
		}
		for part, b := range failing {
			if _, was := cp.Failing[part]; !was {
				activity.GetLogger(ctx).Warn("a part of the status page cannot be read", "part", part, "error", b.Err)
			}
		}
	}
	var blind []store.BlindSpot
	for _, b := range failing {
		if a.BlindAfter > 0 && now.Sub(b.Since) >= a.BlindAfter {
			blind = append(blind, b)
		}
	}
	sort.Slice(blind, func(i, j int) bool { return blind[i].Part < blind[j].Part })
	for _, b := range blind {
		activity.GetLogger(ctx).Error("blind spot: a part of the status page has been unreadable for several polls",
			"part", b.Part, "since", b.Since, "error", b.Err)
	}
	return blind, nil
}

func sameParts(prev map[string]time.Time, now map[string]store.BlindSpot) bool {
	if len(prev) != len(now) {
		return false
	}
	for part := range now {
		if _, ok := prev[part]; !ok {
			return false
		}
	}
	return true
}

// settleIntent commits the events of an earlier poll whose deliveries
// started but which never committed (its run timed out, MongoDB was down):
// without this, a change that reverted meanwhile would go unannounced.
// Events are settled in order, up to the first whose delivery never started.
func (a *Activities) settleIntent(ctx context.Context, cp *event.Checkpoint) error {
	var started []event.Event
	for _, e := range cp.Intent {
		if e.Notify {
			ok, err := a.DeliveryStarted(ctx, e.Key)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
		}
		started = append(started, e)
	}
	if err := a.Store.CommitEvents(ctx, started, nil, a.now()); err != nil {
		return err
	}
	activity.GetLogger(ctx).Info("settled an uncommitted poll", "events", len(cp.Intent), "committed", len(started))
	cp.Apply(started)
	cp.Intent = nil
	return nil
}

// CommitInput lists events whose delivery has durably started.
type CommitInput struct {
	Events []event.Event `json:"events"`
	Prune  []string      `json:"prune,omitempty"`
}

// CommitCheckpoint records handed-over events so no later poll finds them again.
func (a *Activities) CommitCheckpoint(ctx context.Context, in CommitInput) error {
	return a.Store.CommitEvents(ctx, in.Events, in.Prune, a.now())
}

// PrepareMessage formats the event once and stores the text, so that send
// activities carry only the event key and the history stays small. The
// event is stored beside the text: a chat in another time zone gets the
// notice rendered again there (see noticeIn).
func (a *Activities) PrepareMessage(ctx context.Context, e event.Event) (int, error) {
	text := message.Notification(e)
	if err := a.Store.SaveNotice(ctx, e, text, a.now()); err != nil {
		return 0, err
	}
	if err := a.prepareCard(ctx, e); err != nil {
		return 0, err
	}
	a.cacheMessage(e.Key, text)
	return len(text), nil
}

func (a *Activities) cacheMessage(key, text string) {
	a.msgMu.Lock()
	defer a.msgMu.Unlock()
	if a.messages == nil || len(a.messages) > 256 {
		a.messages = map[string]string{}
	}
	a.messages[key] = text
}

func (a *Activities) cached(key string) (string, bool) {
	a.msgMu.Lock()
	defer a.msgMu.Unlock()
	text, ok := a.messages[key]
	return text, ok
}

func (a *Activities) message(ctx context.Context, key string) (string, error) {
	if text, ok := a.cached(key); ok {
		return text, nil
	}
	text, err := a.Store.Message(ctx, key)
	if err != nil {
		return "", err
	}
	a.cacheMessage(key, text)
	return text, nil
}

// noticeIn is the event's notice with its times in zone ("" is UTC): the
// stored text, or, for another zone, the stored event rendered there. A
// text stored without its event (prepared before zones applied to
// notices) stays in UTC.
func (a *Activities) noticeIn(ctx context.Context, key, zone string) (string, error) {
	if zone == "" {
		return a.message(ctx, key)
	}
	return a.inZone(ctx, key, zone, func(loc *time.Location) (string, error) {
		n, err := a.Store.Notice(ctx, key)
		if err != nil || n.Event == nil {
			return n.Text, err
		}
		return message.NotificationIn(*n.Event, loc), nil
	})
}

// inZone is the text cached under key rendered in zone, rendered once per
// worker and zone; a zone this worker does not know renders in UTC.
func (a *Activities) inZone(ctx context.Context, key, zone string, render func(*time.Location) (string, error)) (string, error) {
	key += "@" + zone
	if text, ok := a.cached(key); ok {
		return text, nil
	}
	loc, err := store.LoadZone(zone)
	if err != nil {
		activity.GetLogger(ctx).Warn("unknown time zone: sent in UTC", "zone", zone, "error", err)
		loc = time.UTC
	}
	text, err := render(loc)
	if err != nil {
		return "", err
	}
	a.cacheMessage(key, text)
	return text, nil
}

// Recipient is a subscriber reference as the delivery workflow keeps it.
type Recipient struct {
	Key      string `json:"key"`
	ChatID   int64  `json:"chat_id"`
	ThreadID int    `json:"thread_id,omitempty"`
	// Silent: sent with disable_notification (the chat's quiet hours or
	// severity choice, see internal/notice).
	Silent bool `json:"silent,omitempty"`
	// Cards mode of the subscriber (PinCards: pin the open card), and its
	// card of the event's incident, as the page read them (CardRead):
	// incident updates only.
	Cards    bool                `json:"cards,omitempty"`
	PinCards bool                `json:"pin_cards,omitempty"`
	Card     *store.IncidentCard `json:"card,omitempty"`
	CardRead bool                `json:"card_read,omitempty"`
	// Zone is the chat's time zone when its texts of the event show times
	// and it is not UTC (notice.TextZone); "" is UTC.
	Zone string `json:"zone,omitempty"`
}

// PageInput asks for the next page of recipients of an event.
type PageInput struct {
	Event  event.Event `json:"event"`
	Cursor string      `json:"cursor,omitempty"`
	Limit  int         `json:"limit"`
	// Since is when the delivery started: a group that moved to a
	// supergroup after it is found at its old key's place in the pages.
	Since time.Time `json:"since,omitempty"`
	// Recheck is how soon a subscriber blocked behind an earlier update is
	// looked at again.
	Recheck time.Duration `json:"recheck,omitempty"`
}

// RecipientPage is one page of subscribers that want the event and have
// not got it yet.
type RecipientPage struct {
	Recipients []Recipient `json:"recipients,omitempty"`
	// AlreadyDelivered counts subscribers the ledger says got the event.
	AlreadyDelivered int    `json:"already_delivered,omitempty"`
	Next             string `json:"next,omitempty"`
	// Blocked counts subscribers an earlier, unfinished update of the same
	// incident or component has not reached yet: saved as retries that wait.
	Blocked int `json:"blocked,omitempty"`
}

// Recipients pages subscribers: a few round trips per page (subscribers,
// moved groups, ledger, earlier updates' retries), however large the page.
func (a *Activities) Recipients(ctx context.Context, in PageInput) (*RecipientPage, error) {
	subs, next, err := a.Store.ListSubscribers(ctx, in.Cursor, in.Limit)
	if err != nil {
		return nil, err
	}
	wanted, err := a.pageRecipients(ctx, in, subs, next)
	if err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(wanted))
	for _, r := range wanted {
		keys = append(keys, r.Key)
	}
	done, err := a.Store.Delivered(ctx, in.Event.Key, keys)
	if err != nil {
		return nil, err
	}
	out := &RecipientPage{Next: next}
	var fresh []Recipient
	for _, r := range wanted {
		if done[r.Key] {
			out.AlreadyDelivered++
			continue
		}
		fresh = append(fresh, r)
	}
	blocked, err := a.holdBlocked(ctx, in.Event, fresh, in.Recheck)
	if err != nil {
		return nil, err
	}
	out.Blocked = len(blocked)
	for _, r := range fresh {
		if !blocked[r.Key] {
			out.Recipients = append(out.Recipients, r)
		}
	}
	return out, nil
}

// pageRecipients turns one page of subscriptions into the recipients that
// want the event, with group-to-supergroup moves placed where the delivery
// expects them: a group that moved after the delivery started is reached at
// its old key's place (the new key may sort behind the cursor), never twice.
func (a *Activities) pageRecipients(ctx context.Context, in PageInput, subs []store.Subscriber, next string) ([]Recipient, error) {
	keys := make([]string, 0, len(subs))
	for _, s := range subs {
		keys = append(keys, s.Key)
	}
	// A migration cut short leaves the old subscription beside the new one.
	twins, err := a.Store.MigratedTwins(ctx, keys)
	if err != nil {
		return nil, err
	}
	moves, err := a.Store.MigrationsBetween(ctx, in.Cursor, next, in.Since)
	if err != nil {
		return nil, err
	}
	live := map[string]bool{}
	var out []Recipient
	for _, s := range subs {
		live[s.Key] = true
		if s.MigratedFrom != "" && s.MigratedAt.After(in.Since) {
			continue // reached at its old key's place
		}
		if twin, ok := twins[s.Key]; ok && !twin.MigratedAt.After(in.Since) {
			continue // the new subscription is paged on its own
		}
		if in.Event.Accepts(s.Kinds, s.Components) && notice.Wants(s.Settings, in.Event) {
			out = append(out, a.recipientOf(in.Event, s))
		}
	}
	for _, m := range moves {
		if live[m.OldKey] {
			continue // the old subscription is still there and read above
		}
		sub, err := a.Store.Subscription(ctx, m.NewKey)
		if errors.Is(err, store.ErrNotSubscribed) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if in.Event.Accepts(sub.Kinds, sub.Components) && notice.Wants(sub.Settings, in.Event) {
			out = append(out, a.recipientOf(in.Event, *sub))
		}
	}
	return out, a.withCards(ctx, in.Event, out)
}

// recipientOf is the recipient of an event; of an incident update, with
// its delivery mode.
func (a *Activities) recipientOf(e event.Event, s store.Subscriber) Recipient {
	r := Recipient{Key: s.Key, ChatID: s.ChatID, ThreadID: s.ThreadID, Silent: notice.Silent(s.Settings, e, a.now()),
		Zone: notice.TextZone(s.Settings, e)}
	if e.Kind == event.KindIncident {
		r.Cards, r.PinCards = s.Settings.Cards(), s.Settings.PinCards
	}
	return r
}

// SendInput is one message to one subscriber.
type SendInput struct {
	EventKey  string    `json:"event_key"`
	Recipient Recipient `json:"recipient"`
}

// SendResult says what happened; failures that need a retry are errors.
type SendResult struct {
	// Removed: Telegram says the chat is gone; the subscription was deleted.
	Removed bool `json:"removed,omitempty"`
	// MigratedTo: the group became this supergroup; delivered there under
	// NewKey, unless Merged.
	MigratedTo int64  `json:"migrated_to,omitempty"`
	NewKey     string `json:"new_key,omitempty"`
	// Merged: the supergroup had a subscription of its own, which gets the
	// notification by itself; nothing was sent for the old one.
	Merged bool   `json:"merged,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// Send delivers the event's message to one subscriber.
//
// 429 fails with NextRetryDelay = retry_after; terminal errors remove the
// subscriber; a group upgraded to a supergroup is moved and delivered to;
// errors about the message itself fail without retry. A failure after a
// move carries the new recipient in its details, so that the retry goes to
// the supergroup. Nothing is written after a successful send: the delivery
// records it, so no failing write can make a retry send again.
func (a *Activities) Send(ctx context.Context, in SendInput) (*SendResult, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)()
	r := in.Recipient
	text, err := a.noticeIn(ctx, in.EventKey, r.Zone)
	if err != nil {
		return nil, err
	}
	err = a.deliver(ctx, in.EventKey, text, r)
	var se *telegram.SendError
	var moved *Recipient
	if err != nil && errors.As(err, &se) && se.Outcome == telegram.Migrated {
		independent, err := a.Store.MigrateChatAt(ctx, r.ChatID, se.MigrateTo, a.now())
		if err != nil {
			return nil, err
		}
		activity.GetLogger(ctx).Info("subscriber migrated to supergroup", "subscriber", r.Key)
		// The card stays in the old group: the supergroup gets a fresh one.
		r = Recipient{Key: store.SubscriberKey(se.MigrateTo, r.ThreadID), ChatID: se.MigrateTo, ThreadID: r.ThreadID, Zone: r.Zone}
		if independent[r.Key] {
			return &SendResult{MigratedTo: se.MigrateTo, NewKey: r.Key, Merged: true}, nil
		}
		moved = &r
		if err = a.deliver(ctx, in.EventKey, text, r); err == nil {
			return &SendResult{MigratedTo: se.MigrateTo, NewKey: r.Key}, nil
		}
	}
	if err == nil {
		return &SendResult{}, nil
	}
	if !errors.As(err, &se) {
		return nil, sendFailure(err.Error(), ErrTypeTransient, 0, false, moved)
	}
	switch se.Outcome {
	case telegram.Terminal:
		if err := a.Store.Unsubscribe(ctx, r.Key); err != nil && !errors.Is(err, store.ErrNotSubscribed) {
			return nil, err
		}
		return &SendResult{Removed: true, Detail: se.Description}, nil
	case telegram.RateLimited:
		return nil, sendFailure(se.Description, ErrTypeRateLimited, se.RetryAfter, false, moved)
	case telegram.Permanent, telegram.Migrated:
		return nil, sendFailure(se.Description, ErrTypePermanentMessage, 0, true, moved)
	default:
		return nil, sendFailure(se.Description, ErrTypeTransient, 0, false, moved)
	}
}

// sendHeartbeatEvery: a send that takes longer heartbeats this often, so a
// send lost with its worker is noticed after the delivery's heartbeat
// time-out; a send that is quick costs no heartbeat at all.
const sendHeartbeatEvery = 2 * time.Second

// heartbeatWhile heartbeats every interval until the returned stop is called.
func heartbeatWhile(ctx context.Context, every time.Duration) (stop func()) {
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}

// sendFailure is a failed send; after a move its details name the new recipient.
func sendFailure(msg, errType string, retryAfter time.Duration, permanent bool, moved *Recipient) error {
	opts := temporal.ApplicationErrorOptions{NextRetryDelay: retryAfter, NonRetryable: permanent}
	if moved != nil {
		opts.Details = []any{*moved}
	}
	return temporal.NewApplicationErrorWithOptions(msg, errType, opts)
}

// MovedRecipient is the supergroup a failed send had moved its group to.
func MovedRecipient(err error) (Recipient, bool) {
	var ae *temporal.ApplicationError
	var r Recipient
	if errors.As(err, &ae) && ae.HasDetails() && ae.Details(&r) == nil && r.Key != "" {
		return r, true
	}
	return r, false
}

// StillSubscribed returns the keys that still have a subscription wanting
// the event: retries must not reach a chat that sent /stop or changed its
// filter meanwhile. One round trip per retry round.
func (a *Activities) StillSubscribed(ctx context.Context, e event.Event, keys []string) ([]string, error) {
	subs, err := a.Store.Subscriptions(ctx, keys)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range subs {
		if e.Accepts(s.Kinds, s.Components) && notice.Wants(s.Settings, e) {
			out = append(out, s.Key)
		}
	}
	return out, nil
}

// RecordInput lists subscribers an event was delivered to, and the
// outcomes of the others since the last write: retries to save, settled
// retries to remove.
type RecordInput struct {
	EventKey string   `json:"event_key"`
	Keys     []string `json:"keys"`
	// OrderKey and EventAt are stored with each retry: later updates of the
	// same incident or component wait for it.
	OrderKey string    `json:"order_key,omitempty"`
	EventAt  time.Time `json:"event_at,omitempty"`
	Retries  []Retry   `json:"retries,omitempty"`
	Settled  []string  `json:"settled,omitempty"`
}

// Retry is a subscriber that failed a burst and when to try again.
type Retry struct {
	Recipient Recipient `json:"recipient"`
	Bursts    int       `json:"bursts,omitempty"`
	NextAt    time.Time `json:"next_at,omitempty"`
	Error     string    `json:"error,omitempty"`
}

// RecordDelivered writes the ledger for a window of sends and the retries
// of the window's failures: one round trip each.
func (a *Activities) RecordDelivered(ctx context.Context, in RecordInput) error {
	if err := a.Store.RecordDelivered(ctx, in.EventKey, in.Keys, a.now()); err != nil {
		return err
	}
	if len(in.Retries) > 0 {
		docs := make([]store.Retry, 0, len(in.Retries))
		for _, r := range in.Retries {
			docs = append(docs, store.Retry{Event: in.EventKey, OrderKey: in.OrderKey, EventAt: in.EventAt, Sub: r.Recipient.Key,
				ChatID: r.Recipient.ChatID, ThreadID: r.Recipient.ThreadID, Bursts: r.Bursts, NextAt: r.NextAt, Error: r.Error, At: a.now()})
		}
		if err := a.Store.SaveRetries(ctx, docs); err != nil {
			return err
		}
	}
	_, err := a.Store.DeleteRetries(ctx, in.EventKey, in.Settled)
	return err
}

// PredecessorState is what a delivery must wait for.
type PredecessorState struct {
	// Closed: the predecessor has finished (or is gone): nothing to wait for.
	Closed bool `json:"closed"`
	// FirstPassDone: it has tried every subscriber once.
	FirstPassDone bool `json:"first_pass_done"`
	// Pending lists subscribers it has not delivered to yet (deliveries
	// from before the pending retries moved to MongoDB).
	Pending []string `json:"pending,omitempty"`

	missing  bool   // no such workflow
	previous string // its event's predecessor, when it said
}

// ProgressQuery is the query name every delivery answers.
const ProgressQuery = "progress"

// maxChain bounds how far back PredecessorProgress follows the updates of
// one incident or component.
const maxChain = 100

// PredecessorProgress reports where the previous delivery of the same
// incident or component stands. With Wait it heartbeats until every earlier
// delivery of that incident or component still running (not only the
// previous one: it may have been given up while an earlier one still
// works) has tried everyone once, so per-subscriber order holds.
func (a *Activities) PredecessorProgress(ctx context.Context, workflowID string, wait bool) (*PredecessorState, error) {
	for {
		st, err := a.predecessor(ctx, workflowID)
		if err != nil || !wait {
			return st, err
		}
		behind, err := a.firstPassUnder(ctx, workflowID)
		if err != nil {
			return nil, err
		}
		if behind == "" {
			return st, nil
		}
		activity.RecordHeartbeat(ctx, behind)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// firstPassUnder walks back from workflowID through the earlier deliveries
// of the same order key and returns the first still running whose first
// pass is not done ("" when none).
func (a *Activities) firstPassUnder(ctx context.Context, workflowID string) (string, error) {
	for id, depth := workflowID, 0; id != "" && depth < maxChain; depth++ {
		st, err := a.predecessor(ctx, id)
		if err != nil {
			return "", err
		}
		if !st.Closed && !st.FirstPassDone {
			return id, nil
		}
		if st.missing {
			return "", nil // older than the server's retention: nothing runs before it
		}
		prev := st.previous
		if prev == "" {
			if prev, err = a.previousOf(ctx, id); err != nil {
				return "", err
			}
		}
		id = ""
		if prev != "" {
			id = DeliveryWorkflowID(prev)
		}
	}
	return "", nil
}

// previousOf reads the event's predecessor from the delivery's start event.
func (a *Activities) previousOf(ctx context.Context, workflowID string) (string, error) {
	it := a.Temporal.GetWorkflowHistory(ctx, workflowID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return "", nil
	}
	first, err := it.Next()
	if err != nil {
		return "", err
	}
	payloads := first.GetWorkflowExecutionStartedEventAttributes().GetInput().GetPayloads()
	if len(payloads) == 0 {
		return "", nil
	}
	var in struct {
		Event struct {
			Predecessor string `json:"predecessor"`
		} `json:"event"`
	}
	if err := json.Unmarshal(payloads[0].GetData(), &in); err != nil {
		return "", fmt.Errorf("decode the input of %s: %w", workflowID, err)
	}
	return in.Event.Predecessor, nil
}

func (a *Activities) predecessor(ctx context.Context, workflowID string) (*PredecessorState, error) {
	desc, err := a.Temporal.DescribeWorkflow(ctx, workflowID, "")
	var nf *serviceerror.NotFound
	if errors.As(err, &nf) {
		return &PredecessorState{Closed: true, missing: true}, nil
	}
	if err != nil {
		return nil, err
	}
	if desc.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() != nil {
		return &PredecessorState{Closed: true}, nil
	}
	v, err := a.Temporal.QueryWorkflow(ctx, workflowID, "", ProgressQuery)
	if err != nil {
		return nil, err
	}
	var p struct {
		FirstPassDone bool     `json:"first_pass_done"`
		PendingKeys   []string `json:"pending_keys"`
		Predecessor   string   `json:"predecessor"`
	}
	if err := v.Get(&p); err != nil {
		return nil, err
	}
	return &PredecessorState{FirstPassDone: p.FirstPassDone, Pending: p.PendingKeys, previous: p.Predecessor}, nil
}
