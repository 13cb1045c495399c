// Package metrics serves GET /metrics for Prometheus: the Temporal SDK's
// series (through its tally contrib) and the bot's own.
//
// Label values come only from fixed sets defined here (outcome, command,
// event kind, activity result): anything else maps to "other". No label or
// help text ever carries user input, a chat ID, the bot token or the MongoDB
// URI, so a secret cannot reach a scrape or the time series database.
package metrics

import (
	"sync"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/openai-status-bot/statusbot/internal/event"
)

// Registry holds every series this process exports.
var Registry = prometheus.NewRegistry()

var (
	polls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "statusbot_polls_total",
		Help: "Status page polls (DetectEvents activities) by result: ok or error.",
	}, []string{"result"})
	eventsDetected = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "statusbot_events_detected_total",
		Help: "Status page changes detected, by kind (component, incident, maintenance).",
	}, []string{"kind"})
	sends = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "statusbot_telegram_sends_total",
		Help: "Telegram sendMessage calls by outcome: sent, rate_limited, transient, terminal, migrated, permanent.",
	}, []string{"outcome"})
	retryAfterSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "statusbot_telegram_retry_after_seconds",
		Help:    "retry_after of Telegram's 429 answers.",
		Buckets: []float64{1, 2, 5, 10, 20, 30, 60, 120, 300},
	})
	commands = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "statusbot_command_duration_seconds",
		Help:    "Time to answer a bot command, by command (its _count is the commands answered).",
		Buckets: []float64{.05, .1, .25, .5, 1, 2, 5, 10, 30},
	}, []string{"command"})
	updateLag = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "statusbot_update_lag_seconds",
		Help:    "Age of a Telegram update when the long poll hands it over (its date to now).",
		Buckets: []float64{.1, .25, .5, 1, 2, 5, 10, 30, 60, 300},
	})
	longPollLast = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "statusbot_long_poll_last_success_timestamp_seconds",
		Help: "When getUpdates last answered (Unix time); 0 before the first answer.",
	})
)

func init() {
	Registry.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		polls, eventsDetected, sends, retryAfterSeconds, commands, updateLag,
	)
	// Series exist from the start at 0, so rate() and absent() work
	// before the first event.
	for _, r := range []string{"ok", "error"} {
		polls.WithLabelValues(r)
	}
	for _, k := range eventKinds {
		eventsDetected.WithLabelValues(k)
	}
	for _, o := range sendOutcomes {
		sends.WithLabelValues(o)
	}
}

var eventKinds = []string{string(event.KindComponent), string(event.KindIncident), string(event.KindMaintenance)}

// Outcomes of a send: "sent" and telegram.Outcome's values (internal/telegram
// reports them; a test keeps the two lists equal).
var sendOutcomes = []string{"sent", "rate_limited", "transient", "terminal", "migrated", "permanent", "entities_refused"}

// Commands the bot answers; any other name is counted as "other".
var knownCommands = map[string]bool{"start": true, "stop": true, "status": true, "components": true,
	"subscribe": true, "history": true, "uptime": true, "info": true, "help": true, "settings": true}

// oneOf returns v when allowed holds it, "other" otherwise.
func oneOf(v string, allowed []string) string {
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	return "other"
}

// EventsDetected counts the changes one poll found.
func EventsDetected(events []event.Event) {
	for _, e := range events {
		eventsDetected.WithLabelValues(oneOf(string(e.Kind), eventKinds)).Inc()
	}
}

// TelegramSend counts one sendMessage call by outcome ("sent" or a
// telegram.Outcome); retryAfter is the 429's wait.
func TelegramSend(outcome string, retryAfter time.Duration) {
	sends.WithLabelValues(oneOf(outcome, sendOutcomes)).Inc()
	if outcome == "rate_limited" {
		retryAfterSeconds.Observe(retryAfter.Seconds())
	}
}

// Command starts timing a bot command; call the result when it is
// answered: defer metrics.Command(name)().
func Command(name string) func() {
	if !knownCommands[name] {
		name = "other"
	}
	start := time.Now()
	return func() { commands.WithLabelValues(name).Observe(time.Since(start).Seconds()) }
}

// LongPollSucceeded records a getUpdates answer.
func LongPollSucceeded() { longPollLast.SetToCurrentTime() }

var botOnce sync.Once

// ServeBot adds the command bot's own series (the long poll's last
// success), for `statusbot bot` and `all` only: on a worker it would
// read 0 for ever and StatusbotLongPollStalled would fire there.
func ServeBot() { botOnce.Do(func() { Registry.MustRegister(longPollLast) }) }

// UpdateReceived records how old an update is when it is handed over.
func UpdateReceived(u *models.Update) {
	if d := updateDate(u); d > 0 {
		updateLag.Observe(max(0, time.Since(time.Unix(int64(d), 0)).Seconds()))
	}
}

func updateDate(u *models.Update) int {
	switch {
	case u == nil:
		return 0
	case u.Message != nil:
		return u.Message.Date
	case u.ChannelPost != nil:
		return u.ChannelPost.Date
	case u.EditedMessage != nil:
		return u.EditedMessage.Date
	case u.MyChatMember != nil:
		return u.MyChatMember.Date
	}
	return 0
}
