package worker_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

// BenchmarkIdlePollPages is BenchmarkIdlePoll with two pages, each polled
// by its own Schedule: an incident.io page shaped like status.openai.com
// (the legacy page) and a Statuspage the size of BenchmarkIdlePoll's. It
// reports, per page, what one poll that finds nothing costs: its
// activities, history events, requests to the page and bytes fetched;
// MongoDB round trips are counted for both pages together, per poll.
//
//	go test -run '^$' -bench IdlePollPages -benchtime 1x ./worker
func BenchmarkIdlePollPages(b *testing.B) {
	const interval = time.Second
	const polls = 20
	ps := fakes.NewPages(
		fakes.PageSpec{Name: "openai", Kind: fakes.KindIncidentIO},
		fakes.PageSpec{Name: "github", Kind: fakes.KindStatuspage, Components: fakes.GitHubComponents, Title: "GitHub"},
	)
	b.Cleanup(ps.Close)
	io := ps.IncidentIO("openai")
	for i := 0; i < 50; i++ {
		id := fmt.Sprintf("01INC%021d", i)
		io.AddIncidentUpdate(id, fmt.Sprintf("Elevated errors %d", i), "investigating", "", id+"U1", "We are investigating reports of elevated errors.")
		io.AffectComponent(id, fakes.IOComponentResponses, "degraded_performance")
		io.AddIncidentUpdate(id, "", "resolved", "", id+"U2", "This incident has been resolved.")
	}
	realisticPage(ps.Statuspage("github"))
	s := testenv.NewStackWith(b, interval, testenv.StackOptions{Pages: ps})
	s.StartWorker(b)
	waitForPageBaseline(b, s, "")
	waitForPageBaseline(b, s, "github")
	time.Sleep(2 * interval)
	type page struct {
		name, runs string
		fake       fakes.Page
		req0       int
	}
	list := []*page{
		{name: "openai", runs: workflows.PollWorkflowID + "-", fake: ps.Page("openai")},
		{name: "github", runs: workflows.PagePollWorkflowID("github") + "-", fake: ps.Page("github")},
	}
	counted := map[string]bool{}
	_ = countHistories(b, s, counted, "PollWorkflow")

	b.ResetTimer()
	for _, p := range list {
		p.req0 = p.fake.TotalRequests()
	}
	rt0 := s.Store.RoundTrips()
	time.Sleep(time.Duration(polls*b.N)*interval + interval/2)
	rt := s.Store.RoundTrips() - rt0
	b.StopTimer()
	time.Sleep(time.Second) // visibility
	if len(s.Telegram.Messages()) != 0 {
		b.Fatalf("idle polls sent %d messages", len(s.Telegram.Messages()))
	}
	const day = 24 * 60 // polls per day at a one-minute interval
	allRuns := 0
	for _, p := range list {
		c := countHistoriesOf(b, s, counted, "PollWorkflow", p.runs)
		if c.runs == 0 {
			b.Fatalf("no poll runs of %s found", p.name)
		}
		if c.children != 0 {
			b.Fatalf("an idle poll of %s started %d deliveries", p.name, c.children)
		}
		allRuns += c.runs
		runs := float64(c.runs)
		acts, events := float64(c.activities)/runs, float64(c.events)/runs
		reqs, bytes := float64(p.fake.TotalRequests()-p.req0)/runs, float64(c.bytesFetched)/runs
		b.ReportMetric(acts, p.name+"-activities/poll")
		b.ReportMetric(events, p.name+"-events/poll")
		b.ReportMetric(reqs, p.name+"-requests/poll")
		b.ReportMetric(bytes, p.name+"-bytes/poll")
		b.Logf("RESULT idle poll of %s (%d runs): %.2f activities, %.2f history events, %.2f requests to the page, %.0f bytes fetched per poll; per day at 1m: %.0f activities, %.0f events",
			p.name, c.runs, acts, events, reqs, bytes, acts*day, events*day)
	}
	perPoll := float64(rt) / float64(allRuns)
	b.ReportMetric(perPoll, "roundtrips/poll")
	b.Logf("RESULT both pages: %d polls, %.2f MongoDB round trips per poll (every page's poll counted alike)", allRuns, perPoll)
}
