package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/openai-status-bot/statusbot/internal/httpserve"
)

// Server serves GET /metrics on METRICS_ADDR.
type Server struct {
	addr     string
	endpoint httpserve.Endpoint
}

// NewServer returns a server for addr (host:port).
func NewServer(addr string) *Server { return &Server{addr: addr} }

// Handler answers /metrics from Registry.
func Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(Registry, promhttp.HandlerOpts{
		// A failing collector shows as a gap, not as a failed scrape.
		ErrorHandling: promhttp.ContinueOnError,
	}))
	return mux
}

// Run serves until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	if err := s.endpoint.Run(ctx, s.addr, Handler()); err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "listen" {
			// Prometheus itself defaults to 9090: say how to move out of its way.
			return fmt.Errorf("metrics: listen on METRICS_ADDR %s: %w (set METRICS_ADDR to a free host:port, or to nothing to turn metrics off)", s.addr, err)
		}
		return err
	}
	return nil
}

// Addr is the bound address once Run listens (useful with port 0).
func (s *Server) Addr() string { return s.endpoint.Addr() }
