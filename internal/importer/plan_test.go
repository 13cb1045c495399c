package importer

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
)

func emptyState() store.ImportState {
	return store.ImportState{Subscribed: map[string]bool{}, Stopped: map[string]time.Time{}, Moved: map[string]string{}, Imported: map[string]time.Time{}}
}

func fateOfKey(p Plan, key string) (Entry, bool) {
	for _, e := range p.Entries {
		if e.Key == key {
			return e, true
		}
	}
	return Entry{}, false
}

// What the bot learned since wins over the previous bot's record.
func TestPlanImportLeavesWhatChatsDidHere(t *testing.T) {
	day := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	state := emptyState()
	state.Subscribed["1001"] = true
	state.Stopped["1002"] = day                            // /stop, or the bot removed from the chat
	state.Moved["-1003"] = "-1001000000003"                // became a supergroup
	state.Imported["1004"] = day.Add(-24 * 90 * time.Hour) // imported, then removed after a 403 (nothing kept)
	state.Imported["1001"] = day
	var subs []Previous
	for _, k := range []string{"1001", "1002", "-1003", "1004", "1005"} {
		subs = append(subs, Record(bson.M{"_id": k, "types": bson.A{"incident"}}))
	}
	p := PlanImport(subs, oldComponents, today, state, day)
	for key, want := range map[string]struct {
		fate Fate
		why  string
	}{
		"1001":  {Present, ""},
		"1002":  {Left, "stopped here on 2026-11-30"},
		"-1003": {Left, "moved here to -1001000000003"},
		"1004":  {Left, "imported on 2026-09-01 and unsubscribed here since"},
		"1005":  {Create, ""},
	} {
		e, ok := fateOfKey(p, key)
		if !ok || e.Fate != want.fate || !strings.Contains(e.Why, want.why) {
			t.Errorf("%s: %+v, want fate %d %q", key, e, want.fate, want.why)
		}
	}
	r := p.Report
	if r.Read != 5 || r.Created != 1 || r.Present != 1 || len(r.Left) != 3 || len(r.Invalid) != 0 {
		t.Fatalf("report %+v", r)
	}
}

// One chat stored twice (a string and a numeric _id) is one subscription,
// reported; with different settings it gets what either record asked for.
func TestPlanImportMergesAChatStoredTwice(t *testing.T) {
	subs := []Previous{
		Record(bson.M{"_id": "1001", "types": bson.A{"incident"}, "components": bson.A{"rsp4kx2ylg0q"}}),
		Record(bson.M{"_id": int64(1001), "types": bson.A{"component"}, "components": bson.A{"img8w1hq2m3d"}}),
		Record(bson.M{"_id": "1002", "types": bson.A{"incident"}}),
		Record(bson.M{"_id": int32(1002), "types": "incident"}),
		Record(bson.M{"_id": "1003", "components": bson.A{"rsp4kx2ylg0q"}}),
		Record(bson.M{"_id": 1003.0, "components": bson.A{}}),
	}
	p := PlanImport(subs, oldComponents, today, emptyState(), time.Now())
	if len(p.Entries) != 3 || p.Report.Created != 3 || p.Report.Read != 6 || len(p.Report.Merged) != 3 {
		t.Fatalf("entries %+v report %+v", p.Entries, p.Report)
	}
	e, _ := fateOfKey(p, "1001")
	if !slices.Equal(e.Sub.Kinds, event.DefaultKinds) || !slices.Equal(e.Sub.Components, []string{"01RESPONSES000000000000000", "01IMAGES000000000000000000"}) {
		t.Errorf("1001 merged into %v %v", e.Sub.Kinds, e.Sub.Components)
	}
	if why := p.Report.Merged[0].Why; !strings.Contains(why, `_id "1001": types [incident], filter [01RESPONSES000000000000000]`) ||
		!strings.Contains(why, "_id 1001: types [component], filter [01IMAGES000000000000000000]") {
		t.Errorf("merged: %s", why)
	}
	e, _ = fateOfKey(p, "1002")
	if !slices.Equal(e.Sub.Kinds, []event.Kind{event.KindIncident}) || !strings.Contains(p.Report.Merged[1].Why, `stored 2 times (_id "1002", _id 1002), the same settings: imported once`) {
		t.Errorf("1002: %v, %s", e.Sub.Kinds, p.Report.Merged[1].Why)
	}
	// One record without a filter (every component): the merge has none.
	if e, _ = fateOfKey(p, "1003"); len(e.Sub.Components) != 0 {
		t.Errorf("1003 merged filter %v, want none", e.Sub.Components)
	}
}

// Invalid records are reported by their _id and counted once each.
func TestPlanImportReportsInvalidRecords(t *testing.T) {
	oid := bson.NewObjectID()
	subs := []Previous{
		Record(bson.M{"_id": oid}),
		Record(bson.M{"_id": "1001", "chat_id": int64(1002)}),
		Record(bson.M{"_id": "1003"}),
	}
	p := PlanImport(subs, oldComponents, today, emptyState(), time.Now())
	if p.Report.Created != 1 || len(p.Report.Invalid) != 2 || !strings.Contains(p.Report.Invalid[0].Why, `ObjectId("`+oid.Hex()+`")`) {
		t.Fatalf("%+v", p.Report)
	}
}
