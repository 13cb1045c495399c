package config_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/config"
)

func TestProviderAndActiveInterval(t *testing.T) {
	setRequired(t)
	c, err := config.Load()
	require.NoError(t, err)
	require.Equal(t, "auto", c.StatuspageProvider)
	require.Equal(t, 15*time.Second, c.ActivePollInterval(), "a quarter of 1m")

	for _, tc := range []struct {
		poll, active string
		want         time.Duration
	}{
		{"20s", "", 10 * time.Second}, // never below 10s
		{"5s", "", 5 * time.Second},   // never slower than POLL_INTERVAL
		{"10m", "", 150 * time.Second},
		{"1m", "30s", 30 * time.Second},
	} {
		t.Setenv("POLL_INTERVAL", tc.poll)
		t.Setenv("POLL_INTERVAL_ACTIVE", tc.active)
		c, err := config.Load()
		require.NoError(t, err, tc)
		require.Equal(t, tc.want, c.ActivePollInterval(), tc)
	}
}

func TestBadProviderSettings(t *testing.T) {
	for _, tc := range []struct{ env, value, want string }{
		{"STATUSPAGE_PROVIDER", "atlassian", "STATUSPAGE_PROVIDER must be one of auto, incidentio, statuspage"},
		{"POLL_INTERVAL_ACTIVE", "5s", "POLL_INTERVAL_ACTIVE must be between 10s and POLL_INTERVAL"},
		{"POLL_INTERVAL_ACTIVE", "2m", "POLL_INTERVAL_ACTIVE must be between 10s and POLL_INTERVAL"},
		{"POLL_INTERVAL_ACTIVE", "often", "POLL_INTERVAL_ACTIVE must be a duration"},
	} {
		t.Run(tc.env+"="+tc.value, func(t *testing.T) {
			setRequired(t)
			t.Setenv(tc.env, tc.value)
			_, err := config.Load()
			require.ErrorContains(t, err, tc.want)
		})
	}
}
