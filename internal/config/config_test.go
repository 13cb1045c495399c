package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/config"
)

const token = "123456:ABCdefSECRET"

func setRequired(t *testing.T) {
	t.Setenv("TELEGRAM_BOT_TOKEN", token)
	t.Setenv("MONGODB_URI", "mongodb://user:pa55word@db:27017")
}

func TestDefaults(t *testing.T) {
	setRequired(t)
	c, err := config.Load()
	require.NoError(t, err)
	require.Equal(t, "https://api.telegram.org", c.TelegramAPIURL)
	require.Equal(t, "https://status.openai.com", c.StatuspageURL)
	require.Equal(t, "openai-status-bot", c.MongoDBDatabase)
	require.Equal(t, "localhost:7233", c.TemporalAddress)
	require.Equal(t, "default", c.TemporalNamespace)
	require.Equal(t, "openai-status-bot", c.TemporalTaskQueue)
	require.Equal(t, time.Minute, c.PollInterval)
	require.Equal(t, 10*time.Second, c.HTTPTimeout)
	require.Equal(t, 20.0, c.TelegramRateLimit)
	require.Equal(t, 4.0, c.BotReplyRate)
	require.Equal(t, "127.0.0.1:8080", c.HealthAddr)
	require.Equal(t, "info", c.LogLevel)
}

func TestBadValuesNameTheVariableAndRange(t *testing.T) {
	cases := []struct{ env, value, want string }{
		{"POLL_INTERVAL", "500ms", "POLL_INTERVAL must be between 1s and 1h"},
		{"POLL_INTERVAL", "2h", "POLL_INTERVAL must be between 1s and 1h"},
		{"POLL_INTERVAL", "soon", "POLL_INTERVAL must be a duration"},
		{"HTTP_TIMEOUT", "0s", "HTTP_TIMEOUT must be between 1s and 30s"},
		{"TELEGRAM_RATE_LIMIT", "0", "TELEGRAM_RATE_LIMIT must be between 1 and 1000"},
		{"TELEGRAM_RATE_LIMIT", "fast", "TELEGRAM_RATE_LIMIT must be a number"},
		{"TELEGRAM_API_URL", "ftp://x", "TELEGRAM_API_URL must be an http(s) URL"},
		{"STATUSPAGE_URL", "status.openai.com", "STATUSPAGE_URL must be an http(s) URL"},
		{"LOG_LEVEL", "loud", "LOG_LEVEL must be one of debug, info, warn, error"},
		{"MONGODB_URI", "postgres://secret@x", "MONGODB_URI must start with mongodb://"},
		{"TELEGRAM_BOT_TOKEN", "", "TELEGRAM_BOT_TOKEN"},
		{"TELEGRAM_RATE_LIMIT", "NaN", "TELEGRAM_RATE_LIMIT must be between 1 and 1000"},
		{"TELEGRAM_RATE_LIMIT", "nan", "TELEGRAM_RATE_LIMIT must be between 1 and 1000"},
		{"TELEGRAM_RATE_LIMIT", "+Inf", "TELEGRAM_RATE_LIMIT must be between 1 and 1000"},
		{"TELEGRAM_RATE_LIMIT", "-1", "TELEGRAM_RATE_LIMIT must be between 1 and 1000"},
		{"TELEGRAM_RATE_LIMIT", "1e400", "TELEGRAM_RATE_LIMIT must be a number"},
		{"TELEGRAM_RATE_LIMIT", "25\r", "TELEGRAM_RATE_LIMIT must be a number"},
		{"BOT_REPLY_RATE", "NaN", "BOT_REPLY_RATE must be between 0.5 and 30"},
		{"BOT_REPLY_RATE", "0", "BOT_REPLY_RATE must be between 0.5 and 30"},
		{"BOT_REPLY_RATE", "Infinity", "BOT_REPLY_RATE must be between 0.5 and 30"},
		{"BOT_REPLY_RATE", "many", "BOT_REPLY_RATE must be a number between 0.5 and 30"},
		{"POLL_INTERVAL", "-1m", "POLL_INTERVAL must be between 1s and 1h"},
		{"HTTP_TIMEOUT", "1m\r", "HTTP_TIMEOUT must be a duration"},
		// Tokens: the value is never shown, the cause is named.
		{"TELEGRAM_BOT_TOKEN", token + "\r", "TELEGRAM_BOT_TOKEN has a space or line break around it: a carriage return, as left by a .env file saved with Windows line endings"},
		{"TELEGRAM_BOT_TOKEN", token + " ", "TELEGRAM_BOT_TOKEN has a space or line break around it"},
		{"TELEGRAM_BOT_TOKEN", "ABCdefSECRET", "TELEGRAM_BOT_TOKEN must look like 123456789:"},
		{"TELEGRAM_BOT_TOKEN", "12a:ABCdefSECRET", "TELEGRAM_BOT_TOKEN must look like 123456789:"},
		{"TELEGRAM_BOT_TOKEN", "123456:ABCdef\"SECRET", "TELEGRAM_BOT_TOKEN must look like 123456789:"},
		{"TELEGRAM_BOT_TOKEN", "123456:", "TELEGRAM_BOT_TOKEN must look like 123456789:"},
		// URL values may hold credentials or a pasted token: never echoed.
		{"TELEGRAM_API_URL", "ftp://bot:pa55word@x", "TELEGRAM_API_URL must be an http(s) URL such as https://host, got scheme \"ftp\""},
		{"TELEGRAM_API_URL", "api.telegram.org/bot" + token, "TELEGRAM_API_URL must be an http(s) URL such as https://host, got (value not shown)"},
		{"STATUSPAGE_URL", "https://status.openai.com\r", "STATUSPAGE_URL must be an http(s) URL such as https://host, got (value not shown): a carriage return"},
	}
	for _, tc := range cases {
		t.Run(tc.env+"="+tc.value, func(t *testing.T) {
			setRequired(t)
			t.Setenv(tc.env, tc.value)
			_, err := config.Load()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.NotContains(t, err.Error(), "\r")
			require.NotContains(t, err.Error(), "SECRET")
			require.NotContains(t, err.Error(), "pa55word")
			require.False(t, strings.Contains(err.Error(), "secret@"), err.Error())
		})
	}
}

// Above Telegram's free 30 a second, TELEGRAM_RATE_LIMIT needs paid
// broadcasts; with them it goes up to 1000.
func TestRateAboveTheFreeLimitNeedsPaidBroadcast(t *testing.T) {
	setRequired(t)
	t.Setenv("TELEGRAM_RATE_LIMIT", "30")
	c, err := config.Load()
	require.NoError(t, err)
	require.False(t, c.TelegramPaidBroadcast)

	t.Setenv("TELEGRAM_RATE_LIMIT", "31")
	_, err = config.Load()
	require.Error(t, err)
	require.Contains(t, err.Error(), "TELEGRAM_RATE_LIMIT above 30 messages per second needs TELEGRAM_PAID_BROADCAST=true")

	t.Setenv("TELEGRAM_PAID_BROADCAST", "true")
	for _, rate := range []string{"31", "1000"} {
		t.Setenv("TELEGRAM_RATE_LIMIT", rate)
		c, err := config.Load()
		require.NoError(t, err, rate)
		require.True(t, c.TelegramPaidBroadcast)
	}
	t.Setenv("TELEGRAM_RATE_LIMIT", "1001")
	_, err = config.Load()
	require.ErrorContains(t, err, "TELEGRAM_RATE_LIMIT must be between 1 and 1000")
}

func writeSecret(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func TestSecretsFromFiles(t *testing.T) {
	t.Setenv("TELEGRAM_BOT_TOKEN_FILE", writeSecret(t, token+"\n"))
	t.Setenv("MONGODB_URI_FILE", writeSecret(t, "mongodb://user:pa55word@db:27017/?retryWrites=true&w=majority\n"))
	c, err := config.Load()
	require.NoError(t, err)
	require.Equal(t, token, c.TelegramBotToken)
	require.Equal(t, "mongodb://user:pa55word@db:27017/?retryWrites=true&w=majority", c.MongoDBURI)
}

func TestSecretFileErrorsNameThePathNotTheContent(t *testing.T) {
	cases := []struct {
		name string
		env  func(t *testing.T)
		want string
	}{
		{"empty token file", func(t *testing.T) {
			t.Setenv("TELEGRAM_BOT_TOKEN_FILE", writeSecret(t, "\n"))
		}, "is empty"},
		{"missing file", func(t *testing.T) {
			t.Setenv("TELEGRAM_BOT_TOKEN_FILE", "/nonexistent/telegram_bot_token")
		}, "TELEGRAM_BOT_TOKEN_FILE: cannot read /nonexistent/telegram_bot_token: no such file or directory"},
		{"both forms", func(t *testing.T) {
			t.Setenv("MONGODB_URI_FILE", writeSecret(t, "mongodb://user:pa55word@other:27017"))
		}, "set MONGODB_URI or MONGODB_URI_FILE, not both"},
		{"bad URI in file", func(t *testing.T) {
			t.Setenv("MONGODB_URI", "")
			t.Setenv("MONGODB_URI_FILE", writeSecret(t, "postgres://secret@x"))
		}, "MONGODB_URI must start with mongodb://"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			setRequired(t)
			t.Setenv("TELEGRAM_BOT_TOKEN", "")
			tc.env(t)
			if os.Getenv("TELEGRAM_BOT_TOKEN_FILE") == "" {
				t.Setenv("TELEGRAM_BOT_TOKEN", token)
			}
			_, err := config.Load()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.NotContains(t, err.Error(), "SECRET")
			require.NotContains(t, err.Error(), "pa55word")
			require.NotContains(t, err.Error(), "secret@")
		})
	}
}

func TestEmptyTokenSaysWhereToGetOne(t *testing.T) {
	setRequired(t)
	t.Setenv("TELEGRAM_BOT_TOKEN", "")
	_, err := config.Load()
	require.ErrorContains(t, err, "TELEGRAM_BOT_TOKEN (or TELEGRAM_BOT_TOKEN_FILE) is required and empty")
	require.ErrorContains(t, err, "@BotFather")
}

func TestMetricsAddr(t *testing.T) {
	setRequired(t)
	c, err := config.Load()
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:9090", c.MetricsAddr)

	t.Setenv("METRICS_ADDR", "")
	c, err = config.Load()
	require.NoError(t, err)
	require.Empty(t, c.MetricsAddr, "an empty METRICS_ADDR turns metrics off")

	t.Setenv("METRICS_ADDR", "9090")
	_, err = config.Load()
	require.ErrorContains(t, err, "METRICS_ADDR must be host:port")
}

func TestTemporalAPIKeyFromFile(t *testing.T) {
	setRequired(t)
	t.Setenv("TEMPORAL_API_KEY_FILE", writeSecret(t, "cloud-key\n"))
	c, err := config.Load()
	require.NoError(t, err)
	require.Equal(t, "cloud-key", c.TemporalAPIKey)

	t.Setenv("TEMPORAL_API_KEY", "other")
	_, err = config.Load()
	require.ErrorContains(t, err, "set TEMPORAL_API_KEY or TEMPORAL_API_KEY_FILE, not both")
}
