package health_test

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/health"
)

func get(t *testing.T, h http.Handler) (int, health.Report) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	var r health.Report
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &r))
	return rec.Code, r
}

func TestHealthIs503UntilReadyThenFollowsChecks(t *testing.T) {
	s := health.New("127.0.0.1:0")
	var mongoErr error
	s.AddCheck("mongodb", func(context.Context) error { return mongoErr })
	code, r := get(t, s)
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "starting", r.Status)

	s.SetReady()
	code, r = get(t, s)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "ok", r.Checks["mongodb"])

	mongoErr = errors.New("mongodb: ping: server selection timeout")
	code, r = get(t, s)
	require.Equal(t, http.StatusServiceUnavailable, code)
	require.Equal(t, "unhealthy", r.Status)
	require.Contains(t, r.Checks["mongodb"], "timeout")
}

func TestProbeReachesAServerOnEveryInterface(t *testing.T) {
	s := health.New("0.0.0.0:0")
	s.SetReady()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = s.Run(ctx) }()
	for s.Addr() == "" {
		time.Sleep(10 * time.Millisecond)
	}
	_, port, _ := net.SplitHostPort(s.Addr())
	require.NoError(t, health.Probe(":"+port))
	require.NoError(t, health.Probe("0.0.0.0:"+port))
}

func getPath(t *testing.T, h http.Handler, path string) int {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Code
}

// A liveness probe must not follow dependencies: an orchestrator restarting
// every worker while the status page is down would only make things worse.
func TestLivezIgnoresChecksReadyzAndHealthzFollowThem(t *testing.T) {
	s := health.New("127.0.0.1:0")
	s.AddCheck("last_poll", func(context.Context) error { return errors.New("no successful poll") })
	require.Equal(t, http.StatusOK, getPath(t, s, "/livez"))
	require.Equal(t, http.StatusServiceUnavailable, getPath(t, s, "/readyz"))
	require.Equal(t, http.StatusServiceUnavailable, getPath(t, s, "/healthz"))
	s.SetReady()
	require.Equal(t, http.StatusOK, getPath(t, s, "/livez"))
	require.Equal(t, http.StatusServiceUnavailable, getPath(t, s, "/readyz"))
	require.Equal(t, http.StatusNotFound, getPath(t, s, "/metrics"))
}
