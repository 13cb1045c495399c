// Package config reads the bot's settings from the environment.
package config

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kelseyhightower/envconfig"
)

// Config holds every setting; names are the environment variables.
type Config struct {
	TelegramBotToken  string        `envconfig:"TELEGRAM_BOT_TOKEN" required:"true"`
	TelegramAPIURL    string        `envconfig:"TELEGRAM_API_URL" default:"https://api.telegram.org"`
	StatuspageURL     string        `envconfig:"STATUSPAGE_URL" default:"https://status.openai.com"`
	MongoDBURI        string        `envconfig:"MONGODB_URI" required:"true"`
	MongoDBDatabase   string        `envconfig:"MONGODB_DATABASE" default:"openai-status-bot"`
	TemporalAddress   string        `envconfig:"TEMPORAL_ADDRESS" default:"localhost:7233"`
	TemporalNamespace string        `envconfig:"TEMPORAL_NAMESPACE" default:"default"`
	TemporalTaskQueue string        `envconfig:"TEMPORAL_TASK_QUEUE" default:"openai-status-bot"`
	PollInterval      time.Duration `envconfig:"POLL_INTERVAL" default:"1m"`
	HTTPTimeout       time.Duration `envconfig:"HTTP_TIMEOUT" default:"10s"`
	TelegramRateLimit float64       `envconfig:"TELEGRAM_RATE_LIMIT" default:"20"`
	BotReplyRate      float64       `envconfig:"BOT_REPLY_RATE" default:"4"`
	HealthAddr        string        `envconfig:"HEALTH_ADDR" default:"127.0.0.1:8080"`
	LogLevel          string        `envconfig:"LOG_LEVEL" default:"info"`
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
	if e := tokenError(c.TelegramBotToken); e != "" {
		errs = append(errs, e)
	}
	if strings.TrimSpace(c.MongoDBURI) == "" {
		errs = append(errs, "MONGODB_URI is required")
	} else if !strings.HasPrefix(c.MongoDBURI, "mongodb://") && !strings.HasPrefix(c.MongoDBURI, "mongodb+srv://") {
		errs = append(errs, "MONGODB_URI must start with mongodb:// or mongodb+srv:// (value not shown)")
	}
	for name, v := range map[string]string{"TELEGRAM_API_URL": c.TelegramAPIURL, "STATUSPAGE_URL": c.StatuspageURL} {
		if e := urlError(name, v); e != "" {
			errs = append(errs, e)
		}
	}
	if c.PollInterval < time.Second || c.PollInterval > time.Hour {
		errs = append(errs, fmt.Sprintf("POLL_INTERVAL must be between 1s and 1h, got %s", c.PollInterval))
	}
	// Activity timeouts leave room for two requests of HTTP_TIMEOUT each.
	if c.HTTPTimeout < time.Second || c.HTTPTimeout > 30*time.Second {
		errs = append(errs, fmt.Sprintf("HTTP_TIMEOUT must be between 1s and 30s, got %s", c.HTTPTimeout))
	}
	// Written so that NaN fails too (every comparison with NaN is false).
	if !(c.TelegramRateLimit >= 1 && c.TelegramRateLimit <= 1000) {
		errs = append(errs, fmt.Sprintf("TELEGRAM_RATE_LIMIT must be between 1 and 1000 messages per second, got %g", c.TelegramRateLimit))
	}
	if !(c.BotReplyRate >= 0.5 && c.BotReplyRate <= 30) {
		errs = append(errs, fmt.Sprintf("BOT_REPLY_RATE must be between 0.5 and 30 messages per second, got %g", c.BotReplyRate))
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

// tokenPattern is a Bot API token: the bot's numeric ID, a colon, the
// secret.
var tokenPattern = regexp.MustCompile(`^[0-9]+:[A-Za-z0-9_-]+$`)

// tokenError explains what is wrong with a token without showing it.
func tokenError(token string) string {
	switch {
	case strings.TrimSpace(token) == "":
		return "TELEGRAM_BOT_TOKEN is required (get one from @BotFather)"
	case tokenPattern.MatchString(token):
		return ""
	case tokenPattern.MatchString(strings.TrimSpace(token)):
		return "TELEGRAM_BOT_TOKEN has a space or line break around it" + lineEndHint(token) + " (value not shown)"
	}
	return "TELEGRAM_BOT_TOKEN must look like 123456789:AAE-x_y (digits, a colon, then letters, digits, _ and -; value not shown)"
}

// lineEndHint names the usual cause of a trailing carriage return.
func lineEndHint(v string) string {
	if strings.Contains(v, "\r") {
		return ": a carriage return, as left by a .env file saved with Windows line endings"
	}
	return ""
}

// urlError checks an http(s) URL. The value is not echoed (it may hold
// credentials or a pasted token): only its scheme and host, when it has
// them.
func urlError(name, v string) string {
	u, err := url.Parse(v)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return ""
	}
	got := "(value not shown)"
	if err == nil && u.Scheme != "" {
		got = fmt.Sprintf("scheme %q", u.Scheme)
	}
	return fmt.Sprintf("%s must be an http(s) URL such as https://host, got %s%s", name, got, lineEndHint(v))
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
	"POLL_INTERVAL":       "between 1s and 1h",
	"HTTP_TIMEOUT":        "between 1s and 30s",
	"TELEGRAM_RATE_LIMIT": "between 1 and 1000 (messages per second)",
	"BOT_REPLY_RATE":      "between 0.5 and 30 (messages per second)",
}
