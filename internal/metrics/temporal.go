package metrics

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/uber-go/tally/v4"
	tallyprom "github.com/uber-go/tally/v4/prometheus"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	sdktally "go.temporal.io/sdk/contrib/tally"
	"go.temporal.io/sdk/interceptor"
)

var (
	temporalOnce    sync.Once
	temporalHandler client.MetricsHandler
)

// TemporalHandler is the client.Options.MetricsHandler of this process:
// the SDK's series (temporal_workflow_*, temporal_activity_*,
// temporal_request_*, ...) land in Registry. One scope per process however
// many clients are dialled (tests run several workers in one process).
func TemporalHandler() client.MetricsHandler {
	temporalOnce.Do(func() {
		reporter := tallyprom.NewReporter(tallyprom.Options{
			Registerer:       Registry,
			DefaultTimerType: tallyprom.HistogramTimerType,
			OnRegisterError: func(err error) {
				// A name registered twice with different labels: drop the
				// series rather than crash the worker.
				slog.Warn("metrics: temporal series not registered", "error", err)
			},
		})
		scope, _ := tally.NewRootScope(tally.ScopeOptions{
			CachedReporter: reporter,
			Separator:      tallyprom.DefaultSeparator,
			// Label values too: '-' becomes '_' (task_queue="openai_status_bot").
			SanitizeOptions: &sdktally.PrometheusSanitizeOptions,
			// The SDK's names already start with temporal_.
		}, time.Second)
		temporalHandler = sdktally.NewMetricsHandler(sdktally.NewPrometheusNamingScope(scope))
	})
	return temporalHandler
}

// Interceptor counts poll activities (DetectEvents) by result; add it to
// client.Options.Interceptors: the worker applies it to its activities.
func Interceptor() interceptor.ClientInterceptor { return &pollCounter{} }

type pollCounter struct{ interceptor.InterceptorBase }

func (pollCounter) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	return &pollActivity{ActivityInboundInterceptorBase: interceptor.ActivityInboundInterceptorBase{Next: next}}
}

type pollActivity struct {
	interceptor.ActivityInboundInterceptorBase
}

func (a *pollActivity) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (any, error) {
	res, err := a.Next.ExecuteActivity(ctx, in)
	if activity.GetInfo(ctx).ActivityType.Name == "DetectEvents" {
		if err != nil {
			polls.WithLabelValues("error").Inc()
		} else {
			polls.WithLabelValues("ok").Inc()
		}
	}
	return res, err
}
