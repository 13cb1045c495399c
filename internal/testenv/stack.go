package testenv

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/worker"
	"github.com/openai-status-bot/statusbot/workflows"
)

// Namespaces created with the dev server; each Stack takes one, so that
// tests (and their Schedules) never see each other.
const namespacePool = 96

var (
	devOnce   sync.Once
	devServer *testsuite.DevServer
	devErr    error
	nsMu      sync.Mutex
	nsNext    int
)

// SinglePartition gives every task queue one partition, as compose.yml does
// for the send queue: TaskQueueActivitiesPerSecond is enforced per partition.
var SinglePartition = []string{
	"--dynamic-config-value", "matching.numTaskqueueReadPartitions=1",
	"--dynamic-config-value", "matching.numTaskqueueWritePartitions=1",
}

// TestToken is the bot token the fakes expect.
const TestToken = "123456789:AAtestTOKENsecretPART_abcdefghijklmn"

// DevServer starts the Temporal dev server (bin/temporal or $TEMPORAL_BIN)
// once per test binary and returns its frontend address.
func DevServer(t testing.TB) string {
	t.Helper()
	bin, ok := Binary("temporal", "TEMPORAL_BIN")
	if !ok {
		t.Skipf("Temporal CLI not found at %s: run `make tools` (or set TEMPORAL_BIN) to run this test", bin)
	}
	devOnce.Do(func() {
		args := append([]string{"--dynamic-config-value", "frontend.enableUpdateWorkflowExecution=true"}, SinglePartition...)
		for i := 0; i < namespacePool; i++ {
			args = append(args, "--namespace", fmt.Sprintf("itest%d", i))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		devServer, devErr = testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
			ExistingPath: bin,
			LogLevel:     "error",
			ExtraArgs:    args,
			Stdout:       io.Discard,
			Stderr:       io.Discard,
		})
	})
	if devErr != nil {
		t.Fatalf("start Temporal dev server: %v", devErr)
	}
	return devServer.FrontendHostPort()
}

// Stack is one test's world: real Temporal and FerretDB, fake Telegram
// and Statuspage servers, and the configuration pointing at them.
type Stack struct {
	Config   *config.Config
	Store    *store.Store
	Temporal client.Client
	Telegram *fakes.Telegram
	Page     *fakes.Statuspage
	// IO is the incident.io fake when the stack serves one (Provider
	// "incidentio"); STATUSPAGE_URL then points at it.
	IO  *fakes.IncidentIO
	Log *slog.Logger
}

// NewStack starts (or reuses) the servers and fakes for one test.
func NewStack(t testing.TB, pollInterval time.Duration) *Stack {
	t.Helper()
	return NewStackWith(t, pollInterval, StackOptions{})
}

func (s *Stack) deleteSchedule() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.Temporal.ScheduleClient().GetHandle(ctx, workflows.ScheduleID).Delete(ctx)
	for _, p := range s.Config.Pages {
		_ = s.Temporal.ScheduleClient().GetHandle(ctx, workflows.PageScheduleID(p.Name)).Delete(ctx)
	}
}

// StartWorker runs the worker in this process until the returned stop is
// called (or the test ends).
func (s *Stack) StartWorker(t testing.TB) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- worker.Run(ctx, s.Config, s.Temporal, s.Store, s.Log) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("worker: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

var (
	buildOnce sync.Once
	buildPath string
	buildErr  error
)

// StatusbotBinary builds cmd/statusbot once per test binary.
func StatusbotBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "statusbot-bin-")
		if err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(dir, "statusbot")
		cmd := exec.Command("go", "build", "-o", buildPath, "./cmd/statusbot")
		cmd.Dir = RepoRoot()
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildPath
}

// Env is the configuration as environment variables.
func (s *Stack) Env() []string {
	c := s.Config
	return append(os.Environ(),
		"TELEGRAM_BOT_TOKEN="+c.TelegramBotToken, "TELEGRAM_API_URL="+c.TelegramAPIURL, "STATUSPAGE_URL="+c.StatuspageURL, "STATUSPAGE_PROVIDER="+c.StatuspageProvider, "STATUS_PAGES="+c.StatusPages,
		"MONGODB_URI="+c.MongoDBURI, "MONGODB_DATABASE="+c.MongoDBDatabase, "TEMPORAL_ADDRESS="+c.TemporalAddress,
		"TEMPORAL_NAMESPACE="+c.TemporalNamespace, "TEMPORAL_TASK_QUEUE="+c.TemporalTaskQueue,
		"POLL_INTERVAL="+c.PollInterval.String(), "HTTP_TIMEOUT="+c.HTTPTimeout.String(),
		fmt.Sprintf("TELEGRAM_RATE_LIMIT=%g", c.TelegramRateLimit), "HEALTH_ADDR=127.0.0.1:0", "METRICS_ADDR=127.0.0.1:0", "LOG_LEVEL=warn")
}

// StartWorkerProcess runs `statusbot worker` as a separate process, so a
// test can kill it with SIGKILL.
func (s *Stack) StartWorkerProcess(t testing.TB, log io.Writer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(StatusbotBinary(t), "worker")
	cmd.Env = s.Env()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_, _ = cmd.Process.Wait()
		}
	})
	return cmd
}

// WaitFor polls cond until it holds or the deadline passes.
func WaitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitForBaseline waits until the first poll has recorded the baseline.
func (s *Stack) WaitForBaseline(t testing.TB) {
	t.Helper()
	WaitFor(t, 60*time.Second, "the first poll's baseline", func() bool {
		cp, err := s.Store.LoadCheckpoint(context.Background())
		return err == nil && cp.Baseline
	})
}

// Deliveries lists delivery workflows of this stack's namespace.
func (s *Stack) Deliveries(t testing.TB, status enumspb.WorkflowExecutionStatus) []string {
	t.Helper()
	q := "WorkflowType = 'DeliveryWorkflow'"
	if status != enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED {
		q += " AND ExecutionStatus = '" + strings.TrimPrefix(status.String(), "") + "'"
	}
	resp, err := s.Temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range resp.GetExecutions() {
		ids = append(ids, e.GetExecution().GetWorkflowId())
	}
	return ids
}

// TriggerPoll runs the poll now. A poll still running (the baseline's,
// say) would make the Schedule's overlap policy (skip) drop the trigger:
// it is buffered to run right after instead.
func (s *Stack) TriggerPoll(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := s.Temporal.ScheduleClient().GetHandle(ctx, workflows.ScheduleID).Trigger(ctx,
		client.ScheduleTriggerOptions{Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE})
	if err != nil {
		t.Fatalf("trigger the poll: %v", err)
	}
}
