package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Gauges read from MongoDB and Temporal visibility when Prometheus scrapes,
// so that every replica reports the state of the whole deployment, and a
// restarted process reports it at once. Results are cached for cacheFor:
// several scrapers cost one lookup.
const (
	cacheFor       = 15 * time.Second
	collectTimeout = 5 * time.Second
)

var (
	lastPollDesc = prometheus.NewDesc("statusbot_last_successful_poll_timestamp_seconds",
		"When the status page was last fetched in full (Unix time, from the latest snapshot in MongoDB); 0 before the first.", nil, nil)
	backingOffDesc = prometheus.NewDesc("statusbot_deliveries_backing_off",
		"Running deliveries whose DeliveryState is backing_off (from Temporal visibility).", nil, nil)
	oldestBackingOffDesc = prometheus.NewDesc("statusbot_oldest_backing_off_delivery_start_timestamp_seconds",
		"Start time (Unix) of the oldest running delivery that is backing off; 0 when none is.", nil, nil)
	lookupErrors = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "statusbot_metrics_lookup_errors_total",
		Help: "Scrape-time lookups that failed (the gauge keeps its last value), by lookup.",
	}, []string{"lookup"})
)

// LastPollFunc returns when the page was last fetched in full (zero: never).
type LastPollFunc func(ctx context.Context) (time.Time, error)

// BackingOffFunc returns how many deliveries back off and the oldest one's
// start (zero when none).
type BackingOffFunc func(ctx context.Context) (count int, oldestStart time.Time, err error)

type watcher struct {
	mu         sync.Mutex
	lastPoll   LastPollFunc
	backingOff BackingOffFunc

	at              time.Time
	lastPollAt      time.Time
	backingOffCount int
	oldestStart     time.Time
	havePoll, haveB bool
}

var watched = &watcher{}

func init() {
	Registry.MustRegister(watched, lookupErrors)
	lookupErrors.WithLabelValues("last_poll")
	lookupErrors.WithLabelValues("deliveries")
}

// WatchLastPoll exports statusbot_last_successful_poll_timestamp_seconds
// from fn (the worker's).
func WatchLastPoll(fn LastPollFunc) {
	watched.mu.Lock()
	defer watched.mu.Unlock()
	watched.lastPoll, watched.at = fn, time.Time{}
}

// WatchBackingOff exports the backing-off deliveries gauges from fn.
func WatchBackingOff(fn BackingOffFunc) {
	watched.mu.Lock()
	defer watched.mu.Unlock()
	watched.backingOff, watched.at = fn, time.Time{}
}

func (w *watcher) Describe(ch chan<- *prometheus.Desc) {
	ch <- lastPollDesc
	ch <- backingOffDesc
	ch <- oldestBackingOffDesc
}

func (w *watcher) Collect(ch chan<- prometheus.Metric) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if time.Since(w.at) >= cacheFor {
		w.refresh()
	}
	if w.havePoll {
		ch <- prometheus.MustNewConstMetric(lastPollDesc, prometheus.GaugeValue, unixSeconds(w.lastPollAt))
	}
	if w.haveB {
		ch <- prometheus.MustNewConstMetric(backingOffDesc, prometheus.GaugeValue, float64(w.backingOffCount))
		ch <- prometheus.MustNewConstMetric(oldestBackingOffDesc, prometheus.GaugeValue, unixSeconds(w.oldestStart))
	}
}

// refresh runs the lookups; a failed one keeps its last value.
func (w *watcher) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), collectTimeout)
	defer cancel()
	w.at = time.Now()
	if w.lastPoll != nil {
		if t, err := w.lastPoll(ctx); err != nil {
			lookupErrors.WithLabelValues("last_poll").Inc()
		} else {
			w.lastPollAt, w.havePoll = t, true
		}
	}
	if w.backingOff != nil {
		if n, oldest, err := w.backingOff(ctx); err != nil {
			lookupErrors.WithLabelValues("deliveries").Inc()
		} else {
			w.backingOffCount, w.oldestStart, w.haveB = n, oldest, true
		}
	}
}

func unixSeconds(t time.Time) float64 {
	if t.IsZero() {
		return 0
	}
	return float64(t.UnixNano()) / 1e9
}
