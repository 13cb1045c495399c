package notice

import (
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/message"
)

// News reports whether a step of a story changes what a reader acts on,
// and so rings (the README states the rule): a new story, a status
// changed (investigating -> identified -> monitoring -> resolved), an
// impact raised, a component entering or leaving an outage, the end. A
// step that only adds words comes silently, unless the chat asked to
// ring on every update (store.Settings.RingEvery). A step whose previous
// state is unknown (an event from before it was kept) rings, as before.
//
// A step that tells earlier ones too (event.FoldStories) is judged by
// its net change: its PrevStatus and PrevImpact are its run's start's.
func News(e event.Event) bool {
	switch {
	case e.Reminder != nil:
		return true
	case e.Kind == event.KindComponent:
		return e.OpensEpisode() || e.EndsEpisode() || statusLevel(e.OldStatus) != statusLevel(e.NewStatus)
	case e.Edit:
		return false // a correction of words told before
	case e.Predecessor == "":
		return true // the story's first step
	case message.Final(e.UpdateStatus):
		return !message.Final(e.PrevStatus) // the end; a postmortem after it adds words
	case e.PrevStatus == "":
		return true // unknown: rings as before
	case e.UpdateStatus != e.PrevStatus:
		return true
	}
	return impactRank(e.Impact) > impactRank(e.PrevImpact) && e.PrevImpact != ""
}

// impactRank orders Statuspage's impacts; unknown ones rank lowest.
func impactRank(impact string) int {
	switch impact {
	case "minor":
		return 1
	case "major":
		return 2
	case "critical":
		return 3
	}
	return 0
}
