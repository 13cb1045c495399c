package activities

import (
	"cmp"
	"context"
	"slices"

	"go.temporal.io/sdk/activity"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// One pending message per chat and story. A chat whose send of a step is
// being retried (Telegram failing for it) while later steps of the same
// story arrive has those steps waiting behind it (retries blocked by this
// one, predecessors.go). When the retry goes out, it tells them too: one
// message with the newest state, naming the earlier steps, instead of one
// message per step in a row. The delivery then writes the ledger of the
// steps it told (RecordInput.Covered) before it settles its own retry, so
// their deliveries find the chat told and send nothing; a retry of theirs
// read in between is dropped by the ledger (Retries).

// Covered is a later step of the story a send told too.
type Covered struct {
	Event string `json:"event"`
	Seq   int    `json:"seq"`
}

// CoveredBy is what one chat's send told beyond its own step.
type CoveredBy struct {
	Sub    string    `json:"sub"`
	Events []Covered `json:"events"`
}

// maxCovered bounds the later steps one send tells (and its input).
const maxCovered = 30

// laterSteps are the later steps of in's story blocked behind it for the
// chat: those the send tells too. Only incident and maintenance updates
// fold so (component changes have their bursts, burst.go). Folding is a
// saving: when anything is unclear the step goes alone.
func (a *Activities) laterSteps(ctx context.Context, in SendInput, r Recipient) []Covered {
	if !in.FoldLater || in.Step != nil || !keyIs(in.EventKey, event.KindIncident) {
		return nil
	}
	return withNewer(a.blockedLater(ctx, in, r), in.Newer)
}

// withNewer adds the step handed over to the delivery (handover.go) to
// the blocked later steps, in the order of the story, once.
func withNewer(later []Covered, newer *Covered) []Covered {
	if newer == nil || newer.Event == "" {
		return later
	}
	for _, l := range later {
		if l.Event == newer.Event {
			return later
		}
	}
	out := append(append([]Covered{}, later...), *newer)
	slices.SortStableFunc(out, func(x, y Covered) int { return cmp.Compare(x.Seq, y.Seq) })
	return out
}

// blockedLater are the later steps blocked behind in's step for the chat.
func (a *Activities) blockedLater(ctx context.Context, in SendInput, r Recipient) []Covered {
	e, err := a.storedEvent(ctx, in.EventKey)
	if err != nil || e == nil || e.Seq == 0 || e.Reminder != nil {
		return nil
	}
	later, err := a.Store.LaterBlockedRetries(ctx, e.OrderKey, e.Seq, r.Key, maxCovered)
	if err != nil {
		activity.GetLogger(ctx).Info("could not read the chat's later steps; the step goes alone", "subscriber", r.Key, "error", err)
		return nil
	}
	var out []Covered
	for _, l := range later {
		if l.Event == in.EventKey {
			continue
		}
		out = append(out, Covered{Event: l.Event, Seq: l.Seq})
	}
	return out
}

// storedEvent is the event of a key as PrepareMessage stored it. Kept
// in memory once read: a delivery stores its event once, before any send
// that tells it (a take-over changes it before, never after).
func (a *Activities) storedEvent(ctx context.Context, key string) (*event.Event, error) {
	a.msgMu.Lock()
	e, ok := a.events[key]
	a.msgMu.Unlock()
	if ok {
		return &e, nil
	}
	n, err := a.Store.Notice(ctx, key)
	if err != nil || n.Event == nil {
		return nil, err
	}
	a.msgMu.Lock()
	if a.events == nil || len(a.events) > 256 {
		a.events = map[string]event.Event{}
	}
	a.events[key] = *n.Event
	a.msgMu.Unlock()
	return n.Event, nil
}

// tellKey is the event whose texts a send shows: the newest step it tells.
func tellKey(in SendInput) string {
	if len(in.Covers) > 0 {
		return in.Covers[len(in.Covers)-1].Event
	}
	return in.EventKey
}

// together is the newest step in tells with every earlier one it tells
// (its own step, the later ones, and the steps each of them folded), the
// earlier newest first; nil when in tells only its own step.
func (a *Activities) together(ctx context.Context, in SendInput) (*event.Event, error) {
	if len(in.Covers) == 0 {
		return a.sinceTold(ctx, in)
	}
	keys := []string{in.EventKey}
	for _, c := range in.Covers {
		keys = append(keys, c.Event)
	}
	evs := make([]event.Event, 0, len(keys))
	for _, k := range keys {
		e, err := a.storedEvent(ctx, k)
		if err != nil {
			return nil, err
		}
		if e == nil {
			e = &event.Event{Key: k}
		}
		evs = append(evs, *e)
	}
	newest := evs[len(evs)-1]
	first := evs[0]
	folded := append([]event.FoldedStep{}, newest.Folded...)
	more := newest.FoldedMore
	for i := len(evs) - 2; i >= 0; i-- {
		e := evs[i]
		folded = append(folded, e.AsFolded())
		folded = append(folded, e.Folded...)
		more += e.FoldedMore
	}
	if len(folded) > event.MaxFolded {
		more += len(folded) - event.MaxFolded
		folded = folded[:event.MaxFolded]
	}
	newest.Folded, newest.FoldedMore = folded, more
	// Judged by its net change since the step the chat waited for.
	newest.Predecessor, newest.PrevStatus, newest.PrevImpact = first.Predecessor, first.PrevStatus, first.PrevImpact
	newest = newest.Since(in.Recipient.Told)
	return &newest, nil
}

// sinceTold is in's step for a chat told some of the steps it folds
// (Recipient.Told: handed over to the delivery before, handover.go): the
// steps after those alone; nil for any other chat (the step's own text).
func (a *Activities) sinceTold(ctx context.Context, in SendInput) (*event.Event, error) {
	if in.Recipient.Told == "" {
		return nil, nil
	}
	e, err := a.storedEvent(ctx, in.EventKey)
	if err != nil || e == nil || !e.Folds(in.Recipient.Told) {
		return nil, err
	}
	since := e.Since(in.Recipient.Told)
	return &since, nil
}

// togetherText is the message of a send that tells later steps too, in
// the chat's zone and language and with its page's name.
func togetherText(e event.Event, zone, lang, page string) string {
	loc, err := store.LoadZone(zone)
	if err != nil || zone == "" {
		loc = nil
	}
	return message.OfPage(message.NotificationOf(i18n.Of(lang), e, loc), page)
}

// rings: a send told silently as no news rings when what it tells
// together is news (a status changed on the way).
func ringsTogether(r Recipient, quiet bool, e *event.Event) bool {
	return r.Silent && r.NoNews && !quiet && e != nil && notice.News(*e)
}

// laterLine names, for /why, the later steps a send told too: in English
// and in parts (store.FateSteps, for the chat's language).
func laterLine(ctx context.Context, a *Activities, covers []Covered) (string, *store.FateSteps) {
	if len(covers) == 0 {
		return "", nil
	}
	told := &store.FateSteps{Count: len(covers)}
	for i, c := range covers {
		if i == 5 {
			told.More = true
			break
		}
		e, err := a.storedEvent(ctx, c.Event)
		if err != nil || e == nil {
			continue
		}
		told.Steps = append(told.Steps, store.FateStep{Status: e.UpdateStatus, At: e.At})
	}
	return notice.ToldIn(i18n.Of(i18n.Default), nil, told), told
}

// noteTogether records, for /why, that the later steps were told in the
// message of in's step.
// newer is the step handed over to the delivery (handover.go), if any.
func (a *Activities) noteTogether(ctx context.Context, covers []Covered, newer *Covered, r Recipient) {
	for _, c := range covers {
		as := store.AsTogether
		if newer != nil && c.Event == newer.Event {
			as = store.AsHandedOver
		}
		a.noteFate(ctx, store.Fate{Sub: r.Key, Event: c.Event, Outcome: store.FateSent, As: as, At: a.now()})
	}
}
