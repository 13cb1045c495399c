package notice

import (
	"context"
	"strings"
	"time"

	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// WhyCount is how many notices /why tells of.
const WhyCount = 8

// Explain is /why's answer: what became of the chat's last notices (fates
// newest first), each on two lines, times as date-time entities with the
// chat's zone (loc) as their text.
func Explain(fates []store.Fate, loc *time.Location) string {
	if len(fates) == 0 {
		return "No notices for this chat in the last 7 days: nothing was sent, withheld or held back."
	}
	lines := []string{"<b>The last notices in this chat</b>"}
	for _, f := range fates {
		summary := strings.TrimSpace(f.Summary)
		if summary == "" {
			summary = "A notice"
		}
		lines = append(lines, "", "• <b>"+message.Escape(summary)+"</b>", "  "+Fate(f, loc))
	}
	return strings.Join(lines, "\n")
}

// Fate says in a line what became of one notice.
func Fate(f store.Fate, loc *time.Location) string {
	at := whyTime(f.At, loc)
	switch f.Outcome {
	case store.FateSent:
		if f.As == store.AsSummary {
			return "Held in quiet hours, then told in the morning summary " + at + "."
		}
		if f.As == store.AsCardEdit {
			return "Told on the incident's card " + at + ": an edit, no new message and no sound."
		}
		if f.As == store.AsTogether {
			return "Told " + at + " together with an earlier update of the same story, in one message (the chat's send of that one was being retried when this came)."
		}
		if f.As == store.AsHandedOver {
			return "Told " + at + " together with an earlier update of the same story, in one message (that one was still on its way to the chats when this came)."
		}
		if f.As == store.AsFolded {
			return "Told " + at + " in one message with the component changes just before it (several came at once)."
		}
		sound := "with sound"
		switch {
		case f.Quiet:
			sound = "silently (quiet hours)"
		case f.NoNews:
			sound = "silent: no change of status or impact"
		case f.Silent:
			sound = "silently (a later step under your severity threshold)"
		}
		return "Sent " + at + ", " + sound + ", " + sentAs(f.As) + together(f) + "."
	case store.FateHeld:
		s := "Held for the morning summary (quiet hours) since " + at
		if !f.RetryAt.IsZero() {
			s += "; the summary goes at " + whyTime(f.RetryAt, loc)
		}
		return s + "."
	case store.FateWithheld:
		return "Withheld: " + withheldBy(f.Why) + "."
	case store.FateWaiting:
		s := "Waiting since " + at + ": " + message.Escape(f.Why)
		if !f.RetryAt.IsZero() {
			s += "; next try " + whyTime(f.RetryAt, loc)
		}
		return s + "."
	case store.FateFailed:
		return "Not delivered (" + at + "): " + message.Escape(f.Why) + "."
	}
	return message.Escape(f.Outcome)
}

// together names the earlier steps a notice told too.
func together(f store.Fate) string {
	if f.Together == "" {
		return ""
	}
	return "; told together with " + message.Escape(f.Together)
}

func sentAs(as string) string {
	switch as {
	case store.AsCard:
		return "as the incident's card"
	case store.AsReply:
		return "as a reply under the incident's card (the card edited)"
	}
	return "as a message"
}

// withheldBy names the setting that kept a notice back (Decide's Why).
func withheldBy(why string) string {
	switch Why(why) {
	case WhyKinds:
		return "this chat does not take this kind of notice (/subscribe)"
	case WhyFilter:
		return "not about the components this chat follows (/subscribe component)"
	case WhySeverity:
		return "under this chat's severity threshold (/settings)"
	case WhyNeverTold:
		return "the end of a story this chat was told nothing of"
	}
	return message.Escape(why)
}

func whyTime(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return message.TimeHTML(t, loc, "Jan 2 15:04 MST", message.FormatDateTime)
}

// Fates is what /why reads (store.Store).
type Fates interface {
	LastFates(ctx context.Context, sub string, n int) ([]store.Fate, error)
	Summaries(ctx context.Context, events []string) (map[string]string, error)
}

// OnePage is the label of a chat of one page: its notices name no page.
func OnePage(string) string { return "" }

// WhyAnswer reads a chat's last WhyCount fates and explains them in loc;
// label names an event's page for the chat ("" for a chat of one page), as
// its notices do.
func WhyAnswer(ctx context.Context, st Fates, sub string, loc *time.Location, label func(event string) string) (string, error) {
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
	sums, err := st.Summaries(ctx, missing)
	if err != nil {
		return "", err
	}
	for i := range fates {
		if fates[i].Summary == "" {
			fates[i].Summary = sums[fates[i].Event]
		}
		if page := label(fates[i].Event); page != "" && fates[i].Summary != "" {
			fates[i].Summary = page + " · " + fates[i].Summary
		}
	}
	return Explain(fates, loc), nil
}
