package health_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

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
