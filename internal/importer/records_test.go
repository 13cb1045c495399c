package importer

import (
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestRecord(t *testing.T) {
	oid, _ := bson.ObjectIDFromHex("65f0a1b2c3d4e5f601234567")
	for _, tc := range []struct {
		name  string
		doc   bson.M
		key   string
		types []string
		comps []string
		err   string // part of Err; "" for none
	}{
		{"string key", bson.M{"_id": "1001", "chat_id": int64(1001), "types": bson.A{"incident"}}, "1001", []string{"incident"}, nil, ""},
		{"topic key", bson.M{"_id": "-1002003004005:7", "chat_id": int64(-1002003004005), "thread_id": int32(7)}, "-1002003004005:7", nil, nil, ""},
		{"numeric key completed by thread_id", bson.M{"_id": int64(-1002003004005), "thread_id": int32(9)}, "-1002003004005:9", nil, nil, ""},
		{"int32 key", bson.M{"_id": int32(1001)}, "1001", nil, nil, ""},
		{"double key is the whole number, not 1.001e+12", bson.M{"_id": -1001234567891.0}, "-1001234567891", nil, nil, ""},
		{"chat_id stored as a double", bson.M{"_id": "-1001234567891", "chat_id": -1001234567891.0}, "-1001234567891", nil, nil, ""},
		{"chat_id stored as a string", bson.M{"_id": "1001", "chat_id": "1001"}, "1001", nil, nil, ""},
		{"thread_id 0 on a chat", bson.M{"_id": "1001", "thread_id": int32(0)}, "1001", nil, nil, ""},
		{"double key with a fraction", bson.M{"_id": 1001.5}, "", nil, nil, "_id 1001.5 is a number that is no chat ID"},
		{"ObjectId key", bson.M{"_id": oid, "chat_id": int64(1001)}, "", nil, nil, `_id ObjectId("65f0a1b2c3d4e5f601234567") is not chatID or chatID:threadID`},
		{"not a key", bson.M{"_id": "not-a-chat"}, "", nil, nil, `_id "not-a-chat" is not chatID or chatID:threadID`},
		{"chat_id disagrees", bson.M{"_id": "1001", "chat_id": int64(1002)}, "", nil, nil, `_id "1001" names chat 1001, but its chat_id is 1002`},
		{"thread_id disagrees", bson.M{"_id": "-100200:7", "thread_id": int32(8)}, "", nil, nil, `_id "-100200:7" names thread 7, but its thread_id is 8`},
		{"thread_id unreadable", bson.M{"_id": "1001", "thread_id": "seven"}, "", nil, nil, `thread_id "seven" is not a thread ID`},
		{"types as one string", bson.M{"_id": "1001", "types": "incident"}, "1001", []string{"incident"}, nil, ""},
		{"types as a comma list", bson.M{"_id": "1001", "types": "incident, component"}, "1001", []string{"incident", "component"}, nil, ""},
		{"types a number", bson.M{"_id": "1001", "types": int32(3)}, "", nil, nil, `_id "1001": types is 3, not a list: not imported`},
		{"types holding a document", bson.M{"_id": "1001", "types": bson.A{bson.M{"x": 1}}}, "", nil, nil, "types holds a document, not a string"},
		{"components as one string", bson.M{"_id": "1001", "components": "Login"}, "1001", nil, []string{"Login"}, ""},
		{"a numeric component entry stays, as text", bson.M{"_id": "1001", "components": bson.A{"Login", int32(42)}}, "1001", nil, []string{"Login", "42"}, ""},
		{"components a document", bson.M{"_id": "1001", "components": bson.M{"a": 1}}, "", nil, nil, "components is a document, not a list: not imported (an unreadable filter would become every component)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Record(tc.doc)
			if tc.err != "" {
				if !strings.Contains(p.Err, tc.err) {
					t.Fatalf("Record = %+v, want an error with %q", p, tc.err)
				}
				return
			}
			if p.Err != "" || p.Key != tc.key || !slices.Equal(p.Types, tc.types) && len(tc.types)+len(p.Types) > 0 ||
				!slices.Equal(p.Components, tc.comps) && len(tc.comps)+len(p.Components) > 0 {
				t.Fatalf("Record = %+v, want key %q types %q components %q", p, tc.key, tc.types, tc.comps)
			}
		})
	}
}

// A string _id and a numeric one of the same chat are told apart in
// reports.
func TestRecordShowsTheIDAsStored(t *testing.T) {
	for doc, want := range map[string]bson.M{`"1001"`: {"_id": "1001"}, "1001": {"_id": int64(1001)}, "-1001234567891": {"_id": -1001234567891.0}} {
		if got := Record(want).ID; got != doc {
			t.Errorf("ID = %s, want %s", got, doc)
		}
	}
}
