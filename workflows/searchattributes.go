package workflows

import (
	"fmt"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// Delivery states, as the DeliveryState search attribute shows them.
const (
	StateDelivering = "delivering"
	StateBackingOff = "backing_off"
	StateDone       = "done"
	StateFailed     = "failed"
	// StateSuperseded: a newer step of the story took this one over
	// before it sent anything.
	StateSuperseded = "superseded"
)

// Search attributes operators filter deliveries by.
var (
	AttrEventKind     = temporal.NewSearchAttributeKeyKeyword("EventKind")
	AttrEventKey      = temporal.NewSearchAttributeKeyKeyword("EventKey")
	AttrIncidentID    = temporal.NewSearchAttributeKeyKeyword("IncidentID")
	AttrComponentIDs  = temporal.NewSearchAttributeKeyKeywordList("ComponentIDs")
	AttrDeliveryState = temporal.NewSearchAttributeKeyKeyword("DeliveryState")
	AttrPendingCount  = temporal.NewSearchAttributeKeyInt64("PendingSubscribers")
	AttrFailedCount   = temporal.NewSearchAttributeKeyInt64("FailedSubscribers")
)

// SearchAttributes lists every custom attribute with its type, for
// registration at worker start-up and for the dev server in tests.
func SearchAttributes() map[string]enumspb.IndexedValueType {
	return map[string]enumspb.IndexedValueType{
		AttrEventKind.GetName():     enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrEventKey.GetName():      enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrIncidentID.GetName():    enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrComponentIDs.GetName():  enumspb.INDEXED_VALUE_TYPE_KEYWORD_LIST,
		AttrDeliveryState.GetName(): enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		AttrPendingCount.GetName():  enumspb.INDEXED_VALUE_TYPE_INT,
		AttrFailedCount.GetName():   enumspb.INDEXED_VALUE_TYPE_INT,
	}
}

func deliverySearchAttributes(e event.Event, state string) temporal.SearchAttributes {
	comps := e.ComponentIDs
	if e.Kind == event.KindComponent {
		comps = []string{e.ComponentID}
	}
	upd := []temporal.SearchAttributeUpdate{
		AttrEventKind.ValueSet(string(e.Kind)),
		AttrEventKey.ValueSet(e.Key),
		AttrDeliveryState.ValueSet(state),
	}
	if e.IncidentID != "" {
		upd = append(upd, AttrIncidentID.ValueSet(e.IncidentID))
	}
	if len(comps) > 0 {
		upd = append(upd, AttrComponentIDs.ValueSet(comps))
	}
	return temporal.NewSearchAttributes(upd...)
}

// deliveryDetails is the Markdown the Web UI shows under the summary.
func deliveryDetails(e event.Event) string {
	var b strings.Builder
	switch e.Kind {
	case event.KindComponent:
		b.WriteString(fmt.Sprintf("**Component:** %s (`%s`)\n\n**Status:** %s → %s\n\n**Changed at:** %s\n",
			e.ComponentName, e.ComponentID, statuspage.Label(e.OldStatus), statuspage.Label(e.NewStatus), e.At.UTC().Format("2006-01-02 15:04:05 MST")))
	default:
		b.WriteString(fmt.Sprintf("**%s:** %s (`%s`)\n\n**Update:** %s, impact %s\n\n**Posted at:** %s\n\n**Link:** %s\n",
			kindTitle(e.Kind), e.IncidentName, e.IncidentID, statuspage.Label(e.UpdateStatus), statuspage.Label(e.Impact),
			e.At.UTC().Format("2006-01-02 15:04:05 MST"), e.URL))
	}
	b.WriteString(fmt.Sprintf("\n**Event key:** `%s`\n", e.Key))
	if e.Predecessor != "" {
		b.WriteString(fmt.Sprintf("\n**Waits for:** `%s`\n", DeliveryWorkflowID(e.Predecessor)))
	}
	return b.String()
}

func kindTitle(k event.Kind) string {
	if k == event.KindMaintenance {
		return "Maintenance"
	}
	return "Incident"
}
