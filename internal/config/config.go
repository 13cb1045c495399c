// Package config reads the bot's settings from the environment.
package config

import (
	"errors"
	"fmt"
	"net"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/kelseyhightower/envconfig"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

// Config holds every setting; names are the environment variables.
//
// The two secrets can come from files instead (TELEGRAM_BOT_TOKEN_FILE,
// MONGODB_URI_FILE: Docker/Kubernetes secrets), so that they do not show in
// the process environment (`docker inspect`, /proc/PID/environ).
type Config struct {
	TelegramBotToken   string `envconfig:"TELEGRAM_BOT_TOKEN"`
	TelegramAPIURL     string `envconfig:"TELEGRAM_API_URL" default:"https://api.telegram.org"`
	StatuspageURL      string `envconfig:"STATUSPAGE_URL" default:"https://status.openai.com"`
	MongoDBURI         string `envconfig:"MONGODB_URI"`
	MongoDBDatabase    string `envconfig:"MONGODB_DATABASE" default:"openai-status-bot"`
	TemporalAddress    string `envconfig:"TEMPORAL_ADDRESS" default:"localhost:7233"`
	TemporalNamespace  string `envconfig:"TEMPORAL_NAMESPACE" default:"default"`
	TemporalTaskQueue  string `envconfig:"TEMPORAL_TASK_QUEUE" default:"openai-status-bot"`
	StatuspageProvider string `envconfig:"STATUSPAGE_PROVIDER" default:"auto"`
	// StatusPages lists the pages the bot offers (internal/pages has the
	// format); empty: STATUSPAGE_URL alone.
	StatusPages string `envconfig:"STATUS_PAGES"`
	// Pages is StatusPages resolved, the default page first; Validate
	// fills it. Nothing reads it yet: the worker and the bot still watch
	// StatuspageURL alone (docs/pages.md).
	Pages []pages.Page `ignored:"true"`
	// TemporalAPIKey authenticates to Temporal Cloud (optional). mTLS and the
	// rest of the SDK's client settings (TEMPORAL_TLS_*, TEMPORAL_PROFILE)
	// are read by worker.Dial.
	TemporalAPIKey string        `envconfig:"TEMPORAL_API_KEY"`
	PollInterval   time.Duration `envconfig:"POLL_INTERVAL" default:"1m"`
	// PollIntervalActive is the pace while an incident is open (0: a
	// quarter of POLL_INTERVAL, never below 10s).
	PollIntervalActive OptionalDuration `envconfig:"POLL_INTERVAL_ACTIVE"`
	HTTPTimeout        time.Duration    `envconfig:"HTTP_TIMEOUT" default:"10s"`
	TelegramRateLimit  float64          `envconfig:"TELEGRAM_RATE_LIMIT" default:"20"`
	// TelegramPaidBroadcast sends notices with allow_paid_broadcast (for
	// bots with at least 100,000 monthly users and a Stars balance; each
	// message above the free 30 a second costs Stars), which lets
	// TELEGRAM_RATE_LIMIT go up to 1000. Command replies are never paid.
	TelegramPaidBroadcast bool `envconfig:"TELEGRAM_PAID_BROADCAST" default:"false"`
	// BotReplyRate caps the command bot's replies a second; they take
	// slots of TELEGRAM_RATE_LIMIT's budget, ahead of the notices.
	BotReplyRate float64 `envconfig:"BOT_REPLY_RATE" default:"4"`
	HealthAddr   string  `envconfig:"HEALTH_ADDR" default:"127.0.0.1:8080"`
	// MetricsAddr serves GET /metrics (Prometheus); empty turns it off.
	MetricsAddr string `envconfig:"METRICS_ADDR" default:"127.0.0.1:9090"`
	LogLevel    string `envconfig:"LOG_LEVEL" default:"info"`
}

// FreeRateLimit is the most TELEGRAM_RATE_LIMIT may be without paid
// broadcasts: Telegram allows a bot about 30 messages a second.
const FreeRateLimit = 30

// secretFiles maps each secret to the variable naming a file that holds it.
var secretFiles = []struct{ name, fileVar, hint string }{
	{"TELEGRAM_BOT_TOKEN", "TELEGRAM_BOT_TOKEN_FILE", "the bot's token from @BotFather"},
	{"MONGODB_URI", "MONGODB_URI_FILE", "a mongodb:// or mongodb+srv:// URI"},
	{"TEMPORAL_API_KEY", "TEMPORAL_API_KEY_FILE", "a Temporal Cloud API key"},
}

// Load reads and validates the environment. Errors name the variable and
// its allowed range, never a secret's value.
func Load() (*Config, error) {
	var c Config
	if err := envconfig.Process("", &c); err != nil {
		return nil, redactEnvErr(err)
	}
	if err := c.readSecretFiles(os.LookupEnv); err != nil {
		return nil, err
	}
	return &c, c.Validate()
}

// readSecretFiles fills the secrets from their *_FILE variables. Setting
// both forms is an error: which one wins would be a guess.
func (c *Config) readSecretFiles(lookup func(string) (string, bool)) error {
	var errs []string
	for _, s := range secretFiles {
		path, ok := lookup(s.fileVar)
		if !ok {
			continue
		}
		if v, set := lookup(s.name); set && v != "" {
			errs = append(errs, fmt.Sprintf("set %s or %s, not both", s.name, s.fileVar))
			continue
		}
		v, err := readSecretFile(path)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v (it must hold %s)", s.fileVar, err, s.hint))
			continue
		}
		switch s.name {
		case "TELEGRAM_BOT_TOKEN":
			c.TelegramBotToken = v
		case "MONGODB_URI":
			c.MongoDBURI = v
		case "TEMPORAL_API_KEY":
			c.TemporalAPIKey = v
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return nil
}

// readSecretFile returns the file's content without the trailing newline
// editors add. Its errors name the path, never the content.
func readSecretFile(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", errors.New("is set but empty (a file path)")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return "", fmt.Errorf("cannot read %s: %v", path, pe.Err)
		}
		return "", fmt.Errorf("cannot read %s", path)
	}
	v := strings.TrimSpace(string(b))
	if v == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	return v, nil
}

// Validate checks ranges and formats, and fills Pages.
func (c *Config) Validate() error {
	var errs []string
	if e := tokenError(c.TelegramBotToken); e != "" {
		errs = append(errs, e)
	}
	if strings.TrimSpace(c.MongoDBURI) == "" {
		errs = append(errs, "MONGODB_URI (or MONGODB_URI_FILE) is required")
	} else if !strings.HasPrefix(c.MongoDBURI, "mongodb://") && !strings.HasPrefix(c.MongoDBURI, "mongodb+srv://") {
		errs = append(errs, "MONGODB_URI must start with mongodb:// or mongodb+srv:// (value not shown)")
	} else if e := MongoURIProblem(c.MongoDBURI); e != "" {
		errs = append(errs, "MONGODB_URI cannot be read: "+e+" (value not shown)")
	}
	for name, v := range map[string]string{"TELEGRAM_API_URL": c.TelegramAPIURL, "STATUSPAGE_URL": c.StatuspageURL} {
		if e := urlError(name, v); e != "" {
			errs = append(errs, e)
		}
	}
	if c.PollInterval < time.Second || c.PollInterval > time.Hour {
		errs = append(errs, fmt.Sprintf("POLL_INTERVAL must be between 1s and 1h, got %s", c.PollInterval))
	}
	if c.StatuspageProvider != "" {
		if e := pages.ProviderError("STATUSPAGE_PROVIDER", c.StatuspageProvider); e != "" {
			errs = append(errs, e)
		}
	}
	errs = append(errs, c.resolvePages()...)
	if a := c.PollIntervalActive.Duration; a != 0 && (a < 10*time.Second || a > c.PollInterval) {
		errs = append(errs, fmt.Sprintf("POLL_INTERVAL_ACTIVE must be between 10s and POLL_INTERVAL (%s), got %s", c.PollInterval, a))
	}
	// Activity timeouts leave room for two requests of HTTP_TIMEOUT each.
	if c.HTTPTimeout < time.Second || c.HTTPTimeout > 30*time.Second {
		errs = append(errs, fmt.Sprintf("HTTP_TIMEOUT must be between 1s and 30s, got %s", c.HTTPTimeout))
	}
	// Written so that NaN fails too (every comparison with NaN is false).
	if !(c.TelegramRateLimit >= 1 && c.TelegramRateLimit <= 1000) {
		errs = append(errs, fmt.Sprintf("TELEGRAM_RATE_LIMIT must be between 1 and 1000 messages per second, got %g", c.TelegramRateLimit))
	} else if c.TelegramRateLimit > FreeRateLimit && !c.TelegramPaidBroadcast {
		errs = append(errs, fmt.Sprintf("TELEGRAM_RATE_LIMIT above %d messages per second needs TELEGRAM_PAID_BROADCAST=true "+
			"(Telegram refuses more than about 30 a second otherwise; paid broadcasts are for bots with at least "+
			"100,000 monthly users and a Stars balance, and cost Stars per message), got %g", FreeRateLimit, c.TelegramRateLimit))
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
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			errs = append(errs, fmt.Sprintf("METRICS_ADDR must be host:port (or empty to turn metrics off), got %q", c.MetricsAddr))
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

// OptionalDuration is a duration that may be set empty (VAR= in .env,
// ${VAR:-} in compose) to mean "the default".
type OptionalDuration struct{ time.Duration }

// Decode implements envconfig.Decoder.
func (d *OptionalDuration) Decode(value string) error {
	if strings.TrimSpace(value) == "" {
		d.Duration = 0
		return nil
	}
	v, err := time.ParseDuration(strings.TrimSpace(value))
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// ActivePollInterval is the poll interval while an incident is open:
// POLL_INTERVAL_ACTIVE, else a quarter of POLL_INTERVAL, never below 10s
// (and never slower than POLL_INTERVAL).
func (c *Config) ActivePollInterval() time.Duration {
	if c.PollIntervalActive.Duration > 0 {
		return c.PollIntervalActive.Duration
	}
	return min(c.PollInterval, max(c.PollInterval/4, 10*time.Second))
}

// tokenPattern is a Bot API token: the bot's numeric ID, a colon, the
// secret.
var tokenPattern = regexp.MustCompile(`^[0-9]+:[A-Za-z0-9_-]+$`)

// tokenError explains what is wrong with a token without showing it.
func tokenError(token string) string {
	switch {
	case strings.TrimSpace(token) == "":
		return "TELEGRAM_BOT_TOKEN (or TELEGRAM_BOT_TOKEN_FILE) is required and empty: " +
			"talk to @BotFather in Telegram, send /newbot, and put the token it gives you there"
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

// urlError checks an http(s) URL without echoing it (pages.URLError).
func urlError(name, v string) string { return pages.URLError(name, v) }

// resolvePages fills Pages from STATUS_PAGES, or from STATUSPAGE_URL and
// STATUSPAGE_PROVIDER when it is empty. Setting both forms is an error:
// which one wins would be a guess. (STATUSPAGE_URL's default cannot be
// told from the same value set by hand; that case is harmless.)
func (c *Config) resolvePages() []string {
	c.Pages = nil
	if strings.TrimSpace(c.StatusPages) == "" {
		if urlError("STATUSPAGE_URL", c.StatuspageURL) != "" {
			return nil // already reported
		}
		p, err := pages.Single(c.StatuspageURL, c.StatuspageProvider)
		if err != nil {
			return nil // the provider, already reported
		}
		c.Pages = []pages.Page{p}
		return nil
	}
	var errs []string
	if c.StatuspageURL != pages.OpenAIURL {
		errs = append(errs, "set STATUS_PAGES or STATUSPAGE_URL, not both (STATUSPAGE_URL is the one-page form: list that page in STATUS_PAGES instead)")
	}
	if c.StatuspageProvider != "" && c.StatuspageProvider != "auto" {
		errs = append(errs, "STATUSPAGE_PROVIDER applies to STATUSPAGE_URL alone: with STATUS_PAGES, force a provider per page (name=statuspage:https://...)")
	}
	list, err := pages.Parse(c.StatusPages)
	if err != nil {
		return append(errs, err.Error())
	}
	if len(errs) == 0 {
		c.Pages = list
	}
	return errs
}

// redactEnvErr keeps envconfig's variable name but drops the offending
// value, which could be a secret pasted into the wrong variable.
func redactEnvErr(err error) error {
	if pe, ok := err.(*envconfig.ParseError); ok {
		hint := map[string]string{"time.Duration": "a duration such as 30s, 1m or 1h", "config.OptionalDuration": "a duration such as 30s, 1m or 1h (or empty)", "float64": "a number"}[pe.TypeName]
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
	"BOT_REPLY_RATE":       "between 0.5 and 30 (messages per second)",
}
