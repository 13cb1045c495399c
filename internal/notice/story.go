package notice

import (
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// Why names what decided a chat's verdict on an event, for operators and
// for chats that ask.
type Why string

const (
	WhyJoined     Why = "joined"           // the first step it hears of the story
	WhyStory      Why = "in-story"         // a later step of a story it was told of
	WhyKinds      Why = "notice-types"     // not a kind the chat chose
	WhyFilter     Why = "component-filter" // not about the chat's components
	WhySeverity   Why = "severity"         // under the chat's threshold
	WhyNeverTold  Why = "never-told"       // the end of a story the chat heard nothing of
	WhyReminder   Why = "reminder"         // the chat's maintenance reminder
	WhyNoReminder Why = "no-reminder"      // not the chat's reminder lead, or reminders off
	WhyPage       Why = "page"             // a page the chat does not follow
)

// Verdict is what a chat gets of one event.
type Verdict struct {
	Send bool
	// Silent: sent without sound by the chat's severity choice. Quiet
	// hours are decided when the notice goes out (Quiet).
	Silent bool
	// NoNews: silent because the step changes no status or impact (News).
	NoNews bool
	Why    Why
}

// Decide applies a chat's choices to one event, given whether the chat
// was told of the event's story and it has not ended for the chat (told).
//
// The rule, as the README states it:
//   - Notice types always apply: a chat that turned a kind off hears
//     nothing more of it.
//   - A chat joins a story (an incident, a maintenance, or a component's
//     trip away from operational) with the first step that passes its
//     component filter and severity threshold.
//   - Once joined, it hears every later step and the end, whatever the
//     filter or threshold say of that step alone; a later step under the
//     threshold comes silently, the end with sound.
//   - A chat told nothing of a story is not told its end, nor the
//     correction of an update it never got.
func Decide(sub store.Subscriber, e event.Event, told bool) Verdict {
	s := sub.Settings
	if !pages.Follows(sub.Pages, e.Page) {
		// Read by its page's fan-out only; a retry or a key-order read may
		// meet a chat that stopped following the page meanwhile.
		return Verdict{Why: WhyPage}
	}
	// The filter of the event's page alone: a chat filtering another
	// page's components hears every component of this one.
	filter := pages.FilterOf(sub.Components, e.Page)
	if e.Reminder != nil {
		if e.Accepts(sub.Kinds, filter) && Wants(s, e) {
			return Verdict{Send: true, Why: WhyReminder}
		}
		return Verdict{Why: WhyNoReminder}
	}
	if !e.AcceptsKind(sub.Kinds) {
		return Verdict{Why: WhyKinds}
	}
	if told && !e.OpensEpisode() {
		// Only news rings (news.go), unless the chat rings on every update.
		quiet := !News(e) && !s.RingEvery
		return Verdict{Send: true, Silent: (below(s, e) && !e.EndsEpisode()) || quiet, NoNews: quiet, Why: WhyStory}
	}
	if (e.EndsEpisode() && e.Predecessor != "") || e.Edit {
		// The story had earlier steps, none of which reached the chat (a
		// correction is of a step the chat was not told).
		return Verdict{Why: WhyNeverTold}
	}
	if !e.Concerns(filter) {
		return Verdict{Why: WhyFilter}
	}
	if !Wants(s, e) {
		return Verdict{Why: WhySeverity}
	}
	return Verdict{Send: true, Silent: below(s, e), Why: WhyJoined}
}

// Quiet is a chat's quiet hours as a send reads them at the moment the
// notice goes out: a retry hours later is judged at that later time.
type Quiet struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Zone  string `json:"zone,omitempty"`
	// Hold: notices in the window are held for one morning summary at
	// its end instead of sent silently.
	Hold bool `json:"hold,omitempty"`
}

// QuietFor is the quiet window that silences e for the chat; nil when the
// chat has none, or when e rings through it (an end, unless the chat
// silences resolutions too).
func QuietFor(s store.Settings, e event.Event) *Quiet {
	if s.QuietStart == "" || s.QuietEnd == "" {
		return nil
	}
	// A held window holds resolutions too: the summary tells them.
	if _, res := Severity(e); (res || e.EndsEpisode()) && !s.QuietResolutions && !s.QuietHold {
		return nil
	}
	return &Quiet{Start: s.QuietStart, End: s.QuietEnd, Zone: s.TimeZone, Hold: s.QuietHold}
}

// Covers reports whether now falls in the window, read in its zone; a
// window may cross midnight (22:00-07:00). The start is inside the window,
// the end is not. A nil window covers nothing.
func (q *Quiet) Covers(now time.Time) bool {
	w, ok := q.clock()
	return ok && w.covers(now)
}

// Holds reports whether a notice sent at now is held for the morning
// summary (the window covers now and holds).
func (q *Quiet) Holds(now time.Time) bool { return q != nil && q.Hold && q.Covers(now) }

// EndAfter is the end of the window that covers now: the first minute
// after now at which the clock on the wall, in the window's zone, reads
// outside the window. Zero when q covers nothing.
//
// Read off the clock rather than built as "today at the end clock": on the
// nights daylight saving changes, the end clock may never show (New York's
// 02:30 on the spring night: the window ends at 03:00 EDT, when the clock
// passes it) or show twice (01:30 on the autumn night: the one after now).
func (q *Quiet) EndAfter(now time.Time) time.Time {
	w, ok := q.clock()
	if !ok || !w.covers(now) {
		return time.Time{}
	}
	// A window is shorter than a day, and so, but for an hour of daylight
	// saving, is its remainder: the scan ends within 25 hours of minutes.
	at := now.Truncate(time.Minute)
	for range 26 * 60 {
		at = at.Add(time.Minute)
		if !w.covers(at) {
			return at
		}
	}
	return time.Time{}
}

// window is a Quiet read: its clocks in minutes of the day, its zone.
type window struct {
	start, end int
	loc        *time.Location
}

func (q *Quiet) clock() (window, bool) {
	if q == nil {
		return window{}, false
	}
	start, err1 := store.ParseClock(q.Start)
	end, err2 := store.ParseClock(q.End)
	if err1 != nil || err2 != nil || start == end {
		return window{}, false
	}
	loc, err := store.LoadZone(q.Zone)
	if err != nil {
		loc = time.UTC
	}
	return window{start: start, end: end, loc: loc}, true
}

func (w window) covers(now time.Time) bool {
	t := now.In(w.loc)
	m := t.Hour()*60 + t.Minute()
	if w.start < w.end {
		return m >= w.start && m < w.end
	}
	return m >= w.start || m < w.end
}
