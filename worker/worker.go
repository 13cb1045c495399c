// Package worker wires the Temporal worker: client, search attributes,
// the poll Schedule, and the two task queues (pipeline and rate-limited sends).
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/contrib/envconfig"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
	"github.com/openai-status-bot/statusbot/workflows"
)

// Dial connects to Temporal.
func Dial(cfg *config.Config, log *slog.Logger) (client.Client, error) {
	opts, err := ClientOptions(cfg)
	if err != nil {
		return nil, err
	}
	opts.Logger = sdklog.NewStructuredLogger(log)
	// SDK metrics and the poll counter, served on METRICS_ADDR.
	opts.MetricsHandler = metrics.TemporalHandler()
	opts.Interceptors = append(opts.Interceptors, metrics.Interceptor())
	c, err := client.Dial(opts)
	if err != nil {
		return nil, fmt.Errorf("temporal: connect to TEMPORAL_ADDRESS %s: %w", cfg.TemporalAddress, err)
	}
	return c, nil
}

// ClientOptions applies the SDK's standard client environment configuration
// (go.temporal.io/sdk/contrib/envconfig): TEMPORAL_TLS, TEMPORAL_TLS_CLIENT_CERT_PATH,
// TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_SERVER_CA_CERT_PATH, TEMPORAL_TLS_SERVER_NAME, ...,
// TEMPORAL_GRPC_META_*, TEMPORAL_CONFIG_FILE and TEMPORAL_PROFILE, so mTLS
// and Temporal Cloud work as with every Temporal tool. Address, namespace and
// API key come from cfg (TEMPORAL_API_KEY_FILE included); an API key turns
// TLS on.
func ClientOptions(cfg *config.Config) (client.Options, error) {
	opts, err := envconfig.LoadClientOptions(envconfig.LoadClientOptionsRequest{EnvLookup: cfgEnv{cfg}})
	if err != nil {
		return client.Options{}, fmt.Errorf("temporal: client configuration (TEMPORAL_TLS_*, TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE): %w", err)
	}
	return opts, nil
}

// cfgEnv is the process environment with the values cfg already resolved.
type cfgEnv struct{ cfg *config.Config }

func (e cfgEnv) Environ() []string { return os.Environ() }

func (e cfgEnv) LookupEnv(key string) (string, bool) {
	switch key {
	case "TEMPORAL_ADDRESS":
		return e.cfg.TemporalAddress, true
	case "TEMPORAL_NAMESPACE":
		return e.cfg.TemporalNamespace, true
	case "TEMPORAL_API_KEY":
		return e.cfg.TemporalAPIKey, e.cfg.TemporalAPIKey != ""
	}
	return os.LookupEnv(key)
}

// DrainTimeout is how long a stopping worker lets its in-flight activities
// finish: longer than a send normally takes (HTTP_TIMEOUT, 10s by default),
// shorter than the grace period the
// orchestrator gives before SIGKILL (compose: stop_grace_period 35s).
const DrainTimeout = 25 * time.Second

// Run registers everything, ensures the Schedule and works until ctx ends.
func Run(ctx context.Context, cfg *config.Config, c client.Client, st *store.Store, log *slog.Logger) error {
	if err := RegisterSearchAttributes(ctx, c, cfg.TemporalNamespace); err != nil {
		return err
	}
	// TELEGRAM_RATE_LIMIT counts Bot API calls. A delivery's Send makes
	// one (activities/calls.go), so the send queue's limit below counts
	// calls across every worker, and the chat's turn is taken in MongoDB;
	// the sender's own pacing is for the Sends of deliveries started
	// before that (a card update in one Send).
	sender, err := telegram.NewSender(cfg.TelegramAPIURL, cfg.TelegramBotToken, cfg.HTTPTimeout,
		telegram.CallsPerSecond(cfg.TelegramRateLimit), telegram.PaidBroadcast(cfg.TelegramPaidBroadcast))
	if err != nil {
		return err
	}
	offer, changes, err := st.ResolvePages(ctx, cfg.Pages, time.Now())
	if err != nil {
		return err
	}
	LogPageChanges(log, offer, changes)
	fetchers, err := pageFetchers(cfg, offer, st.Providers(), log)
	if err != nil {
		return err
	}
	pace := newCadences(c, cfg, offer)
	acts := &activities.Activities{
		Store: st, Page: fetchers[offer.Legacy], Fetchers: fetchers, Pages: offer, Telegram: sender, Temporal: c,
		BlindAfter: 3 * cfg.PollInterval, Cadence: pace.Set, Budget: st.NewSendBudget(cfg.TelegramRateLimit, time.Now),
		Reminders: newReminderSync(c, cfg).Sync,
		StartSummary: func(ctx context.Context, in activities.SummaryInput) error {
			return StartSummary(ctx, c, cfg.TemporalTaskQueue, in)
		},
		DeliveryStarted: func(ctx context.Context, eventKey string) (bool, error) {
			_, err := c.DescribeWorkflow(ctx, workflows.DeliveryWorkflowID(eventKey), "")
			var nf *serviceerror.NotFound
			if errors.As(err, &nf) {
				return false, nil
			}
			return err == nil, err
		},
	}
	pipeline := worker.New(c, cfg.TemporalTaskQueue, worker.Options{WorkerStopTimeout: DrainTimeout, MaxHeartbeatThrottleInterval: HeartbeatFlush})
	pipeline.RegisterWorkflow(workflows.PollWorkflow)
	pipeline.RegisterWorkflow(workflows.DeliveryWorkflow)
	pipeline.RegisterWorkflow(workflows.MaintenanceWorkflow)
	pipeline.RegisterWorkflow(workflows.ReminderWorkflow)
	pipeline.RegisterWorkflow(workflows.SummaryWorkflow)
	pipeline.RegisterWorkflow(workflows.PageNoticeWorkflow)
	pipeline.RegisterActivity(acts)
	sends := worker.New(c, workflows.SendTaskQueue(cfg.TemporalTaskQueue), sendWorkerOptions(cfg.TelegramRateLimit))
	sends.RegisterActivity(acts)

	// Stopped in reverse order: the sends drain first (each finishes and
	// reports, instead of being cut and retried as a possible duplicate),
	// while the pipeline still records their results.
	if err := pipeline.Start(); err != nil {
		return fmt.Errorf("temporal: start worker: %w", err)
	}
	defer pipeline.Stop()
	if err := sends.Start(); err != nil {
		return fmt.Errorf("temporal: start send worker: %w", err)
	}
	defer sends.Stop()
	if err := EnsureSchedules(ctx, c, st, cfg, offer, changes); err != nil {
		return err
	}
	if err := EnsureMaintenanceSchedule(ctx, c, cfg); err != nil {
		return err
	}
	if err := StartPageNotices(ctx, c, st, cfg.TemporalTaskQueue); err != nil {
		return err
	}
	go watchPartitions(ctx, c, cfg.TemporalNamespace, workflows.SendTaskQueue(cfg.TemporalTaskQueue), log)
	names := make([]string, len(cfg.Pages))
	for i, p := range cfg.Pages {
		names[i] = p.Name
	}
	log.Info("worker running", "task_queue", cfg.TemporalTaskQueue, "poll_interval", cfg.PollInterval.String(),
		"poll_interval_active", cfg.ActivePollInterval().String(), "pages", names, "legacy_page", offer.Legacy)
	<-ctx.Done()
	return nil
}

// LogPageChanges says at start-up what changed in STATUS_PAGES against
// the pages recorded (by the first process to start with the new list),
// and whether this worker's list is the recorded one.
func LogPageChanges(log *slog.Logger, offer pages.Offer, ch store.PageChanges) {
	if ch.LegacyFound != "" {
		log.Info("legacy page recorded", "page", offer.Legacy, "found", ch.LegacyFound)
	}
	for _, c := range ch.Renamed {
		log.Info("status page renamed: everything carries over", "page", c.Name, "was", c.FromName, "host", hostOf(c.URL))
	}
	for _, c := range ch.Repointed {
		log.Info("status page pointed at another URL: a new page, baselined silently", "page", c.Name,
			"host", hostOf(c.URL), "was_host", hostOf(c.FromURL))
	}
	for _, c := range ch.Added {
		log.Info("status page added: its first poll baselines silently", "page", c.Name, "host", hostOf(c.URL))
	}
	for _, r := range ch.Removed {
		log.Info("status page no longer listed: its Schedule is deleted, its checkpoint dropped", "page", r.Name, "host", hostOf(r.URL))
	}
	switch {
	case ch.List.Stale:
		log.Warn("STATUS_PAGES differs from the page list recorded by a newer worker: this worker changes no Schedule and no page record",
			"recorded_version", ch.List.Version, "recorded_by", ch.List.By, "recorded_at", ch.List.At)
	case ch.List.Adopted:
		log.Info("page list recorded", "version", ch.List.Version)
	}
}

// RegisterSearchAttributes adds the custom search attributes that are
// missing; existing ones are left alone.
func RegisterSearchAttributes(ctx context.Context, c client.Client, namespace string) error {
	ops := c.OperatorService()
	have, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return fmt.Errorf("temporal: list search attributes: %w", err)
	}
	missing := map[string]enumspb.IndexedValueType{}
	for name, typ := range workflows.SearchAttributes() {
		if _, ok := have.GetCustomAttributes()[name]; !ok {
			missing[name] = typ
		}
	}
	if len(missing) == 0 {
		return nil
	}
	_, err = ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: namespace, SearchAttributes: missing})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return fmt.Errorf("temporal: register search attributes: %w", err)
	}
	return nil
}

// pageFetchers reads each listed page with its provider (auto: detected
// once per page for every worker, kept in MongoDB, and re-probed by one
// worker: statuspage.Auto.Shared).
func pageFetchers(cfg *config.Config, offer pages.Offer, shared statuspage.ProviderStore, log *slog.Logger) (map[string]statuspage.Fetcher, error) {
	out := make(map[string]statuspage.Fetcher, len(cfg.Pages))
	for _, p := range cfg.Pages {
		f, err := statuspage.New(p.Provider, p.URL, cfg.HTTPTimeout)
		if err != nil {
			return nil, fmt.Errorf("status page %s: %w", p.Name, err)
		}
		if auto, ok := f.(*statuspage.Auto); ok {
			auto.Shared, auto.Key = shared, offer.EventPage(p.Name)
			name := p.Name
			auto.OnChoose = func(provider string) {
				log.Info("status page provider chosen", "page", name, "provider", provider, "host", hostOf(p.URL))
			}
		}
		out[p.Name] = f
	}
	return out, nil
}

// hostOf is what logs and the Web UI show of a page's URL: its host, never
// a query or credentials.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(not shown)"
	}
	return u.Host
}

// scheduleSpec is a poll Schedule's spec as configured.
func scheduleSpec(cfg *config.Config) client.ScheduleSpec { return intervalSpec(cfg.PollInterval) }

// sendWindow is the sends a delivery keeps in flight at the configured
// rate: polls and reminders alike start their deliveries with it.
func sendWindow(cfg *config.Config) int { return workflows.SendWindowFor(cfg.TelegramRateLimit) }

// scheduleAction is a page's poll (eventPage "" for the legacy page).
func scheduleAction(cfg *config.Config, p pages.Page, eventPage string) *client.ScheduleWorkflowAction {
	return &client.ScheduleWorkflowAction{
		ID:                 workflows.PagePollWorkflowID(eventPage),
		Workflow:           workflows.PollWorkflow,
		Args:               []any{&workflows.PollInput{Page: p.Name, SendWindow: sendWindow(cfg)}},
		TaskQueue:          cfg.TemporalTaskQueue,
		WorkflowRunTimeout: PollRunTimeout(cfg.PollInterval),
		StaticSummary:      "Poll the status page " + p.Name + " (" + hostOf(p.URL) + ")",
	}
}

// PollRunTimeout bounds one poll. It is long on purpose: a poll whose
// deliveries have started keeps retrying its checkpoint commit through a
// MongoDB outage (later polls are skipped meanwhile, and could not work
// anyway); a run cut short there could miss a change that reverts.
func PollRunTimeout(interval time.Duration) time.Duration {
	return min(max(30*interval, 10*time.Minute), time.Hour)
}

// catchupWindow is about one interval (the server needs at least 10s).
func catchupWindow(interval time.Duration) time.Duration { return max(interval, 10*time.Second) }

// EnsureSchedules gives every listed page its own poll Schedule
// (statuspage-poll for the legacy page, statuspage-poll/<key> for the
// others: a renamed page keeps its Schedule), so a page that fails or
// hangs holds only its own polls. The Schedules of pages no longer listed
// are deleted and their checkpoints dropped (store.ForgetPage): listed
// again later, a page baselines afresh. A worker whose list the recorded
// one superseded (an older worker's settings) touches no Schedule.
func EnsureSchedules(ctx context.Context, c client.Client, st *store.Store, cfg *config.Config, offer pages.Offer, changes store.PageChanges) error {
	if changes.List.Stale {
		return nil
	}
	for _, p := range offer.List {
		if err := EnsureSchedule(ctx, c, cfg, p, offer.EventPage(p.Name)); err != nil {
			return err
		}
	}
	for _, gone := range changes.RemovedPages() {
		id := workflows.PageScheduleID(gone.Key)
		err := c.ScheduleClient().GetHandle(ctx, id).Delete(ctx)
		var nf *serviceerror.NotFound
		if err != nil && !errors.As(err, &nf) {
			return fmt.Errorf("temporal: delete schedule %s of a page no longer listed: %w", id, err)
		}
		// Its followers are told (once, by the notice's workflow) before
		// its record goes: a start-up cut short here records it again.
		n := changes.RemovedNotice(gone, time.Now())
		if n.Cards, err = st.OpenIncidents(ctx, gone.Key); err != nil {
			return err
		}
		if err := st.AddPageNotice(ctx, n); err != nil {
			return err
		}
		if err := st.ForgetPage(ctx, gone); err != nil {
			return err
		}
	}
	return nil
}

// StartPageNotices starts the workflow of every page notice not yet told
// to all its followers (a page repointed or removed: store.PageNotice), or
// finds it running: each worker does at start-up, so a notice recorded by
// a worker that stopped, or by the bot, is told all the same.
func StartPageNotices(ctx context.Context, c client.Client, st *store.Store, taskQueue string) error {
	notices, err := st.PendingPageNotices(ctx)
	if err != nil {
		return err
	}
	for _, n := range notices {
		_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID: workflows.PageNoticeWorkflowID(n.ID), TaskQueue: taskQueue,
			WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
			StaticSummary:            "Tell the followers of " + n.Name + " that it was " + n.Kind,
		}, workflows.PageNoticeWorkflow, activities.PageNoticeInput{Notice: n.ID})
		if err != nil {
			return fmt.Errorf("temporal: start the page notice of %s: %w", n.Name, err)
		}
	}
	return nil
}

// EnsureSchedule creates a page's poll Schedule, or updates its spec and
// action when it exists. A paused schedule stays paused.
func EnsureSchedule(ctx context.Context, c client.Client, cfg *config.Config, p pages.Page, eventPage string) error {
	id := workflows.PageScheduleID(eventPage)
	sc := c.ScheduleClient()
	_, err := sc.Create(ctx, client.ScheduleOptions{
		ID:                 id,
		Spec:               scheduleSpec(cfg),
		Action:             scheduleAction(cfg, p, eventPage),
		Overlap:            enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		CatchupWindow:      catchupWindow(cfg.PollInterval),
		TriggerImmediately: true,
		Note:               "Created by the statusbot worker",
	})
	if err == nil {
		return nil
	}
	var exists *serviceerror.AlreadyExists
	if !errors.Is(err, temporal.ErrScheduleAlreadyRunning) && !errors.As(err, &exists) {
		return fmt.Errorf("temporal: create schedule %s: %w", id, err)
	}
	h := sc.GetHandle(ctx, id)
	err = h.Update(ctx, client.ScheduleUpdateOptions{DoUpdate: func(in client.ScheduleUpdateInput) (*client.ScheduleUpdate, error) {
		s := in.Description.Schedule
		s.Spec = ptr(scheduleSpec(cfg))
		s.Action = scheduleAction(cfg, p, eventPage)
		if s.Policy == nil {
			s.Policy = &client.SchedulePolicies{}
		}
		s.Policy.Overlap = enumspb.SCHEDULE_OVERLAP_POLICY_SKIP
		s.Policy.CatchupWindow = catchupWindow(cfg.PollInterval)
		return &client.ScheduleUpdate{Schedule: &s}, nil
	}})
	if err != nil {
		return fmt.Errorf("temporal: update schedule %s: %w", id, err)
	}
	return nil
}

// MaintenanceInterval is how often expired data is pruned.
const MaintenanceInterval = time.Hour

// EnsureMaintenanceSchedule creates the Schedule of MaintenanceWorkflow
// when it is missing; an existing one (perhaps paused) is left alone.
func EnsureMaintenanceSchedule(ctx context.Context, c client.Client, cfg *config.Config) error {
	_, err := c.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:   workflows.MaintenanceScheduleID,
		Spec: client.ScheduleSpec{Intervals: []client.ScheduleIntervalSpec{{Every: MaintenanceInterval}}},
		Action: &client.ScheduleWorkflowAction{
			ID: workflows.MaintenanceWorkflowID, Workflow: workflows.MaintenanceWorkflow, Args: []any{workflows.MaintenanceInput{}},
			TaskQueue: cfg.TemporalTaskQueue, WorkflowRunTimeout: MaintenanceInterval, StaticSummary: "Prune expired ledger entries and history",
		},
		Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		Note:    "Created by the statusbot worker",
	})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.Is(err, temporal.ErrScheduleAlreadyRunning) && !errors.As(err, &exists) {
		return fmt.Errorf("temporal: create schedule %s: %w", workflows.MaintenanceScheduleID, err)
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// StartSummary starts the morning summary workflow of a held quiet window,
// or finds it running (the first held notice starts it, the others find
// it): one timer and one summary per window.
func StartSummary(ctx context.Context, c client.Client, taskQueue string, in activities.SummaryInput) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: workflows.SummaryWorkflowID(in), TaskQueue: taskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		StaticSummary:            "Morning summary of a chat's quiet hours",
		StaticDetails:            "Sends the notices held during quiet hours as one message at " + in.Window.UTC().Format("2006-01-02 15:04 MST") + ".",
	}, workflows.SummaryWorkflow, in)
	return err
}
