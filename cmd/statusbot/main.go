// Command statusbot runs the OpenAI status Telegram bot.
//
//	statusbot worker       Temporal worker: poll Schedule, poll and delivery workflows
//	statusbot bot          Telegram command handler (long polling)
//	statusbot all          both in one process
//	statusbot deliveries   list deliveries in progress, backing off or failed
//	statusbot healthcheck  exit 0 when GET /readyz on HEALTH_ADDR answers 200
//	statusbot check-config exit 0 when the configuration is valid
//	statusbot import       copy the previous bot's subscribers (--from-mongo URI)
//	statusbot version      print the version stamped at build time
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	"golang.org/x/sync/errgroup"

	"github.com/openai-status-bot/statusbot/internal/bot"
	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/health"
	"github.com/openai-status-bot/statusbot/internal/logging"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/worker"
)

const usage = `usage: statusbot <command>

commands:
  worker        run the Temporal worker (poll Schedule, poll and delivery workflows)
  bot           run the Telegram command handler (long polling)
  all           run both in one process
  deliveries    list deliveries that are in progress, backing off or failed
  healthcheck   exit 0 when GET http://$HEALTH_ADDR/readyz answers 200
  check-config  exit 0 when the configuration is valid (secrets files included)
  import        copy the previous bot's subscribers: import --from-mongo URI [--database NAME] [--dry-run] [--verify]
  version       print the version

Configuration comes from the environment; see .env.example.`

// version is stamped at build time: -ldflags "-X main.version=v1.2.3".
var version = "dev"

func main() {
	if len(os.Args) >= 2 && os.Args[1] == "import" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := importCommand(ctx, os.Args[2:], os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	cmd := os.Args[1]
	if cmd == "version" || cmd == "--version" {
		fmt.Println("statusbot", version, runtime.Version())
		return
	}
	if cmd == "healthcheck" {
		addr := os.Getenv("HEALTH_ADDR")
		if addr == "" {
			addr = "127.0.0.1:8080"
		}
		if err := health.Probe(addr); err != nil {
			fmt.Fprintln(os.Stderr, "statusbot healthcheck:", err)
			os.Exit(1)
		}
		return
	}
	if cmd != "worker" && cmd != "bot" && cmd != "all" && cmd != "deliveries" && cmd != "check-config" {
		fmt.Fprintf(os.Stderr, "statusbot: unknown command %q\n\n%s\n", cmd, usage)
		os.Exit(2)
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "statusbot:", err)
		os.Exit(2)
	}
	if cmd == "check-config" {
		fmt.Println("statusbot: configuration is valid")
		return
	}
	log := logging.New(os.Stderr, cfg.LogLevel, cfg.TelegramBotToken, cfg.MongoDBURI, cfg.TemporalAPIKey)
	slog.SetDefault(log)
	log.Info("statusbot starting", "version", version, "command", cmd, "go", runtime.Version(),
		"health_addr", cfg.HealthAddr, "metrics_addr", cfg.MetricsAddr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cmd, cfg, log); err != nil {
		log.Error("statusbot stopped", "command", cmd, "error", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cmd string, cfg *config.Config, log *slog.Logger) error {
	if cmd == "deliveries" {
		return listDeliveries(ctx, cfg, log, os.Stdout)
	}
	hs := health.New(cfg.HealthAddr)
	st, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer func() {
		if err := st.Close(10 * time.Second); err != nil {
			log.Warn("mongodb disconnect", "error", err)
		}
	}()
	hs.AddCheck("mongodb", st.Ping)

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return hs.Run(gctx) })
	if cfg.MetricsAddr != "" {
		ms := metrics.NewServer(cfg.MetricsAddr)
		g.Go(func() error { return ms.Run(gctx) })
	}
	if cmd == "worker" || cmd == "all" {
		c, err := worker.Dial(cfg, log)
		if err != nil {
			return err
		}
		defer c.Close()
		offer, changes, err := st.ResolvePages(ctx, cfg.Pages, time.Now())
		if err != nil {
			return err
		}
		worker.LogPageChanges(log, offer, changes)
		watchWorker(cfg, hs, st.PageDocs(offer.EventPage(primaryPage(offer))), c)
		// Workers started with different STATUS_PAGES say so (store.PagesAgree).
		hs.AddCheck("pages", func(ctx context.Context) error { return st.PagesAgree(ctx, cfg.Pages) })
		g.Go(func() error { return worker.Run(gctx, cfg, c, st, log) })
	}
	if cmd == "bot" || cmd == "all" {
		metrics.ServeBot()
		g.Go(func() error { return bot.Run(gctx, cfg, st, hs, log) })
	} else {
		hs.SetReady()
	}
	return g.Wait()
}

// primaryPage is the page the worker's readiness and last-poll metric
// judge by: the legacy page while it is listed, else the default page.
// Another page that is down shows in its own poll's failures, and never
// takes the worker out of rotation (docs/pages.md).
func primaryPage(o pages.Offer) string {
	if _, ok := o.Find(o.Legacy); ok {
		return o.Legacy
	}
	return o.Default().Name
}

// watchWorker adds the worker's readiness check (a recent poll of the
// primary page) and its scrape-time metrics (the last poll, deliveries
// backing off).
func watchWorker(cfg *config.Config, hs *health.Server, st store.PageDocs, c client.Client) {
	lastPoll := func(ctx context.Context) (time.Time, error) {
		snap, err := st.LatestSnapshot(ctx)
		if err != nil || snap == nil {
			return time.Time{}, err
		}
		return snap.FetchedAt, nil
	}
	hs.AddCheck("last_poll", func(ctx context.Context) error {
		at, err := lastPoll(ctx)
		if err != nil {
			return err
		}
		if at.IsZero() || time.Since(at) > 3*cfg.PollInterval {
			return errors.New("no successful poll in the last three poll intervals")
		}
		return nil
	})
	hs.AddCheck("status_page_parts", func(ctx context.Context) error {
		return blindSpots(ctx, st, 3*cfg.PollInterval, time.Now())
	})
	metrics.WatchLastPoll(lastPoll)
	metrics.WatchBackingOff(backingOffDeliveries(c))
}

// openStore retries while MongoDB starts (compose, make run).
func openStore(ctx context.Context, cfg *config.Config, log *slog.Logger) (*store.Store, error) {
	var lastErr error
	for attempt := 1; attempt <= 10; attempt++ {
		st, err := store.Open(ctx, cfg.MongoDBURI, cfg.MongoDBDatabase)
		if err == nil {
			return st, nil
		}
		lastErr = err
		log.Warn("mongodb not reachable yet", "attempt", attempt, "error", err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(attempt) * time.Second):
		}
	}
	return nil, lastErr
}

// blindSpots fails when a part of the status page has been unreadable for
// longer than after: the bot is blind there even though polls succeed.
func blindSpots(ctx context.Context, st store.PageDocs, after time.Duration, now time.Time) error {
	parts, err := st.FailingParts(ctx)
	if err != nil {
		return err
	}
	var blind []string
	for _, p := range parts {
		if now.Sub(p.Since) >= after {
			blind = append(blind, fmt.Sprintf("%s unreadable since %s (%s)", p.Part, p.Since.UTC().Format(time.RFC3339), p.Err))
		}
	}
	if len(blind) > 0 {
		return errors.New(strings.Join(blind, "; "))
	}
	return nil
}
