package worker_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// BenchmarkNewsFanOut is issue 28's benchmark: BENCH_NEWS_SUBSCRIBERS chats
// (skipped without it) in cards mode, TELEGRAM_RATE_LIMIT 25, the fake at
// Telegram's limits, an incident that starts and is then updated every
// BENCH_NEWS_EVERY (60 s) BENCH_NEWS_UPDATES times (10). BENCH_NEWS_LATE of
// the chats (500) subscribe BENCH_NEWS_LATE_AT (5 min) after the start: they
// miss the story's start and are told it by a later delivery, wherever the
// fan-out's order puts them. It measures the time from the last update to
// the last chat whose card shows it (waiting at most BENCH_NEWS_WATCH, 20
// min, after the last update), calls and messages per chat, and how long
// the chats missing the start waited for it. PROGRESS lines on stderr show
// the run as it goes. BENCH_RATE sets TELEGRAM_RATE_LIMIT (25): on a
// machine that cannot hold 25 calls a second, a smaller rate with fewer
// chats and a shorter interval keeps the scenario's proportions (a pass
// of the chats against the time between updates).
//
//	BENCH_NEWS_SUBSCRIBERS=10000 nice -n 10 go test -count=1 -run '^$' -bench NewsFanOut -benchtime 1x -timeout 90m ./worker/
func BenchmarkNewsFanOut(b *testing.B) {
	n := envInt("BENCH_NEWS_SUBSCRIBERS", 0)
	if n == 0 {
		b.Skip("set BENCH_NEWS_SUBSCRIBERS (docs/benchmarks.md)")
	}
	late := min(envInt("BENCH_NEWS_LATE", 500), n/2)
	updates := envInt("BENCH_NEWS_UPDATES", 10)
	every := envDuration("BENCH_NEWS_EVERY", time.Minute)
	lateAt := envDuration("BENCH_NEWS_LATE_AT", 5*time.Minute)
	watch := envDuration("BENCH_NEWS_WATCH", 20*time.Minute)

	s := testenv.NewStack(b, time.Hour) // polls triggered with each update
	s.Telegram.RealLimits()
	if r := envInt("BENCH_RATE", 0); r > 0 { // a rate a loaded machine holds (docs/benchmarks.md)
		s.Config.TelegramRateLimit = float64(r)
	}
	b.Logf("store: FerretDB on %s; TELEGRAM_RATE_LIMIT=%g; fake at Telegram's limits; %d chats in cards mode (%d of them subscribe %v after the start); %d updates, one every %v",
		testenv.DevDBHandler(), s.Config.TelegramRateLimit, n, late, lateAt, updates, every)
	const firstChat, firstLate = 1_000_000, 2_000_000
	seedSubscribersWith(b, s, firstChat, n-late, store.Settings{Mode: store.ModeCards})
	s.StartWorker(b)
	s.WaitForBaseline(b)

	var mu sync.Mutex
	maxOpen := 0
	stopSampling := make(chan struct{})
	sampled := make(chan struct{})
	start := time.Now()
	go func() { // the story's open deliveries and the progress, every 15 s
		defer close(sampled)
		for i := 0; ; i++ {
			select {
			case <-stopSampling:
				return
			case <-time.After(15 * time.Second):
			}
			open := len(s.Deliveries(b, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING))
			mu.Lock()
			maxOpen = max(maxOpen, open)
			mu.Unlock()
			if i%4 == 3 {
				load, _ := os.ReadFile("/proc/loadavg")
				fmt.Fprintf(os.Stderr, "PROGRESS at %s, %v after the start: %d messages, %d edits, %d 429s, %d deliveries open; load %s\n",
					time.Now().UTC().Format("15:04:05"), time.Since(start).Round(time.Second), s.Telegram.MessageCount(),
					len(s.Telegram.Edits()), s.Telegram.TooManyCount(), open, strings.TrimSpace(string(load)))
			}
		}
	}()

	b.ResetTimer()
	body := func(i int) string { return fmt.Sprintf("Update %02d of the incident.", i) }
	post := func(i int) time.Time {
		status := "investigating"
		switch {
		case i == updates:
			status = "monitoring"
		case i >= updates/2:
			status = "identified"
		}
		at := time.Now()
		s.Page.AddIncidentUpdate("incnews10k", "Elevated errors on the API", status, "major", fmt.Sprintf("upd%05d", i), body(i))
		s.TriggerPoll(b)
		return at
	}
	postedAt := []time.Time{post(0)}
	var joinedAt time.Time
	for i := 1; i <= updates; i++ {
		next := start.Add(time.Duration(i) * every)
		if late > 0 && joinedAt.IsZero() && !start.Add(lateAt).After(next) {
			time.Sleep(time.Until(start.Add(lateAt)))
			joinedAt = time.Now()
			seedMoreSubscribers(b, s, firstLate, late, store.Settings{Mode: store.ModeCards})
			b.Logf("%d chats subscribed %v after the start", late, time.Since(start).Round(time.Second))
		}
		time.Sleep(time.Until(next))
		postedAt = append(postedAt, post(i))
	}
	last, final := postedAt[updates], body(updates)
	chats := make([]int64, 0, n)
	for i := range n - late {
		chats = append(chats, firstChat+int64(i))
	}
	for i := range late {
		chats = append(chats, firstLate+int64(i))
	}
	showing := func() map[int64]time.Time { // chat: when its card first showed the last update
		at := map[int64]time.Time{}
		for _, e := range s.Telegram.Edits() {
			if _, ok := at[e.ChatID]; !ok && e.Method == "editMessageText" && strings.Contains(e.Text, final) {
				at[e.ChatID] = e.At
			}
		}
		for _, m := range s.Telegram.Messages() { // a card posted with it, never edited to it
			if _, ok := at[m.ChatID]; !ok && m.ReplyTo == 0 && strings.Contains(m.Text, final) {
				at[m.ChatID] = m.At
			}
		}
		return at
	}
	deadline := last.Add(watch)
	var shown map[int64]time.Time
	for {
		shown = showing()
		if len(shown) >= n || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Second)
	}
	b.StopTimer()
	close(stopSampling)
	<-sampled

	msgs, edits := s.Telegram.Messages(), s.Telegram.Edits()
	perChat := map[int64]*struct{ msgs, calls int }{}
	cardAt := map[int64]time.Time{}
	var calls []time.Time
	for _, m := range msgs {
		c := cmp.Or(perChat[m.ChatID], &struct{ msgs, calls int }{})
		perChat[m.ChatID] = c
		c.msgs++
		c.calls++
		calls = append(calls, m.At)
		if _, ok := cardAt[m.ChatID]; !ok && m.ReplyTo == 0 {
			cardAt[m.ChatID] = m.At
		}
	}
	for _, e := range edits {
		if c := perChat[e.ChatID]; c != nil {
			c.calls++
		}
		calls = append(calls, e.At)
	}
	var toFinal, startWait, lateWait []time.Duration
	var msgsPer, callsPer []int
	missing := 0
	for i, chat := range chats {
		if at, ok := shown[chat]; ok {
			toFinal = append(toFinal, at.Sub(last))
		} else {
			missing++
		}
		if at, ok := cardAt[chat]; ok {
			if i < n-late {
				startWait = append(startWait, at.Sub(postedAt[0]))
			} else {
				lateWait = append(lateWait, at.Sub(joinedAt))
			}
		}
		c := cmp.Or(perChat[chat], &struct{ msgs, calls int }{})
		msgsPer, callsPer = append(msgsPer, c.msgs), append(callsPer, c.calls)
	}
	slices.Sort(toFinal)
	slices.Sort(startWait)
	slices.Sort(lateWait)
	busiest := fakes.Busiest(calls, time.Second)
	mu.Lock()
	open := maxOpen
	mu.Unlock()
	target := time.Duration(1.2 * 2 * float64(n) / s.Config.TelegramRateLimit * float64(time.Second))

	// The machine's load sets the rate the pipeline reaches; the calls made
	// from the last update to the last chat showing it do not depend on it:
	// the target in calls is 1.2 x 2n.
	lastChat, callsAfter := "not reached", 0
	var lastShown time.Time
	if missing == 0 {
		lastChat = toFinal[len(toFinal)-1].Round(time.Second).String()
		lastShown = last.Add(toFinal[len(toFinal)-1])
		b.ReportMetric(toFinal[len(toFinal)-1].Seconds(), "last_update_to_last_chat_s")
	}
	for _, c := range calls {
		if c.After(last) && (lastShown.IsZero() || !c.After(lastShown)) {
			callsAfter++
		}
	}
	b.ReportMetric(float64(callsAfter), "calls_after_last_update")
	b.ReportMetric(float64(n-missing), "chats_showing_final")
	b.ReportMetric(meanInt(msgsPer), "msgs/chat")
	b.ReportMetric(meanInt(callsPer), "calls/chat")
	b.ReportMetric(float64(open), "open_deliveries_max")
	b.Logf("RESULT news chats=%d updates=%d every=%v: last update to the last chat showing it: %s (target %v); "+
		"%d of %d chats show it within %v (p50 %s, p90 %s)",
		n, updates, every, lastChat, target, n-missing, n, watch, pct(toFinal, 0.5), pct(toFinal, 0.9))
	b.Logf("RESULT news Bot API calls from the last update to the last chat showing it (or to the end of the watch): %d (target 1.2 x 2 x %d = %d); "+
		"%.2f calls/s over them", callsAfter, n, int(2.4*float64(n)), float64(callsAfter)/max(cmp.Or(lastShown, time.Now()).Sub(last).Seconds(), 1))
	b.Logf("RESULT news per chat: messages mean %.2f, max %d; Bot API calls (messages and edits) mean %.2f, max %d; "+
		"%d calls in all, %.2f calls/s from the first update to the last call, busiest second %d, 429s %d; most deliveries of the story open at once (sampled every 15 s) %d",
		meanInt(msgsPer), slices.Max(msgsPer), meanInt(callsPer), slices.Max(callsPer), len(calls),
		float64(len(calls))/slices.MaxFunc(calls, func(a, b time.Time) int { return a.Compare(b) }).Sub(postedAt[0]).Seconds(),
		busiest, s.Telegram.TooManyCount(), open)
	b.Logf("RESULT news the story's start: chats subscribed at the start got the card %s (p50) / %s (max) after it; "+
		"the %d chats that subscribed %v later, missing the start, got it %s (p50) / %s (max) after they subscribed (%d of them by the end)",
		pct(startWait, 0.5), pct(startWait, 1), late, lateAt, pct(lateWait, 0.5), pct(lateWait, 1), len(lateWait))
	if missing == 0 && toFinal[len(toFinal)-1] > target {
		b.Logf("RESULT news target missed: %v > %v", toFinal[len(toFinal)-1].Round(time.Second), target)
	}
}

// seedMoreSubscribers adds n subscribers first.. to those already seeded.
func seedMoreSubscribers(b *testing.B, s *testenv.Stack, first int64, n int, settings store.Settings) {
	b.Helper()
	for i := range n {
		key := store.SubscriberKey(first+int64(i), 0)
		if _, err := s.Store.Subscribe(context.Background(), first+int64(i), 0, time.Now()); err != nil {
			b.Fatal(err)
		}
		if err := s.Store.ReplaceSettings(context.Background(), key, settings); err != nil {
			b.Fatal(err)
		}
	}
}

func meanInt(xs []int) float64 {
	t := 0
	for _, x := range xs {
		t += x
	}
	return float64(t) / float64(max(len(xs), 1))
}

// pct is the q-quantile of sorted ds, rounded to a second ("-" for none).
func pct(ds []time.Duration, q float64) string {
	if len(ds) == 0 {
		return "-"
	}
	return ds[min(int(q*float64(len(ds))), len(ds)-1)].Round(time.Second).String()
}
