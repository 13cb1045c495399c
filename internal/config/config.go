// Package config reads the bot's settings from the environment.
package config

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/kelseyhightower/envconfig"
)

// Config holds every setting; names are the environment variables.
type Config struct {
	TelegramBotToken   string        `envconfig:"TELEGRAM_BOT_TOKEN" required:"true"`
	TelegramAPIURL     string        `envconfig:"TELEGRAM_API_URL" default:"https://api.telegram.org"`
	StatuspageURL      string        `envconfig:"STATUSPAGE_URL" default:"https://status.openai.com"`
	MongoDBURI         string        `envconfig:"MONGODB_URI" required:"true"`
	MongoDBDatabase    string        `envconfig:"MONGODB_DATABASE" default:"openai-status-bot"`
	TemporalAddress    string        `envconfig:"TEMPORAL_ADDRESS" default:"localhost:7233"`
	TemporalNamespace  string        `envconfig:"TEMPORAL_NAMESPACE" default:"default"`
	TemporalTaskQueue  string        `envconfig:"TEMPORAL_TASK_QUEUE" default:"openai-status-bot"`
	StatuspageProvider string        `envconfig:"STATUSPAGE_PROVIDER" default:"auto"`
	PollInterval       time.Duration `envconfig:"POLL_INTERVAL" default:"1m"`
	// PollIntervalActive is the pace while an incident is open (0: a
	// quarter of POLL_INTERVAL, never below 10s).
	PollIntervalActive time.Duration `envconfig:"POLL_INTERVAL_ACTIVE"`
	HTTPTimeout        time.Duration `envconfig:"HTTP_TIMEOUT" default:"10s"`
	TelegramRateLimit  float64       `envconfig:"TELEGRAM_RATE_LIMIT" default:"25"`
	HealthAddr         string        `envconfig:"HEALTH_ADDR" default:"127.0.0.1:8080"`
	LogLevel           string        `envconfig:"LOG_LEVEL" default:"info"`
}

// Load reads and validates the environment. Errors name the variable and
// its allowed range, never a secret's value.
func Load() (*Config, error) {
	var c Config
	if err := envconfig.Process("", &c); err != nil {
		return nil, redactEnvErr(err)
	}
	return &c, c.Validate()
}

// Validate checks ranges and formats.
func (c *Config) Validate() error {
	var errs []string
	if strings.TrimSpace(c.TelegramBotToken) == "" {
		errs = append(errs, "TELEGRAM_BOT_TOKEN is required (get one from @BotFather)")
	} else if strings.ContainsAny(c.TelegramBotToken, " /\t\n") {
		errs = append(errs, "TELEGRAM_BOT_TOKEN must be a token like 123456:ABC-DEF (value not shown)")
	}
	if strings.TrimSpace(c.MongoDBURI) == "" {
		errs = append(errs, "MONGODB_URI is required")
	} else if !strings.HasPrefix(c.MongoDBURI, "mongodb://") && !strings.HasPrefix(c.MongoDBURI, "mongodb+srv://") {
		errs = append(errs, "MONGODB_URI must start with mongodb:// or mongodb+srv:// (value not shown)")
	}
	for name, v := range map[string]string{"TELEGRAM_API_URL": c.TelegramAPIURL, "STATUSPAGE_URL": c.StatuspageURL} {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Sprintf("%s must be an http(s) URL, got %q", name, v))
		}
	}
	if c.PollInterval < time.Second || c.PollInterval > time.Hour {
		errs = append(errs, fmt.Sprintf("POLL_INTERVAL must be between 1s and 1h, got %s", c.PollInterval))
	}
	switch c.StatuspageProvider {
	case "", "auto", "incidentio", "statuspage":
	default:
		errs = append(errs, fmt.Sprintf("STATUSPAGE_PROVIDER must be one of auto, incidentio, statuspage, got %q", c.StatuspageProvider))
	}
	if c.PollIntervalActive != 0 && (c.PollIntervalActive < 10*time.Second || c.PollIntervalActive > c.PollInterval) {
		errs = append(errs, fmt.Sprintf("POLL_INTERVAL_ACTIVE must be between 10s and POLL_INTERVAL (%s), got %s", c.PollInterval, c.PollIntervalActive))
	}
	// Activity timeouts leave room for two requests of HTTP_TIMEOUT each.
	if c.HTTPTimeout < time.Second || c.HTTPTimeout > 30*time.Second {
		errs = append(errs, fmt.Sprintf("HTTP_TIMEOUT must be between 1s and 30s, got %s", c.HTTPTimeout))
	}
	if c.TelegramRateLimit < 1 || c.TelegramRateLimit > 1000 {
		errs = append(errs, fmt.Sprintf("TELEGRAM_RATE_LIMIT must be between 1 and 1000 messages per second, got %g", c.TelegramRateLimit))
	}
	for name, v := range map[string]string{"MONGODB_DATABASE": c.MongoDBDatabase, "TEMPORAL_ADDRESS": c.TemporalAddress,
		"TEMPORAL_NAMESPACE": c.TemporalNamespace, "TEMPORAL_TASK_QUEUE": c.TemporalTaskQueue, "HEALTH_ADDR": c.HealthAddr} {
		if strings.TrimSpace(v) == "" {
			errs = append(errs, name+" must not be empty")
		}
	}
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Sprintf("LOG_LEVEL must be one of debug, info, warn, error, got %q", c.LogLevel))
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return nil
}

// ActivePollInterval is the poll interval while an incident is open:
// POLL_INTERVAL_ACTIVE, else a quarter of POLL_INTERVAL, never below 10s
// (and never slower than POLL_INTERVAL).
func (c *Config) ActivePollInterval() time.Duration {
	if c.PollIntervalActive > 0 {
		return c.PollIntervalActive
	}
	return min(c.PollInterval, max(c.PollInterval/4, 10*time.Second))
}

// redactEnvErr keeps envconfig's variable name but drops the offending
// value, which could be a secret pasted into the wrong variable.
func redactEnvErr(err error) error {
	if pe, ok := err.(*envconfig.ParseError); ok {
		hint := map[string]string{"time.Duration": "a duration such as 30s, 1m or 1h", "float64": "a number"}[pe.TypeName]
		if hint == "" {
			hint = "a " + pe.TypeName
		}
		if r := ranges[pe.KeyName]; r != "" {
			hint += " " + r
		}
		return fmt.Errorf("configuration: %s must be %s", pe.KeyName, hint)
	}
	return fmt.Errorf("configuration: %v", err)
}

var ranges = map[string]string{
	"POLL_INTERVAL":        "between 1s and 1h",
	"POLL_INTERVAL_ACTIVE": "between 10s and POLL_INTERVAL",
	"HTTP_TIMEOUT":         "between 1s and 30s",
	"TELEGRAM_RATE_LIMIT":  "between 1 and 1000 (messages per second)",
}
