package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestValidSubscriberKey(t *testing.T) {
	for _, tc := range []struct {
		key string
		ok  bool
	}{
		{"702", true}, {"-1001234567890", true}, {"-1001234567890:42", true},
		{"", false}, {"not a key", false}, {`"702"`, false}, {strings.Repeat("1", 65), false},
	} {
		err := validSubscriberKey(tc.key)
		require.Equal(t, tc.ok, err == nil, "%q: %v", tc.key, err)
	}
}

func TestCapError(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int // runes
	}{{"short", 5}, {strings.Repeat("é", maxErrorLen), maxErrorLen}, {strings.Repeat("x", 5000), maxErrorLen}} {
		require.Equal(t, tc.want, len([]rune(capError(tc.in))))
	}
}

func TestTuningDefaults(t *testing.T) {
	require.Equal(t, DefaultTuning(), Tuning{}.withDefaults())
	got := Tuning{WindowSize: 1, BurstBackoff: time.Second}.withDefaults()
	require.Equal(t, 1, got.WindowSize, "set fields are kept")
	require.Equal(t, time.Second, got.BurstBackoff)
	require.Equal(t, DefaultTuning().PageSize, got.PageSize, "zero fields take the default")
}
