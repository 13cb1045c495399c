package worker_test

// Benchmarks on the real stack (Temporal dev server, FerretDB, fake Telegram
// and Statuspage). Run them one at a time, once each:
//
//	make bench                                                     # all of them
//	go test -count=1 -run '^$' -bench 'FanOut/subscribers=1000$' -benchtime 1x -timeout 60m ./worker/
//
// docs/benchmarks.md explains every metric and holds the latest results.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

// Telegram's real limits, enforced by the fake with 429 + retry_after.
const (
	telegramGlobalPerSecond = 30
	telegramPerChat         = time.Second
)

// BenchmarkFanOut delivers one event per iteration to n subscribers through
// the in-process worker, against a fake Telegram enforcing 30 msg/s overall
// and 1 msg/s per chat. The poll is triggered by hand (the Schedule's
// interval is an hour) so that the counts hold exactly one poll.
func BenchmarkFanOut(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) { benchFanOut(b, n) })
	}
}

// BenchmarkFanOutCards is the fan-out in cards mode: every subscriber has
// the incident's card already (posted before the timer starts), and each
// iteration is a later update: an edit of the card and a reply under it.
// msgs/s counts the replies (one per subscriber), calls/s the edits and
// replies together: the Bot API calls TELEGRAM_RATE_LIMIT paces, and
// Telegram's limits count (the fake counts edits like messages).
func BenchmarkFanOutCards(b *testing.B) {
	for _, n := range []int{1000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			runFanOutMode(b, testenv.NewStack(b, time.Hour), n, store.ModeCards)
		})
	}
}

func benchFanOut(b *testing.B, n int) {
	runFanOut(b, testenv.NewStack(b, time.Hour), n)
}

// BenchmarkFanOutScale is the fan-out to BENCH_SUBSCRIBERS subscribers
// (skipped without it): the 100,000 runs of docs/benchmarks.md, on
// FerretDB with PostgreSQL (DEVDB_HANDLER=postgresql). BENCH_RATE sets
// TELEGRAM_RATE_LIMIT (default 25) and BENCH_FAKE_LIMITS=off lifts the
// fake Telegram's limits, so that only the pipeline and the store bound
// the rate (its ceiling). It reports the rate over each tenth of the
// messages; TENTH lines on stderr show them as the run goes. BENCH_PAID=on
// sends with TELEGRAM_PAID_BROADCAST=true against a fake that allows 1000
// a second with allow_paid_broadcast (and 30 without).
//
//	DEVDB_HANDLER=postgresql BENCH_SUBSCRIBERS=100000 go test -count=1 -run '^$' -bench FanOutScale -benchtime 1x -timeout 3h ./worker/
func BenchmarkFanOutScale(b *testing.B) {
	n := envInt("BENCH_SUBSCRIBERS", 0)
	if n == 0 {
		b.Skip("set BENCH_SUBSCRIBERS (docs/benchmarks.md)")
	}
	s := testenv.NewStack(b, time.Hour)
	if r := envInt("BENCH_RATE", 0); r > 0 {
		s.Config.TelegramRateLimit = float64(r)
	}
	if os.Getenv("BENCH_PAID") == "on" { // paid broadcasts: the fake lets 1000 a second through with the parameter
		s.Config.TelegramPaidBroadcast = true
		s.Telegram.PaidPerSecond = 1000
	}
	runFanOut(b, s, n)
}

func runFanOut(b *testing.B, s *testenv.Stack, n int) { runFanOutMode(b, s, n, "") }

// BenchmarkFanOutWorkers is the fan-out in messages mode on one worker
// and on two (each its own process's pacing; the send queue's limit and
// the chats' turns are shared), against a fake Telegram enforcing
// Telegram's limits: 30 a second overall, one a second per chat, 20 a
// minute per group, edits and pins counted.
//
// BENCH_WORKERS lists the numbers of workers (default 1,2) and
// BENCH_WORKERS_SUBSCRIBERS the chats (default 1000): issue 29's run is
// BENCH_WORKERS=1,2,5 BENCH_WORKERS_SUBSCRIBERS=10000. BENCH_PARTITIONS=default
// runs it on a Temporal server of its own at its defaults (four partitions
// of every task queue, as on Temporal Cloud) instead of the one with a
// single partition.
func BenchmarkFanOutWorkers(b *testing.B) {
	n := envInt("BENCH_WORKERS_SUBSCRIBERS", 1000)
	for _, w := range strings.Split(cmp.Or(os.Getenv("BENCH_WORKERS"), "1,2"), ",") {
		workers, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || workers < 1 {
			b.Fatalf("BENCH_WORKERS=%q: a list of numbers of workers, such as 1,2,5", os.Getenv("BENCH_WORKERS"))
		}
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			s := benchStack(b)
			s.Telegram.RealLimits()
			runFanOutWith(b, s, n, "", workers)
		})
	}
}

// benchStack is a benchmark's stack, on a Temporal server at its defaults
// when BENCH_PARTITIONS=default.
func benchStack(b *testing.B) *testenv.Stack {
	switch p := os.Getenv("BENCH_PARTITIONS"); p {
	case "":
		return testenv.NewStack(b, time.Hour)
	case "default":
		tmp := testenv.StartOwnTemporalAtDefaults(b)
		b.Logf("Temporal: a server of its own at its defaults (four partitions of every task queue)")
		return testenv.NewStackWith(b, time.Hour, testenv.StackOptions{TemporalAddress: tmp.Addr, TemporalNamespace: tmp.Namespace})
	default:
		b.Fatalf("BENCH_PARTITIONS=%q: \"default\" (a server at its defaults) or unset (one partition)", p)
		return nil
	}
}

func runFanOutMode(b *testing.B, s *testenv.Stack, n int, mode string) {
	runFanOutWith(b, s, n, mode, 1)
}

func runFanOutWith(b *testing.B, s *testenv.Stack, n int, mode string, workers int) {
	s.Telegram.GlobalPerSecond = telegramGlobalPerSecond
	s.Telegram.PerChatInterval = telegramPerChat
	if os.Getenv("BENCH_FAKE_LIMITS") == "off" {
		s.Telegram.GlobalPerSecond, s.Telegram.PerChatInterval = 0, 0
	}
	b.Logf("store: FerretDB on %s; TELEGRAM_RATE_LIMIT=%g; fake limits %d/s, %v per chat", testenv.DevDBHandler(), s.Config.TelegramRateLimit,
		s.Telegram.GlobalPerSecond, s.Telegram.PerChatInterval)
	const firstChat = 1_000_000
	seedStart := time.Now()
	seedSubscribersWith(b, s, firstChat, n, store.Settings{Mode: mode})
	b.Logf("seeded %d subscribers in %v", n, time.Since(seedStart).Round(time.Millisecond))

	for range workers {
		s.StartWorker(b)
	}
	s.WaitForBaseline(b)
	trigger := func(i int) {
		if mode == store.ModeCards {
			s.Page.AddIncidentUpdate("inc00001", "Elevated errors on the API", []string{"investigating", "identified", "monitoring"}[min(i+1, 2)],
				"major", fmt.Sprintf("upd%05d", i+1), fmt.Sprintf("Update %d of the incident.", i+1))
		} else {
			s.Page.SetComponent("api0000001", "API", []string{"major_outage", "operational"}[i%2])
		}
		s.TriggerPoll(b)
	}
	if mode == store.ModeCards { // the cards, before the timer
		trigger(-1)
		testenv.WaitFor(b, time.Duration(n)*time.Second/5+5*time.Minute, fmt.Sprintf("%d cards", n), func() bool {
			return len(s.Telegram.Messages()) >= n
		})
		waitDeliveriesClosed(b, s)
	}
	edits0 := s.Telegram.Calls("editMessageText")
	counted := map[string]bool{} // run IDs already counted
	_ = countHistories(b, s, counted, "")

	mem := startMemSampler()
	b.ResetTimer()
	var tot struct {
		msgs, calls, tooMany, activities, events, roundTrips int64
		sendSpan, callSpan, total, stall                     time.Duration
		busiest                                              int
	}
	for i := 0; i < b.N; i++ {
		before, editsBefore := len(s.Telegram.Messages()), len(s.Telegram.Edits())
		tm0, rt0, by0 := s.Telegram.TooManyCount(), s.Store.RoundTrips(), s.Store.RoundTripsBy()
		start := time.Now()
		trigger(i)
		stopWatch := watchTenths(s, before, n, start)
		testenv.WaitFor(b, time.Duration(n)*time.Second/5+5*time.Minute, fmt.Sprintf("%d deliveries", n), func() bool {
			return s.Telegram.MessageCount()-before >= n
		})
		stopWatch()
		msgs := s.Telegram.Messages()[before:]
		tenths := tenthRates(msgs)
		b.Logf("RESULT fanout subscribers=%d tenths (msgs/s over each tenth of the messages): %s; last/first %.3f",
			n, formatRates(tenths), tenths[len(tenths)-1]/tenths[0])
		b.ReportMetric(tenths[len(tenths)-1]/tenths[0], "last_tenth/first_tenth")
		waitDeliveriesClosed(b, s)
		first, last := msgs[0].At, msgs[len(msgs)-1].At
		var calls []time.Time // messages and edits: what Telegram counts
		for _, m := range msgs {
			calls = append(calls, m.At)
		}
		for _, e := range s.Telegram.Edits()[editsBefore:] {
			calls = append(calls, e.At)
		}
		busiest := fakes.Busiest(calls, time.Second) // sorts calls
		tot.calls += int64(len(calls))
		tot.callSpan += calls[len(calls)-1].Sub(calls[0])
		tot.busiest = max(tot.busiest, busiest)
		if lost, dups := tally(msgs, firstChat, n); lost != 0 || dups != 0 {
			b.Errorf("fan-out %d: %d lost, %d duplicate(s)", i, lost, dups)
		}
		c := countHistories(b, s, counted, "")
		tot.msgs += int64(len(msgs))
		tot.tooMany += int64(s.Telegram.TooManyCount() - tm0)
		tot.roundTrips += s.Store.RoundTrips() - rt0
		b.Logf("fan-out %d: MongoDB round trips per message by command: %s", i, tripsPerMessage(by0, s.Store.RoundTripsBy(), len(msgs)))
		tot.activities += int64(c.activities)
		tot.events += int64(c.events)
		tot.sendSpan += last.Sub(first)
		tot.total += last.Sub(start)
		if path := os.Getenv("BENCH_DUMP_TIMELINE"); path != "" { // one line per delivery: seconds since the first, chat
			var sb strings.Builder
			for _, m := range msgs {
				fmt.Fprintf(&sb, "%.3f %d\n", m.At.Sub(first).Seconds(), m.ChatID)
			}
			_ = os.WriteFile(path, []byte(sb.String()), 0o644)
		}
		stalls, stalled := stallTime(msgs, s.Config.TelegramRateLimit)
		tot.stall += stalled
		atWindow := windowBoundaryGaps(msgs, workflows.DefaultTuning().WindowSize)
		b.Logf("fan-out %d: gaps between windows of %d sends: mean %v, max %v, sum %v", i, workflows.DefaultTuning().WindowSize,
			mean(atWindow).Round(time.Millisecond), slices.Max(append(atWindow, 0)).Round(time.Millisecond), sum(atWindow).Round(time.Millisecond))
		b.Logf("fan-out %d: %d msgs, first after %v, last after %v; %d workflow runs (%d of the delivery), %d activities, %d events; "+
			"%d stall(s) (gap > 3 send slots) adding up to %v; %d Bot API calls (messages and edits), %d in the busiest second, %d 429s",
			i, len(msgs), first.Sub(start).Round(time.Millisecond), last.Sub(start).Round(time.Millisecond), c.runs, c.deliveryRuns,
			c.activities, c.events, stalls, stalled.Round(time.Millisecond), len(calls), busiest, s.Telegram.TooManyCount()-tm0)
	}
	b.StopTimer()
	peak := mem.stop()

	perSec := float64(tot.msgs-int64(b.N)) / tot.sendSpan.Seconds() // first to last message
	limit := s.Config.TelegramRateLimit
	m := float64(tot.msgs)
	callsPerSec := float64(tot.calls-int64(b.N)) / tot.callSpan.Seconds() // first to last call
	b.ReportMetric(perSec, "msgs/s")
	b.ReportMetric(perSec/limit, "ratio")
	b.ReportMetric(callsPerSec, "calls/s")
	b.ReportMetric(callsPerSec/limit, "calls_ratio")
	b.ReportMetric(float64(tot.busiest), "calls_busiest_second")
	b.ReportMetric(float64(tot.msgs)/tot.total.Seconds(), "msgs/s_incl_poll")
	b.ReportMetric(float64(tot.tooMany)/float64(b.N), "429s")
	b.ReportMetric(tot.stall.Seconds()/float64(b.N), "stall_s")
	b.ReportMetric(float64(tot.activities)/m, "activities/msg")
	b.ReportMetric(float64(tot.events)/m, "events/msg")
	b.ReportMetric(float64(tot.roundTrips)/m, "roundtrips/msg")
	b.ReportMetric(float64(peak.heapInuse)/(1<<20), "heap_inuse_peak_MB")
	b.ReportMetric(float64(peak.sys)/(1<<20), "sys_peak_MB")
	b.ReportMetric(float64(peak.rssHWM)/(1<<20), "rss_peak_MB")
	edits := s.Telegram.Calls("editMessageText") - edits0
	if mode == store.ModeCards {
		b.ReportMetric(float64(edits)/tot.total.Seconds(), "edits/s_incl_poll")
	}
	b.Logf("RESULT fanout workers=%d", workers)
	b.Logf("RESULT fanout mode=%s edits=%d: %.2f Bot API calls/s (messages and edits; ratio %.3f of TELEGRAM_RATE_LIMIT), busiest second %d calls, 429s=%d",
		cmp.Or(mode, "messages"), edits, callsPerSec, callsPerSec/limit, tot.busiest, tot.tooMany)
	b.Logf("RESULT fanout subscribers=%d: %.2f msgs/s (ratio %.3f of TELEGRAM_RATE_LIMIT=%g; %.2f msgs/s from trigger to last), "+
		"429s=%d, per message: %.2f activities, %.2f history events, %.3f MongoDB round trips; "+
		"memory (in-process worker + fakes): heap in use peak %.1f MiB, Sys peak %.1f MiB, RSS peak %.1f MiB",
		n, perSec, perSec/limit, limit, float64(tot.msgs)/tot.total.Seconds(), tot.tooMany,
		float64(tot.activities)/m, float64(tot.events)/m, float64(tot.roundTrips)/m,
		float64(peak.heapInuse)/(1<<20), float64(peak.sys)/(1<<20), float64(peak.rssHWM)/(1<<20))
}

// BenchmarkIdlePoll measures what one poll that finds nothing costs, with a
// page the size of status.openai.com's (about 30 components, 50 incidents).
func BenchmarkIdlePoll(b *testing.B) {
	const interval = time.Second
	const polls = 20
	s := testenv.NewStack(b, interval)
	realisticPage(s.Page)
	s.StartWorker(b)
	s.WaitForBaseline(b)
	time.Sleep(2 * interval)
	counted := map[string]bool{}
	_ = countHistories(b, s, counted, "PollWorkflow")
	sched0 := schedulerEvents(b, s)

	b.ResetTimer()
	req0, rt0 := s.Page.Requests("/api/v2/summary.json"), s.Store.RoundTrips()
	testenv.WaitFor(b, time.Duration(polls*b.N)*interval*4, "idle polls", func() bool {
		return s.Page.Requests("/api/v2/summary.json")-req0 >= polls*b.N
	})
	time.Sleep(interval / 2) // let the last one finish
	fetches, rt := s.Page.Requests("/api/v2/summary.json")-req0, s.Store.RoundTrips()-rt0
	b.StopTimer()
	time.Sleep(time.Second) // visibility
	c := countHistories(b, s, counted, "PollWorkflow")
	sched := schedulerEvents(b, s) - sched0
	if c.runs == 0 {
		b.Fatal("no poll runs found")
	}
	if c.children != 0 || len(s.Telegram.Messages()) != 0 {
		b.Fatalf("an idle poll started %d deliveries and sent %d messages", c.children, len(s.Telegram.Messages()))
	}
	runs := float64(c.runs)
	perPoll := struct{ acts, events, sched, rt, bytes float64 }{
		float64(c.activities) / runs, float64(c.events) / runs, float64(sched) / runs, float64(rt) / float64(fetches), float64(c.bytesFetched) / runs,
	}
	const day = 24 * 60 // polls per day at a one-minute interval
	b.ReportMetric(perPoll.acts, "activities/poll")
	b.ReportMetric(perPoll.events, "events/poll")
	b.ReportMetric(perPoll.sched, "scheduler_events/poll")
	b.ReportMetric(perPoll.rt, "roundtrips/poll")
	b.ReportMetric(perPoll.bytes, "bytes/poll")
	b.ReportMetric(perPoll.acts*day, "activities/day")
	b.ReportMetric(perPoll.events*day, "events/day")
	b.ReportMetric(perPoll.rt*day, "roundtrips/day")
	b.ReportMetric(perPoll.bytes*day/(1<<20), "MiB/day")
	b.Logf("RESULT idle poll (%d runs): %.2f activities, %.2f history events (+%.2f in the Schedule's own workflow), %.2f MongoDB round trips, %.0f bytes fetched per poll; "+
		"per day at 1m: %.0f activities, %.0f events, %.0f round trips, %.1f MiB",
		c.runs, perPoll.acts, perPoll.events, perPoll.sched, perPoll.rt, perPoll.bytes,
		perPoll.acts*day, perPoll.events*day, perPoll.rt*day, perPoll.bytes*day/(1<<20))
}

// BenchmarkLatency measures the time from a change on the status page to the
// first and the last delivery, with the Schedule's interval at 2s (the
// change waits on average half an interval for the next poll).
func BenchmarkLatency(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			const interval = 2 * time.Second
			s := testenv.NewStack(b, interval)
			s.Telegram.GlobalPerSecond = telegramGlobalPerSecond
			s.Telegram.PerChatInterval = telegramPerChat
			const firstChat = 2_000_000
			seedSubscribers(b, s, firstChat, n)
			s.StartWorker(b)
			s.WaitForBaseline(b)
			time.Sleep(interval)
			var firstSum, lastSum time.Duration
			var firstMin, firstMax time.Duration
			statuses := []string{"degraded_performance", "operational"}
			// The wait for the next poll is uniform in [0, interval): small
			// fan-outs take several samples per iteration.
			samples := b.N * max(1, 50/n)
			b.ResetTimer()
			for i := 0; i < samples; i++ {
				before := len(s.Telegram.Messages())
				changed := time.Now()
				s.Page.SetComponent("chatgpt001", "ChatGPT", statuses[i%2])
				testenv.WaitFor(b, time.Duration(n)*time.Second/5+3*time.Minute, "every delivery", func() bool {
					return len(s.Telegram.Messages())-before >= n
				})
				msgs := s.Telegram.Messages()[before:]
				first, last := msgs[0].At.Sub(changed), msgs[len(msgs)-1].At.Sub(changed)
				firstSum += first
				lastSum += last
				if i == 0 || first < firstMin {
					firstMin = first
				}
				firstMax = max(firstMax, first)
				time.Sleep(time.Duration(i%4) * interval / 4) // spread the change across the interval
				if lost, dups := tally(msgs, firstChat, n); lost != 0 || dups != 0 {
					b.Errorf("%d lost, %d duplicate(s)", lost, dups)
				}
				waitDeliveriesClosed(b, s)
			}
			b.StopTimer()
			first, last := firstSum/time.Duration(samples), lastSum/time.Duration(samples)
			b.ReportMetric(first.Seconds(), "first_s")
			b.ReportMetric(last.Seconds(), "last_s")
			b.ReportMetric(firstMin.Seconds(), "first_min_s")
			b.ReportMetric(firstMax.Seconds(), "first_max_s")
			b.Logf("RESULT latency subscribers=%d (poll interval %v, %d sample(s)): change to first delivery %v (min %v, max %v), to last %v",
				n, interval, samples, first.Round(time.Millisecond), firstMin.Round(time.Millisecond), firstMax.Round(time.Millisecond), last.Round(time.Millisecond))
		})
	}
}

// stallTime finds the gaps between consecutive deliveries longer than three
// send slots at the rate limit, and adds up their excess over one slot: the
// time the pipeline left Telegram idle.
func stallTime(msgs []fakes.Message, limit float64) (n int, total time.Duration) {
	slot := time.Duration(float64(time.Second) / limit)
	for i := 1; i < len(msgs); i++ {
		if gap := msgs[i].At.Sub(msgs[i-1].At); gap > 3*slot {
			n++
			total += gap - slot
		}
	}
	return n, total
}

// windowBoundaryGaps are the gaps between the last send of one window and
// the first of the next (a window's sends all finish before the next starts).
func windowBoundaryGaps(msgs []fakes.Message, window int) []time.Duration {
	var out []time.Duration
	for i := window; i < len(msgs); i += window {
		out = append(out, msgs[i].At.Sub(msgs[i-1].At))
	}
	return out
}

func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
}

func mean(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return sum(ds) / time.Duration(len(ds))
}

// seedSubscribers inserts n default subscriptions (chats first..first+n-1)
// in batches, on a client of its own so that the store's round-trip counter
// only sees the worker.
func seedSubscribers(t testing.TB, s *testenv.Stack, first int64, n int) {
	t.Helper()
	seedSubscribersWith(t, s, first, n, store.Settings{})
}

// seedSubscribersWith seeds subscribers with the given settings.
func seedSubscribersWith(t testing.TB, s *testenv.Stack, first int64, n int, settings store.Settings) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(s.Config.MongoDBURI))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Disconnect(context.Background()) }()
	coll := c.Database(s.Config.MongoDBDatabase).Collection("subscriptions")
	now := time.Now().UTC()
	const batch = 1000
	for i := 0; i < n; i += batch {
		docs := make([]any, 0, batch)
		for j := i; j < min(i+batch, n); j++ {
			chat := first + int64(j)
			docs = append(docs, append(bson.D{
				{Key: "_id", Value: strconv.FormatInt(chat, 10)}, {Key: "chat_id", Value: chat}, {Key: "thread_id", Value: 0},
				{Key: "kinds", Value: event.DefaultKinds}, {Key: "components", Value: []string{}}, {Key: "created_at", Value: now},
				{Key: "settings", Value: settings}, {Key: "reminder_lead", Value: store.ReminderLeadOf(event.DefaultKinds, settings)},
				{Key: "pages", Value: bson.A{""}}, // the legacy page, as Subscribe writes it
			}, bucketFields(strconv.FormatInt(chat, 10))...))
		}
		if _, err := coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
			t.Fatalf("seed subscribers: %v", err)
		}
	}
	got, err := coll.CountDocuments(ctx, bson.D{})
	if err != nil || got != int64(n) {
		t.Fatalf("seeded %d subscribers, want %d (%v)", got, n, err)
	}
}

// tally counts, among msgs, the chats first..first+n-1 that got nothing
// (lost) and the extra messages beyond one per chat (duplicates).
func tally(msgs []fakes.Message, first int64, n int) (lost, dups int) {
	counts := map[int64]int{}
	for _, m := range msgs {
		counts[m.ChatID]++
	}
	for i := 0; i < n; i++ {
		switch c := counts[first+int64(i)]; {
		case c == 0:
			lost++
		case c > 1:
			dups += c - 1
		}
	}
	return lost, dups
}

// waitDeliveriesClosed waits until no delivery of the stack runs.
func waitDeliveriesClosed(t testing.TB, s *testenv.Stack) {
	t.Helper()
	testenv.WaitFor(t, 5*time.Minute, "every delivery workflow to close", func() bool {
		return len(s.Deliveries(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING)) == 0
	})
}

type historyCounts struct {
	runs, deliveryRuns, activities, events, children int
	bytesFetched                                     int64
}

// countHistories adds up the histories of every run (each continue-as-new
// run is listed on its own by visibility) of the given workflow type ("" for
// all) that is closed and not yet in counted.
func countHistories(t testing.TB, s *testenv.Stack, counted map[string]bool, wfType string) historyCounts {
	t.Helper()
	return countHistoriesOf(t, s, counted, wfType, "")
}

// countHistoriesOf is countHistories for the runs whose workflow ID starts
// with idPrefix ("" for all): one page's polls.
func countHistoriesOf(t testing.TB, s *testenv.Stack, counted map[string]bool, wfType, idPrefix string) historyCounts {
	t.Helper()
	ctx := context.Background()
	q := "ExecutionStatus != 'Running'"
	if wfType != "" {
		q += " AND WorkflowType = '" + wfType + "'"
	}
	var out historyCounts
	var token []byte
	for {
		resp, err := s.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: q, PageSize: 1000, NextPageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range resp.GetExecutions() {
			id, run := ex.GetExecution().GetWorkflowId(), ex.GetExecution().GetRunId()
			if counted[run] || !strings.HasPrefix(id, idPrefix) {
				continue
			}
			counted[run] = true
			out.runs++
			if strings.HasPrefix(id, "delivery/") {
				out.deliveryRuns++
			}
			it := s.Temporal.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				e, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				out.events++
				switch e.GetEventType() {
				case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
					out.activities++
				case enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
					out.children++
				case enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
					out.bytesFetched += bytesFetched(e)
				}
			}
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			return out
		}
	}
}

// bytesFetched reads DetectEvents' BytesFetched from its completion.
func bytesFetched(e *historypb.HistoryEvent) int64 {
	for _, p := range e.GetActivityTaskCompletedEventAttributes().GetResult().GetPayloads() {
		if !strings.Contains(string(p.GetData()), "bytes_fetched") {
			continue
		}
		var d struct {
			BytesFetched int64 `json:"bytes_fetched"`
		}
		if json.Unmarshal(p.GetData(), &d) == nil {
			return d.BytesFetched
		}
	}
	return 0
}

// schedulerEvents is the length of the Schedule's own workflow history
// (the server runs each Schedule as a workflow); 0 when the server does not
// expose it.
func schedulerEvents(t testing.TB, s *testenv.Stack) int {
	it := s.Temporal.GetWorkflowHistory(context.Background(), "temporal-sys-scheduler:"+workflows.ScheduleID, "", false,
		enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	n := 0
	for it.HasNext() {
		if _, err := it.Next(); err != nil {
			t.Logf("scheduler history not available: %v", err)
			return 0
		}
		n++
	}
	return n
}

// realisticPage fills the fake page to about the size of status.openai.com:
// 30 components and 50 resolved incidents with four updates each.
func realisticPage(p *fakes.Statuspage) {
	for i := 0; i < 28; i++ {
		p.SetComponent(fmt.Sprintf("comp%06d", i), fmt.Sprintf("Component %d", i), "operational")
	}
	body := strings.Repeat("We are investigating elevated error rates for some requests. ", 4)
	for i := 0; i < 50; i++ {
		id := fmt.Sprintf("inc%07d", i)
		for j, st := range []string{"investigating", "identified", "monitoring", "resolved"} {
			p.AddIncidentUpdate(id, fmt.Sprintf("Elevated errors %d", i), st, "minor", fmt.Sprintf("%s-u%d", id, j), body)
		}
	}
}

type memPeak struct{ heapInuse, sys, rssHWM uint64 }

type memSampler struct {
	mu   sync.Mutex
	peak memPeak
	done chan struct{}
	wg   sync.WaitGroup
}

// startMemSampler samples runtime.MemStats every 200ms (HeapInuse and Sys
// peaks) and reads the process's peak RSS (VmHWM) at the end. The worker runs
// in this process together with the fakes, so these bound its memory.
func startMemSampler() *memSampler {
	runtime.GC()
	// "5" resets VmHWM to the current RSS (Linux 4.0+), so the peak is this run's.
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
	m := &memSampler{done: make(chan struct{})}
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			m.mu.Lock()
			m.peak.heapInuse = max(m.peak.heapInuse, ms.HeapInuse)
			m.peak.sys = max(m.peak.sys, ms.Sys)
			m.mu.Unlock()
			select {
			case <-m.done:
				return
			case <-tick.C:
			}
		}
	}()
	return m
}

func (m *memSampler) stop() memPeak {
	close(m.done)
	m.wg.Wait()
	m.peak.rssHWM = vmHWM()
	return m.peak
}

// vmHWM is the peak resident set size of this process, from /proc.
func vmHWM() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// tenthRates is the delivery rate over each tenth of the messages (by
// count, from the first message's time on), in messages per second.
func tenthRates(msgs []fakes.Message) []float64 {
	if len(msgs) < 20 {
		return []float64{1}
	}
	at := make([]time.Time, len(msgs))
	for i, m := range msgs {
		at[i] = m.At
	}
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	var out []float64
	for k := 0; k < 10; k++ {
		lo, hi := k*(len(at)-1)/10, (k+1)*(len(at)-1)/10
		out = append(out, float64(hi-lo)/at[hi].Sub(at[lo]).Seconds())
	}
	return out
}

func formatRates(rs []float64) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%.1f", r)
	}
	return strings.Join(parts, " ")
}

// watchTenths prints a TENTH line to stderr each time another tenth of n
// messages (counted from before) is out: the rate over that tenth and the
// machine's load averages, so that a long run can be read (or cut short)
// as it goes. It stops when the returned func is called.
func watchTenths(s *testenv.Stack, before, n int, start time.Time) (stop func()) {
	done := make(chan struct{})
	go func() {
		last, lastAt, next := 0, start, 1
		for {
			select {
			case <-done:
				return
			case <-time.After(2 * time.Second):
			}
			got := s.Telegram.MessageCount() - before
			for next <= 10 && got >= next*n/10 {
				now := time.Now()
				load, _ := os.ReadFile("/proc/loadavg")
				fmt.Fprintf(os.Stderr, "TENTH %d/10 at %s: %d msgs after %v, %.1f msgs/s over this tenth; load %s\n", next, now.UTC().Format("15:04:05"),
					got, now.Sub(start).Round(time.Second), float64(got-last)/now.Sub(lastAt).Seconds(), strings.TrimSpace(string(load)))
				last, lastAt = got, now
				next++
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}

// bucketFields are a subscription's page buckets, as the store writes them.
func bucketFields(key string) bson.D {
	b := store.BucketsOf(key)
	return bson.D{{Key: "b16", Value: b.B16}, {Key: "b128", Value: b.B128}, {Key: "b1024", Value: b.B1024}, {Key: "b8192", Value: b.B8192}}
}

// tripsPerMessage lists the round trips made between two counts by command
// and collection, per message, the most first.
func tripsPerMessage(before, after map[string]int64, msgs int) string {
	type trip struct {
		name string
		n    int64
	}
	var trips []trip
	for name, n := range after {
		if d := n - before[name]; d > 0 {
			trips = append(trips, trip{name, d})
		}
	}
	slices.SortFunc(trips, func(a, b trip) int { return cmp.Compare(b.n, a.n) })
	var parts []string
	for _, t := range trips {
		parts = append(parts, fmt.Sprintf("%s %.3f", t.name, float64(t.n)/float64(max(msgs, 1))))
	}
	return strings.Join(parts, ", ")
}
