package worker_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// scrape reads a Prometheus text exposition into series -> value.
func scrape(t *testing.T, addr string) (map[string]float64, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	series := map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(string(body)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		require.NoError(t, err, line)
		series[line[:i]] = v
	}
	return series, string(body)
}

// A `statusbot worker` process serves /metrics: the Temporal SDK's series
// and the bot's own, with values that match what happened (three messages
// sent, one 429 with its retry_after, a successful poll a moment ago), and
// neither the token nor the MongoDB URI anywhere in the scrape.
func TestWorkerProcessServesMetrics(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, 2*time.Second)
	ctx := context.Background()
	for _, chat := range []int64{111, -222, 333} {
		_, err := s.Store.Subscribe(ctx, chat, 0, time.Now())
		require.NoError(t, err)
	}
	s.Telegram.FailChat(333, func(attempt int) *fakes.APIError {
		if attempt == 1 {
			return fakes.TooMany(2)
		}
		return nil
	})
	addr := testenv.FreeAddr(t)
	var logs testenv.LogBuffer
	cmd := exec.Command(testenv.StatusbotBinary(t), "worker")
	cmd.Env = append(s.Env(), "METRICS_ADDR="+addr)
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_, _ = cmd.Process.Wait()
		if t.Failed() {
			t.Logf("worker logs:\n%s", logs.String())
		}
	})
	s.WaitForBaseline(t)
	s.Page.SetComponent("api0000001", "API", "major_outage")
	testenv.WaitFor(t, 90*time.Second, "three deliveries", func() bool { return len(s.Telegram.Messages()) >= 3 })

	var m map[string]float64
	var body string
	testenv.WaitFor(t, 30*time.Second, "the counters to settle", func() bool {
		m, body = scrape(t, addr)
		return m[`statusbot_telegram_sends_total{outcome="sent"}`] >= 3
	})
	require.Equal(t, 1.0, m[`statusbot_telegram_sends_total{outcome="rate_limited"}`], "one 429")
	require.Equal(t, 1.0, m[`statusbot_telegram_retry_after_seconds_count`])
	require.Equal(t, 2.0, m[`statusbot_telegram_retry_after_seconds_sum`], "retry_after as Telegram sent it")
	require.GreaterOrEqual(t, m[`statusbot_events_detected_total{kind="component"}`], 1.0)
	require.GreaterOrEqual(t, m[`statusbot_polls_total{result="ok"}`], 2.0)
	lastPoll := m[`statusbot_last_successful_poll_timestamp_seconds`]
	require.InDelta(t, float64(time.Now().Unix()), lastPoll, 30, "the latest poll is recent")
	require.Contains(t, m, `statusbot_deliveries_backing_off`)
	require.Contains(t, m, `statusbot_oldest_backing_off_delivery_start_timestamp_seconds`)

	// The Temporal SDK's own series, tagged with our task queue (the SDK's
	// Prometheus naming turns '-' into '_').
	queue := strings.ReplaceAll(s.Config.TemporalTaskQueue, "-", "_")
	sdk := 0
	for k, v := range m {
		if strings.HasPrefix(k, "temporal_") && strings.Contains(k, `task_queue="`+queue) && v > 0 {
			sdk++
		}
	}
	require.Greater(t, sdk, 0, "SDK series present:\n%s", body)
	require.Contains(t, body, "\ntemporal_activity_execution_latency_seconds_count{")
	require.Contains(t, body, `activity_type="Send"`)
	require.Contains(t, body, "\ntemporal_workflow_completed_total{")

	secret := testenv.TestToken[strings.IndexByte(testenv.TestToken, ':')+1:]
	require.NotContains(t, body, secret, "the token never reaches a metric")
	require.NotContains(t, body, s.Config.MongoDBURI, "nor the MongoDB URI")
	require.NotContains(t, body, "mongodb://")
}
