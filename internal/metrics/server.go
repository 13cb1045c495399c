package metrics

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/openai-status-bot/statusbot/internal/httpserve"
)

// Server serves GET /metrics on METRICS_ADDR.
type Server struct {
	addr string

	mu sync.Mutex
	ln net.Listener
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
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		// Prometheus itself defaults to 9090: say how to move out of its way.
		return fmt.Errorf("metrics: listen on METRICS_ADDR %s: %w (set METRICS_ADDR to a free host:port, or to nothing to turn metrics off)", s.addr, err)
	}
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	return httpserve.Serve(ctx, ln, Handler())
}

// Addr is the bound address once Run listens (useful with port 0).
func (s *Server) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln == nil {
		return ""
	}
	return s.ln.Addr().String()
}
