package metrics_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

func scrape(t *testing.T) string {
	t.Helper()
	rec := httptest.NewRecorder()
	metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	b, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	return string(b)
}

// Label values come from fixed sets: whatever a user types as a command,
// or whatever text reaches an outcome, the series stay few and hold no
// input (a token pasted as a command must not become a label).
func TestLabelsComeFromFixedSets(t *testing.T) {
	const secret = "123456:AAsecretTOKENvalue"
	metrics.Command("status")()
	metrics.Command(secret)()
	metrics.Command("mongodb://user:pa55@db")()
	metrics.TelegramSend(secret, 0)
	metrics.TelegramSend("sent", 0)
	metrics.TelegramSend("rate_limited", 7*time.Second)
	metrics.EventsDetected([]event.Event{{Kind: event.KindIncident}, {Kind: event.Kind(secret)}})

	body := scrape(t)
	require.NotContains(t, body, "secret")
	require.NotContains(t, body, "pa55")
	require.Contains(t, body, `statusbot_command_duration_seconds_count{command="status"} 1`)
	require.Contains(t, body, `statusbot_command_duration_seconds_count{command="other"} 2`)
	require.Contains(t, body, `statusbot_telegram_sends_total{outcome="other"} 1`)
	require.Contains(t, body, `statusbot_telegram_retry_after_seconds_sum 7`)
	require.Contains(t, body, `statusbot_events_detected_total{kind="incident"} 1`)
	require.Contains(t, body, `statusbot_events_detected_total{kind="other"} 1`)
	require.Contains(t, body, `statusbot_polls_total{result="error"} 0`, "series exist before the first poll")
}

// Every outcome internal/telegram reports has its own series.
func TestEveryTelegramOutcomeIsKnown(t *testing.T) {
	for _, o := range []telegram.Outcome{telegram.Transient, telegram.RateLimited, telegram.Terminal, telegram.Migrated, telegram.Permanent} {
		require.Contains(t, scrape(t), `statusbot_telegram_sends_total{outcome="`+string(o)+`"}`)
	}
}

func TestUpdateLagAndLongPoll(t *testing.T) {
	metrics.ServeBot()
	metrics.LongPollSucceeded()
	metrics.UpdateReceived(&models.Update{Message: &models.Message{Date: int(time.Now().Add(-3 * time.Second).Unix())}})
	metrics.UpdateReceived(&models.Update{}) // no date: not observed
	body := scrape(t)
	require.Contains(t, body, "statusbot_update_lag_seconds_count 1")
	require.NotContains(t, body, "statusbot_long_poll_last_success_timestamp_seconds 0\n")
}

// The scrape-time gauges keep their last value when a lookup fails, and
// count the failure.
func TestWatchedGaugesKeepLastValueOnError(t *testing.T) {
	at := time.Unix(1_700_000_000, 0)
	metrics.WatchLastPoll(func(context.Context) (time.Time, error) { return at, nil })
	metrics.WatchBackingOff(func(context.Context) (int, time.Time, error) { return 2, at, nil })
	body := scrape(t)
	require.Contains(t, body, "statusbot_last_successful_poll_timestamp_seconds 1.7e+09")
	require.Contains(t, body, "statusbot_deliveries_backing_off 2")
	require.Contains(t, body, "statusbot_oldest_backing_off_delivery_start_timestamp_seconds 1.7e+09")

	// Watching anew drops the cache, as a new lookup after 15s would.
	before := lookupErrors(body)
	metrics.WatchLastPoll(func(context.Context) (time.Time, error) { return time.Time{}, errors.New("mongodb down") })
	body = scrape(t)
	require.Contains(t, body, "statusbot_last_successful_poll_timestamp_seconds 1.7e+09")
	// The registry gathers collectors concurrently: the counter the failed
	// lookup incremented may be read before the increment, so read again
	// (the cached gauges do not run the lookup a second time).
	require.Equal(t, before+1, lookupErrors(scrape(t)), "one failed lookup counted")
}

// lookupErrors reads the last_poll lookup error counter (0 when absent):
// the registry is global, so tests compare counts, not absolute values.
func lookupErrors(body string) int {
	m := regexp.MustCompile(`statusbot_metrics_lookup_errors_total\{lookup="last_poll"\} (\d+)`).FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func TestServerServesMetricsOnly(t *testing.T) {
	s := metrics.NewServer("127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	for s.Addr() == "" {
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Get("http://" + s.Addr() + "/metrics")
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.True(t, strings.Contains(string(b), "go_goroutines"))
	resp, err = http.Get("http://" + s.Addr() + "/debug/pprof/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	// A busy port fails with what to do about it.
	err = metrics.NewServer(s.Addr()).Run(context.Background())
	require.ErrorContains(t, err, "METRICS_ADDR "+s.Addr())
	require.ErrorContains(t, err, "to nothing to turn metrics off")

	cancel()
	require.NoError(t, <-done)
}

// A worker-only process has no long-poll series (its 0 made
// StatusbotLongPollStalled fire for ever on worker targets); the bot's
// starts at 0 until getUpdates answers. A fresh process each, as the
// registry is global.
func TestLongPollGaugeOnlyInTheBot(t *testing.T) {
	if role := os.Getenv("METRICS_TEST_ROLE"); role != "" {
		if role == "bot" {
			metrics.ServeBot()
		}
		os.Stdout.WriteString(scrape(t))
		return
	}
	for role, want := range map[string]bool{"worker": false, "bot": true} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLongPollGaugeOnlyInTheBot$")
		cmd.Env = append(os.Environ(), "METRICS_TEST_ROLE="+role)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.Equal(t, want, strings.Contains(string(out), "statusbot_long_poll_last_success_timestamp_seconds 0"), role)
	}
}
