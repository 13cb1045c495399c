package statuspage

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2026-07-18T08:05:37.238Z":         time.Date(2026, 7, 18, 8, 5, 37, 238e6, time.UTC),
		"2026-08-21T20:36:33.63Z":          time.Date(2026, 8, 21, 20, 36, 33, 630e6, time.UTC),
		"2026-08-21T17:57:00Z":             time.Date(2026, 8, 21, 17, 57, 0, 0, time.UTC),
		"2026-03-08T01:00:00.123456-08:00": time.Date(2026, 3, 8, 9, 0, 0, 123456e3, time.UTC),
		"2026-01-25":                       time.Date(2026, 1, 25, 0, 0, 0, 0, time.UTC),
		"":                                 {},
		"yesterday":                        {},
	} {
		if got := ParseTime(in); !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestMendURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://status.openai.com//incidents/01M1": "https://status.openai.com/incidents/01M1",
		"https://status.openai.com/incidents/01M1":  "https://status.openai.com/incidents/01M1",
		"http://127.0.0.1:8082///incidents/x":       "http://127.0.0.1:8082/incidents/x",
		"not a url":                                 "not a url",
	} {
		if got := MendURL(in); got != want {
			t.Errorf("MendURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStatusWords(t *testing.T) {
	for in, want := range map[string]string{"full_outage": "major_outage", "partial_outage": "partial_outage",
		"under_maintenance": "under_maintenance", "": "operational", "brand_new": "brand_new"} {
		if got := NormalizeComponentStatus(in); got != want {
			t.Errorf("component %q = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"maintenance_scheduled": "scheduled", "maintenance_in_progress": "in_progress",
		"maintenance_complete": "completed", "investigating": "investigating", "fixing": "fixing"} {
		if got := NormalizeIncidentStatus(in); got != want {
			t.Errorf("incident %q = %q, want %q", in, got, want)
		}
	}
	if Label("full_outage") != "Major Outage" || Label("brand_new") != "Brand new" {
		t.Error("labels")
	}
}

func TestPlainText(t *testing.T) {
	tests := map[string]string{
		`{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"We have "},{"type":"text","text":"identified"}]},{"type":"paragraph","content":[{"type":"text","text":"Next update soon."}]}]}`:                                            "We have identified\n\nNext update soon.",
		`{"feature_set":"mrkdwn","markdown":"x","schema_version":1,"text_node":{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"Wrapped"}]}]}}`:                                                                                      "Wrapped",
		`{"type":"doc","content":[{"type":"bulletList","content":[{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"one"}]}]},{"type":"listItem","content":[{"type":"paragraph","content":[{"type":"text","text":"two"}]}]}]}]}`: "• one\n\n• two",
		`{"type":"doc","content":[{"type":"paragraph","content":[{"type":"text","text":"a"},{"type":"hardBreak"},{"type":"text","text":"b"}]}]}`:                                                                                                                   "a\nb",
		`{"feature_set":"mrkdwn","markdown":"only *markdown*"}`: "only *markdown*",
		`{"type":"doc"}`: "",
	}
	for in, want := range tests {
		var n ioNode
		if err := json.Unmarshal([]byte(in), &n); err != nil {
			t.Fatal(err)
		}
		if got := n.PlainText(); got != want {
			t.Errorf("PlainText(%s) = %q, want %q", in, got, want)
		}
	}
	var nilNode *ioNode
	if nilNode.PlainText() != "" {
		t.Error("nil message")
	}
}

func TestUpdateTextPrefersMessageString(t *testing.T) {
	u := ioUpdate{MessageString: "plain", Message: &ioNode{Type: "doc", Content: []ioNode{{Type: "paragraph", Content: []ioNode{{Type: "text", Text: "tree"}}}}}}
	if updateText(u) != "plain" {
		t.Error("message_string not preferred")
	}
	u.MessageString = "  "
	if updateText(u) != "tree" {
		t.Error("tree not used when message_string is empty")
	}
}

// Whatever the page sends, normalization never panics.
func FuzzNormalize(f *testing.F) {
	f.Add(`{"summary":{"components":[{"id":"a","name":"A"}],"affected_components":[{"component_id":"a","status":"full_outage"}],"structure":{"items":[{"group":{"id":"g","name":"G","components":[{"component_id":"a","name":"A"}]}}]}}}`,
		`{"incidents":[{"id":"i","type":"incident","status":"identified","updates":[{"id":"u","to_status":"identified","published_at":"2026-07-18T08:05:37.2Z","message":{"type":"doc","content":[{"type":"paragraph"}]}}],"component_impacts":[{"component_id":"a","status":"partial_outage","start_at":"x","end_at":null}]}]}`)
	f.Fuzz(func(t *testing.T, summary, incidents string) {
		var s ioSummaryJSON
		var l ioIncidentsJSON
		if json.Unmarshal([]byte(summary), &s) != nil || s.Summary == nil {
			return
		}
		_ = json.Unmarshal([]byte(incidents), &l)
		names := componentNames(s.Summary.Components)
		for _, in := range l.Incidents {
			_ = normalizeIncident(in, "https://x", names)
		}
		comps := normalizeComponents(s.Summary.Components, s.Summary.AffectedComponents, s.Summary.Structure.Items, l.Incidents, time.Now())
		_, _ = overall(comps)
	})
}
