package fakes_test

import (
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/fakes"
)

// The fake refuses what the Bot API refuses, with its words, and accepts
// what it accepts.
func TestParseHTML(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in, text, err string
		times         int
	}{
		{in: `<b>Incident</b> &lt;API&gt; &amp; more`, text: "Incident <API> & more"},
		{in: `at <tg-time unix="1796047320" format="dt">Nov 30 14:02</tg-time>`, text: "at Nov 30 14:02", times: 1},
		{in: `<tg-time unix="1796047320" format="wDT">x</tg-time>`, text: "x", times: 1},
		{in: `<tg-time unix="1796047320" format="r">x</tg-time>`, text: "x", times: 1},
		{in: `<tg-time unix="1796047320">x</tg-time>`, text: "x", times: 1},
		{in: `<tg-time unix="soon" format="t">x</tg-time>`, text: "x"}, // no entity, no error
		{in: `<tg-time unix="1796047320" format="dt h">x</tg-time>`, err: "Bad Request: can't parse entities: Invalid date format used"},
		{in: `<tg-time unix="1796047320" format="rt">x</tg-time>`, err: "Bad Request: can't parse entities: Invalid date format used"},
		{in: `<tg-time unix="1900000000" format="t">x</tg-time>`, err: "Bad Request: ENTITY_DATE_INVALID"},
		{in: `<x>y</x>`, err: `Bad Request: can't parse entities: Unsupported start tag "x" at byte offset 0`},
		{in: `a <b>b`, err: `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "b"`},
		{in: `<b>b</i>`, err: `Bad Request: can't parse entities: Unmatched end tag at byte offset 4, expected "</b>", found "</i>"`},
		{in: `b</b>`, err: `Bad Request: can't parse entities: Unexpected end tag at byte offset 1`},
		{in: `<b`, err: `Bad Request: can't parse entities: Unclosed start tag at byte offset 0`},
		{in: `<span>s</span>`, err: `Bad Request: can't parse entities: Tag "span" must have class "tg-spoiler" at byte offset 0`},
		{in: `<b> </b>`, err: "Bad Request: message text is empty"},
		{in: `5 < 6 & 7`, err: `Bad Request: can't parse entities: Unsupported start tag "" at byte offset 2`},
	} {
		text, times, err := fakes.ParseHTML(tc.in, now)
		switch {
		case tc.err != "" && (err == nil || err.Description != tc.err):
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%q: %s", tc.in, err.Description)
		case tc.err == "" && (text != tc.text || len(times) != tc.times):
			t.Errorf("%q: %q with %d times, want %q with %d", tc.in, text, len(times), tc.text, tc.times)
		}
	}
}
