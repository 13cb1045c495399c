package notice

import (
	"context"
	"strings"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// WhyCount is how many notices /why tells of.
const WhyCount = 8

// Explain is ExplainIn in English.
func Explain(fates []store.Fate, loc *time.Location) string {
	return ExplainIn(i18n.Of(i18n.Default), fates, loc)
}

// ExplainIn is /why's answer in c's language: what became of the chat's
// last notices (fates newest first), each on two lines, times as
// date-time entities with the chat's zone (loc) as their text. The
// notices' summaries are the page's words, as written.
func ExplainIn(c i18n.Catalog, fates []store.Fate, loc *time.Location) string {
	if len(fates) == 0 {
		return c.T("why.none")
	}
	lines := []string{c.T("why.title")}
	for _, f := range fates {
		summary := message.Escape(strings.TrimSpace(f.Summary))
		if summary == "" {
			summary = c.T("why.aNotice")
		}
		lines = append(lines, "", "• <b>"+summary+"</b>", "  "+FateIn(c, f, loc))
	}
	return strings.Join(lines, "\n")
}

// Fate is FateIn in English.
func Fate(f store.Fate, loc *time.Location) string { return FateIn(i18n.Of(i18n.Default), f, loc) }

// FateIn says in a line what became of one notice, in c's language: the
// reason of a wait or a failure from its code (Telegram's own words in it
// as Telegram wrote them), or as stored, in English, by a delivery from
// before the codes.
func FateIn(c i18n.Catalog, f store.Fate, loc *time.Location) string {
	at := whyTime(c, f.At, loc)
	switch f.Outcome {
	case store.FateSent:
		switch f.As {
		case store.AsSummary:
			return c.T("why.summary", "At", at)
		case store.AsCardEdit:
			return c.T("why.cardEdit", "At", at)
		case store.AsTogether:
			return c.T("why.together", "At", at)
		case store.AsHandedOver:
			return c.T("why.handedOver", "At", at)
		case store.AsFolded:
			return c.T("why.folded", "At", at)
		}
		sound := "why.sound.loud"
		switch {
		case f.Quiet:
			sound = "why.sound.quiet"
		case f.NoNews:
			sound = "why.sound.noNews"
		case f.Silent:
			sound = "why.sound.silent"
		}
		return c.T("why.sent", "At", at, "Sound", c.T(sound), "As", c.T(sentAs(f.As)), "Together", together(c, f))
	case store.FateHeld:
		if !f.RetryAt.IsZero() {
			return c.T("why.heldUntil", "At", at, "Then", whyTime(c, f.RetryAt, loc))
		}
		return c.T("why.held", "At", at)
	case store.FateWithheld:
		return c.T("why.withheld", "Why", withheldBy(c, f.Why))
	case store.FateWaiting:
		if !f.RetryAt.IsZero() {
			return c.T("why.waitingRetry", "At", at, "Why", message.Escape(reasonOf(c, f)), "Then", whyTime(c, f.RetryAt, loc))
		}
		return c.T("why.waiting", "At", at, "Why", message.Escape(reasonOf(c, f)))
	case store.FateFailed:
		return c.T("why.failed", "At", at, "Why", message.Escape(reasonOf(c, f)))
	}
	return message.Escape(f.Outcome)
}

// together names the earlier steps a notice told too.
func together(c i18n.Catalog, f store.Fate) string {
	steps := toldIn(c, f)
	if steps == "" {
		return ""
	}
	return c.T("why.toldWith", "Steps", message.Escape(steps))
}

// reasonOf is why a notice waits or failed, in c's language when its
// fate has a reason the catalogs know, else as stored.
func reasonOf(c i18n.Catalog, f store.Fate) string {
	if f.Reason != nil {
		if s := ReasonIn(c, *f.Reason); s != "" {
			return s
		}
	}
	return f.Why
}

// ReasonIn is r in c's language, as text (not HTML); "" for a code the
// catalogs do not have. In English it is the Why a delivery stores.
func ReasonIn(c i18n.Catalog, r store.Reason) string {
	id := "fate." + r.Code
	args := make([]any, 0, 2*len(r.Args))
	for k, v := range r.Args {
		args = append(args, k, v)
	}
	var s string
	if r.N > 0 {
		s = c.N(id, r.N, args...)
	} else {
		s = c.T(id, args...)
	}
	if s == id {
		return ""
	}
	return s
}

// toldIn names the steps a notice told too, in c's language (as text):
// from their parts, or the stored English of a fate from before them.
func toldIn(c i18n.Catalog, f store.Fate) string {
	if f.Earlier == nil && f.Later == nil {
		return f.Together
	}
	return ToldIn(c, f.Earlier, f.Later)
}

// ToldIn is "3 earlier updates (Investigating, Jan 2 10:02 UTC; …) and
// 1 later update (…)" in c's language, as text; in English it is the
// Together a delivery stores.
func ToldIn(c i18n.Catalog, earlier, later *store.FateSteps) string {
	var e, l string
	if earlier != nil && earlier.Count > 0 {
		e = c.N("fate.earlier", earlier.Count, "Steps", toldSteps(c, earlier))
	}
	if later != nil && later.Count > 0 {
		if steps := toldSteps(c, later); steps != "" {
			l = c.N("fate.later", later.Count, "Steps", steps)
		} else {
			l = c.N("fate.laterCount", later.Count)
		}
	}
	switch {
	case e == "":
		return l
	case l == "":
		return e
	}
	return c.T("fate.toldBoth", "Earlier", e, "Later", l)
}

// toldSteps lists a few steps told, each its status and time (UTC, the
// chat's language's layout), "…" for more.
func toldSteps(c i18n.Catalog, t *store.FateSteps) string {
	var parts []string
	for _, s := range t.Steps {
		parts = append(parts, c.T("fate.step", "Status", message.StatusIn(c, s.Status), "At", s.At.UTC().Format(c.T("time.short"))))
	}
	if t.More {
		parts = append(parts, "…")
	}
	return strings.Join(parts, "; ")
}

// sentAs is the message id of how a notice went.
func sentAs(as string) string {
	switch as {
	case store.AsCard:
		return "why.as.card"
	case store.AsReply:
		return "why.as.reply"
	}
	return "why.as.message"
}

// withheldBy names the setting that kept a notice back (Decide's Why).
func withheldBy(c i18n.Catalog, why string) string {
	switch Why(why) {
	case WhyKinds:
		return c.T("why.by.kinds")
	case WhyFilter:
		return c.T("why.by.filter")
	case WhySeverity:
		return c.T("why.by.severity")
	case WhyNeverTold:
		return c.T("why.by.neverTold")
	}
	return message.Escape(why)
}

// whyTime is a date-time entity (each reader's own locale) whose
// fallback text is in the chat's language and zone.
func whyTime(c i18n.Catalog, t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return message.TimeHTML(t, loc, c.T("time.short"), message.FormatDateTime)
}

// Fates is what /why reads (store.Store).
type Fates interface {
	LastFates(ctx context.Context, sub string, n int) ([]store.Fate, error)
	Summaries(ctx context.Context, events []string) (map[string]string, error)
}

// OnePage is the label of a chat of one page: its notices name no page.
func OnePage(string) string { return "" }

// WhyAnswer is WhyAnswerIn in English.
func WhyAnswer(ctx context.Context, st Fates, sub string, loc *time.Location, label func(event string) string) (string, error) {
	return WhyAnswerIn(ctx, i18n.Of(i18n.Default), st, sub, loc, label)
}

// WhyAnswerIn reads a chat's last WhyCount fates and explains them in c's
// language and loc; label names an event's page for the chat ("" for a
// chat of one page), as its notices do.
func WhyAnswerIn(ctx context.Context, c i18n.Catalog, st Fates, sub string, loc *time.Location, label func(event string) string) (string, error) {
	fates, err := st.LastFates(ctx, sub, WhyCount)
	if err != nil {
		return "", err
	}
	var missing []string
	for _, f := range fates {
		if f.Summary == "" {
			missing = append(missing, f.Event)
		}
	}
	sums, err := summariesIn(ctx, c, st, fates, missing)
	if err != nil {
		return "", err
	}
	for i := range fates {
		if s, ok := sums[fates[i].Event]; ok && (fates[i].Summary == "" || c.Tag() != i18n.Default) {
			fates[i].Summary = s
		}
		if page := label(fates[i].Event); page != "" && fates[i].Summary != "" {
			fates[i].Summary = page + " · " + fates[i].Summary
		}
	}
	return ExplainIn(c, fates, loc), nil
}

// noticeEvents is a Fates that reads the notices' stored events too
// (store.Store): /why then says what each is about in the chat's language.
type noticeEvents interface {
	NoticeEvents(ctx context.Context, events []string) (map[string]event.Event, error)
}

// summariesIn is what the fates' notices are about, in c's language: in
// English the stored summaries of those missing one (the fates of the
// others have theirs); in another language each notice's own, from its
// stored event (an event no longer stored keeps its English summary).
func summariesIn(ctx context.Context, c i18n.Catalog, st Fates, fates []store.Fate, missing []string) (map[string]string, error) {
	ev, ok := st.(noticeEvents)
	if c.Tag() == i18n.Default || !ok {
		return st.Summaries(ctx, missing)
	}
	keys := make([]string, len(fates))
	for i, f := range fates {
		keys[i] = f.Event
	}
	events, err := ev.NoticeEvents(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, e := range events {
		out[k] = SummaryIn(c, e)
	}
	return out, nil
}

// SummaryIn is what a notice is about, on one line, in c's language
// (event.Summary in English); names as the page wrote them.
func SummaryIn(c i18n.Catalog, e event.Event) string {
	var s string
	switch {
	case c.Tag() == i18n.Default:
		s = e.Summary()
	case e.Kind == event.KindComponent:
		s = c.T("fate.summary.component", "Name", e.ComponentName, "From", message.StatusIn(c, e.OldStatus), "To", message.StatusIn(c, e.NewStatus))
	case e.Kind == event.KindMaintenance && e.Reminder != nil:
		s = c.N("fate.summary.reminder", int(e.Reminder.Lead/time.Minute), "Name", e.IncidentName)
	case e.Kind == event.KindMaintenance:
		s = c.T("fate.summary.maintenance", "Name", e.IncidentName, "Status", message.StatusIn(c, e.UpdateStatus))
	default:
		s = c.T("fate.summary.incident", "Name", e.IncidentName, "Status", message.StatusIn(c, e.UpdateStatus))
	}
	if r := []rune(s); len(r) > 160 {
		s = string(append(r[:159], '…'))
	}
	return s
}
