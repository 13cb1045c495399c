package worker_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// BenchmarkFanOutOutage delivers one event to BENCH_SUBSCRIBERS subscribers
// (default 100,000) at Telegram's real limits, with Telegram answering 500
// to every send for BENCH_OUTAGE (default 10m) once BENCH_OUTAGE_AFTER
// messages (default a tenth) are out. After recovery every subscriber must
// have exactly one message, no workflow task may fail (nothing rejected by
// the server), and it reports the largest payload any workflow carried.
// Long: outside `make test` and `make bench`:
//
//	BENCH_SUBSCRIBERS=10000 go test -count=1 -run '^$' -bench FanOutOutage -benchtime 1x -timeout 3h ./worker/
func BenchmarkFanOutOutage(b *testing.B) {
	if os.Getenv("BENCH_SUBSCRIBERS") == "" && os.Getenv("BENCH_OUTAGE") == "" {
		// At 100,000 it runs for over an hour: not part of `make bench`.
		b.Skip("set BENCH_SUBSCRIBERS or BENCH_OUTAGE (docs/benchmarks.md)")
	}
	n := envInt("BENCH_SUBSCRIBERS", 100_000)
	outage := envDuration("BENCH_OUTAGE", 10*time.Minute)
	after := envInt("BENCH_OUTAGE_AFTER", n/10)
	s := testenv.NewStack(b, time.Hour)
	s.Telegram.GlobalPerSecond = telegramGlobalPerSecond
	s.Telegram.PerChatInterval = telegramPerChat
	const firstChat = 3_000_000
	seedSubscribers(b, s, firstChat, n)
	s.StartWorker(b)
	s.WaitForBaseline(b)
	mem := startMemSampler()
	b.ResetTimer()

	start := time.Now()
	b.Logf("store: FerretDB on %s", testenv.DevDBHandler())
	s.Page.SetComponent("api0000001", "API", "major_outage")
	s.TriggerPoll(b)
	stopWatch := watchTenths(s, 0, n, start)
	defer stopWatch()
	testenv.WaitFor(b, time.Duration(after)*time.Second/5+5*time.Minute, "the fan-out to be under way", func() bool { return s.Telegram.MessageCount() >= after })
	down := time.Now()
	atDown := s.Telegram.MessageCount()
	fmt.Fprintf(os.Stderr, "OUTAGE from %s after %d messages\n", down.UTC().Format("15:04:05"), atDown)
	s.Telegram.Outage(fakes.ErrInternal)
	peakPending := int64(0)
	for time.Since(down) < outage {
		time.Sleep(10 * time.Second)
		peakPending = max(peakPending, pendingRetries(b, s))
	}
	s.Telegram.Outage(nil)
	up := time.Now()
	fmt.Fprintf(os.Stderr, "OUTAGE over at %s, %d pending at the peak\n", up.UTC().Format("15:04:05"), peakPending)
	b.Logf("Telegram down for %v after %d messages; %d subscribers pending a retry at the peak", up.Sub(down).Round(time.Second), atDown, peakPending)

	// The count first (cheap), then every chat (a map of n) every 5 s.
	lastFull := time.Time{}
	testenv.WaitFor(b, time.Duration(n)*time.Second/10+2*time.Hour, fmt.Sprintf("%d deliveries", n), func() bool {
		if s.Telegram.MessageCount() < n || time.Since(lastFull) < 5*time.Second {
			return false
		}
		lastFull = time.Now()
		return chatsWith(s.Telegram.Messages(), "component", firstChat, n) == n
	})
	done := time.Now()
	waitDeliveriesClosed(b, s)
	time.Sleep(2 * time.Second)
	b.StopTimer()
	peak := mem.stop()

	msgs := s.Telegram.Messages()
	lost, dups := tally(msgs, firstChat, n)
	b.Logf("RESULT fanout with outage tenths (msgs/s over each tenth of the messages): %s", formatRates(tenthRates(msgs)))
	h := scanHistories(b, s)
	b.ReportMetric(float64(len(msgs)), "msgs")
	b.ReportMetric(float64(h.events)/float64(len(msgs)), "events/msg")
	b.ReportMetric(float64(h.maxPayload), "max_payload_bytes")
	b.ReportMetric(float64(peak.heapInuse)/float64(len(msgs)), "heap_peak_bytes/msg")
	b.ReportMetric(float64(peak.rssHWM)/(1<<20), "rss_peak_MB")
	b.Logf("RESULT fanout with outage subscribers=%d outage=%v: lost %d, duplicates %d; all delivered %v after the change (%v after Telegram came back); "+
		"%d workflow runs (%d continue-as-new), %d history events (%.2f per message), largest payload %d bytes (%s), %d failed workflow tasks; "+
		"peak pending %d; memory: heap in use peak %.1f MiB (%.0f bytes per message), RSS peak %.1f MiB",
		n, outage, lost, dups, done.Sub(start).Round(time.Second), done.Sub(up).Round(time.Second),
		h.runs, h.continued, h.events, float64(h.events)/float64(len(msgs)), h.maxPayload, h.maxPayloadWhere, h.taskFailures,
		peakPending, float64(peak.heapInuse)/(1<<20), float64(peak.heapInuse)/float64(len(msgs)), float64(peak.rssHWM)/(1<<20))
	if lost != 0 || dups != 0 {
		b.Errorf("%d lost, %d duplicate(s)", lost, dups)
	}
	if h.maxPayload >= 512<<10 {
		b.Errorf("a payload of %d bytes (%s) is past the 512 KB warning", h.maxPayload, h.maxPayloadWhere)
	}
	if h.taskFailures > 0 {
		b.Errorf("%d workflow task(s) failed", h.taskFailures)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// pendingRetries counts the subscribers pending a retry in MongoDB.
func pendingRetries(t testing.TB, s *testenv.Stack) int64 {
	n, err := s.Store.CountRetries(context.Background())
	if err != nil {
		t.Logf("count retries: %v", err)
	}
	return n
}

type historyScan struct {
	runs, continued, events, taskFailures int
	maxPayload                            int
	maxPayloadWhere                       string
}

// scanHistories reads every closed run's history: event counts, failed
// workflow tasks, and the largest payload in any event.
func scanHistories(t testing.TB, s *testenv.Stack) historyScan {
	ctx := context.Background()
	var out historyScan
	var token []byte
	for {
		resp, err := s.Temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: "ExecutionStatus != 'Running'", PageSize: 1000, NextPageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, ex := range resp.GetExecutions() {
			out.runs++
			if ex.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW {
				out.continued++
			}
			id, run := ex.GetExecution().GetWorkflowId(), ex.GetExecution().GetRunId()
			it := s.Temporal.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				e, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				out.events++
				if e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED {
					out.taskFailures++
				}
				if size := largestPayload(e.ProtoReflect()); size > out.maxPayload {
					out.maxPayload, out.maxPayloadWhere = size, fmt.Sprintf("%s event %d %s", id, e.GetEventId(), e.GetEventType())
				}
			}
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			return out
		}
	}
}

// largestPayload is the size of the largest set of payloads in a message.
func largestPayload(m protoreflect.Message) int {
	if p, ok := m.Interface().(*commonpb.Payloads); ok {
		return proto.Size(p)
	}
	if p, ok := m.Interface().(*commonpb.Payload); ok {
		return proto.Size(p)
	}
	best := 0
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				best = max(best, largestPayload(v.List().Get(i).Message()))
			}
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					best = max(best, largestPayload(mv.Message()))
					return true
				})
			}
		case fd.Message() != nil:
			best = max(best, largestPayload(v.Message()))
		}
		return true
	})
	return best
}
