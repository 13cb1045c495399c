package worker_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// The real captures of githubstatus.com (../shared/testdata/real, see its
// SOURCES.md), replayed snapshot by snapshot through the whole stack, one
// poll or more per snapshot, times moved to the present. They are read
// from there, never copied into the repository.

// realDir is where the shared captures are; "" when absent (a user's clone).
func realDir(t *testing.T, sub string) string {
	t.Helper()
	dir := filepath.Join(testenv.RepoRoot(), "..", "shared", "testdata", "real", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the shared real captures are not here (%s): this test replays them from ../shared/testdata/real, outside the repository", dir)
	}
	return dir
}

// replayPage serves one snapshot of summary.json at a time, its times
// moved by shift. summary.json drops an incident once it is resolved (no
// snapshot shows one resolved), so incidents.json serves every incident
// seen so far: those the snapshot still lists as they are, the others as
// resolved at the snapshot's page time, with a last update "resolved"
// (id <incident>-resolved) saying so; scheduled-maintenances.json does the
// same with "completed".
type replayPage struct {
	mu      sync.Mutex
	shift   time.Duration
	summary map[string]any
	seen    map[string]map[string]any // incident or maintenance id -> as last listed
	isMaint map[string]bool
	reads   int
}

// newReplayPage answers every request to the stack's page (the fake's
// fault hook: the stack's configuration is left as it is).
func newReplayPage(s *testenv.Stack, shift time.Duration) *replayPage {
	p := &replayPage{shift: shift, seen: map[string]map[string]any{}, isMaint: map[string]bool{}}
	s.Page.Fault("/api/v2/", func(w http.ResponseWriter, r *http.Request) bool { p.serve(w, r); return true })
	return p
}

// shiftTimes moves every RFC 3339 time in v by d.
func shiftTimes(v any, d time.Duration) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = shiftTimes(e, d)
		}
	case []any:
		for i, e := range x {
			x[i] = shiftTimes(e, d)
		}
	case string:
		if len(x) >= 20 && x[4] == '-' && x[10] == 'T' {
			if at, err := time.Parse(time.RFC3339Nano, x); err == nil {
				return at.Add(d).UTC().Format("2006-01-02T15:04:05.000Z")
			}
		}
	}
	return v
}

// show makes the snapshot at path the page.
func (p *replayPage) show(t *testing.T, path string) {
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var s map[string]any
	require.NoError(t, json.Unmarshal(raw, &s))
	s = shiftTimes(s, p.shift).(map[string]any)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.summary = s
	for _, list := range []string{"incidents", "scheduled_maintenances"} {
		items, _ := s[list].([]any)
		for _, it := range items {
			m := it.(map[string]any)
			id := m["id"].(string)
			p.seen[id] = m
			p.isMaint[id] = list == "scheduled_maintenances"
		}
	}
	p.reads = 0
}

func (p *replayPage) listed(list, id string) bool {
	items, _ := p.summary[list].([]any)
	for _, it := range items {
		if it.(map[string]any)["id"] == id {
			return true
		}
	}
	return false
}

// all is every incident (maint false) or maintenance seen, newest first,
// those gone from the summary ended at the snapshot's page time.
func (p *replayPage) all(maint bool) []any {
	list, end, body := "incidents", "resolved", "This incident has been resolved."
	if maint {
		list, end, body = "scheduled_maintenances", "completed", "The scheduled maintenance has been completed."
	}
	at := p.summary["page"].(map[string]any)["updated_at"]
	var ids []string
	for id, m := range p.isMaint {
		if m == maint {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	var out []any
	for _, id := range ids {
		inc := p.seen[id]
		if !p.listed(list, id) && inc["status"] != end {
			ended := map[string]any{}
			for k, v := range inc {
				ended[k] = v
			}
			ended["status"], ended["resolved_at"], ended["updated_at"] = end, at, at
			ups, _ := inc["incident_updates"].([]any)
			ended["incident_updates"] = append([]any{map[string]any{"id": id + "-" + end, "incident_id": id, "status": end, "body": body,
				"created_at": at, "updated_at": at, "display_at": at, "affected_components": nil}}, ups...)
			p.seen[id] = ended
			inc = ended
		}
		out = append(out, inc)
	}
	return out
}

func (p *replayPage) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var body any
	switch r.URL.Path {
	case "/api/v2/summary.json":
		p.reads++
		body = p.summary
	case "/api/v2/incidents.json":
		body = map[string]any{"page": p.summary["page"], "incidents": p.all(false)}
	case "/api/v2/scheduled-maintenances.json":
		body = map[string]any{"page": p.summary["page"], "scheduled_maintenances": p.all(true)}
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func (p *replayPage) summaryReads() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reads
}

// replayTally is what one chat got over a sequence.
type replayTally struct {
	messages, ringing, mostInOnePoll int
	// mostPerStory is the most messages of one story from one poll.
	mostPerStory int
	names        map[int]string // message ID -> its story
	last         []fakes.Message
}

// TestReplayGitHubOutages replays every sequence of github-outages to a
// chat in cards mode and one in messages mode, and reports per chat the
// messages, the ringing ones, the most in one poll; every chat ends with
// its stories ended (the card, or the last message, resolved/completed).
// The figures for the old build (seqA, cards mode): 37 messages, 37
// ringing, 7 from one poll. The bound asserted here is the rule's: one
// message per story and poll, in both modes; docs/benchmarks.md has the
// figures of both builds.
func TestReplayGitHubOutages(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	dir := realDir(t, "github-outages")
	seqs, err := filepath.Glob(filepath.Join(dir, "seq*"))
	require.NoError(t, err)
	require.NotEmpty(t, seqs)
	for _, seq := range seqs {
		t.Run(filepath.Base(seq), func(t *testing.T) { replaySequence(t, seq) })
	}
}

func replaySequence(t *testing.T, seq string) {
	snaps, err := filepath.Glob(filepath.Join(seq, "*.json"))
	require.NoError(t, err)
	sort.Strings(snaps)
	require.Greater(t, len(snaps), 1)
	// Times moved so that the last snapshot is now.
	raw, err := os.ReadFile(snaps[len(snaps)-1])
	require.NoError(t, err)
	var last struct {
		Page struct {
			UpdatedAt time.Time `json:"updated_at"`
		} `json:"page"`
	}
	require.NoError(t, json.Unmarshal(raw, &last))
	s := testenv.NewStack(t, time.Second)
	page := newReplayPage(s, time.Since(last.Page.UpdatedAt))
	page.show(t, snaps[0])
	cards, messages := chat{5101, 0}, chat{5102, 0}
	subscribeModes(t, s, cards, messages)
	s.StartWorker(t)
	s.WaitForBaseline(t)

	tallies := map[chat]*replayTally{cards: {names: map[int]string{}}, messages: {names: map[int]string{}}}
	seen := map[chat]int{}
	for _, snap := range snaps[1:] {
		page.show(t, snap)
		testenv.WaitFor(t, time.Minute, "two polls of "+filepath.Base(snap), func() bool { return page.summaryReads() >= 2 })
		waitDeliveriesClosed(t, s)
		time.Sleep(2 * time.Second)
		waitDeliveriesClosed(t, s)
		for c, tl := range tallies {
			msgs := s.Telegram.MessagesTo(c.id, 0)
			fresh := msgs[seen[c]:]
			seen[c] = len(msgs)
			tl.messages += len(fresh)
			tl.mostInOnePoll = max(tl.mostInOnePoll, len(fresh))
			perStory := map[string]int{}
			for _, m := range fresh {
				if !m.Silent {
					tl.ringing++
				}
				name := storyOf(m, tl.names)
				tl.names[m.ID] = name
				perStory[name]++
				tl.mostPerStory = max(tl.mostPerStory, perStory[name])
			}
			tl.last = msgs
		}
	}
	for c, tl := range tallies {
		mode := "cards"
		if c == messages {
			mode = "messages"
		}
		t.Logf("%s, %s mode: %d messages, %d ringing, at most %d from one poll (%d of one story)", filepath.Base(seq), mode, tl.messages, tl.ringing, tl.mostInOnePoll, tl.mostPerStory)
	}
	// An incident's or maintenance's story ends resolved or completed, a
	// component's back to operational.
	ended := func(text string) bool {
		l := strings.ToLower(text)
		return strings.Contains(l, "resolved") || strings.Contains(l, "completed") || strings.Contains(l, "-&gt; operational")
	}
	// Every story ends where it ended on the page: the last message of
	// each (a card as edited last, a notice) says so.
	for c, tl := range tallies {
		require.NotEmpty(t, tl.last, "chat %d heard nothing", c.id)
		last := map[string]string{} // story name -> its last top-level message
		for _, m := range tl.last {
			if m.ReplyTo != 0 {
				continue // a reply under a card: the card tells the state
			}
			last[storyOf(m, nil)] = m.Text
		}
		require.NotEmpty(t, last)
		for name, text := range last {
			require.True(t, ended(text), "chat %d: %q does not end resolved:\n%s", c.id, name, text)
		}
	}
	// The rule: at most one message per story and poll, in both modes.
	for c, tl := range tallies {
		require.LessOrEqual(t, tl.mostPerStory, 1, "chat %d: one message per story and poll", c.id)
	}
}

// storyOf names the story of a message: its own name (a card, a notice),
// or its card's (a reply).
func storyOf(m fakes.Message, names map[int]string) string {
	if m.ReplyTo != 0 {
		return names[m.ReplyTo]
	}
	if i := strings.Index(m.Text, "</b>\n\n<b>"); i >= 0 {
		name := m.Text[i+len("</b>\n\n<b>"):]
		if j := strings.Index(name, "</b>"); j >= 0 {
			return name[:j]
		}
	}
	return m.Text
}
