// Package health serves the probes of one process:
//
//	GET /livez    200 while the process serves HTTP: a liveness probe. It
//	              checks no dependency, so an outage of MongoDB or the status
//	              page never makes an orchestrator restart-loop every worker.
//	GET /readyz   503 until start-up is done, then 200 only while every check
//	              passes; the JSON body names each check's result.
//	GET /healthz  the same as /readyz (kept for existing probes).
package health

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai-status-bot/statusbot/internal/httpserve"
)

// Check returns nil when healthy; its error text is shown, so it must hold
// no secret.
type Check func(ctx context.Context) error

// Server is the health endpoint of one process.
type Server struct {
	addr  string
	ready atomic.Bool

	mu       sync.Mutex
	checks   map[string]Check
	endpoint httpserve.Endpoint
}

// New returns a server for addr (host:port).
func New(addr string) *Server { return &Server{addr: addr, checks: map[string]Check{}} }

// AddCheck adds a named check.
func (s *Server) AddCheck(name string, c Check) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checks[name] = c
}

// SetReady marks start-up as done.
func (s *Server) SetReady() { s.ready.Store(true) }

// Report is the /healthz body.
type Report struct {
	Status string            `json:"status"`
	Ready  bool              `json:"ready"`
	Checks map[string]string `json:"checks"`
}

// Evaluate runs every check.
func (s *Server) Evaluate(ctx context.Context) (Report, bool) {
	s.mu.Lock()
	names := make([]string, 0, len(s.checks))
	for n := range s.checks {
		names = append(names, n)
	}
	checks := s.checks
	s.mu.Unlock()
	sort.Strings(names)
	r := Report{Ready: s.ready.Load(), Checks: map[string]string{}}
	ok := r.Ready
	for _, n := range names {
		cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		err := checks[n](cctx)
		cancel()
		if err != nil {
			r.Checks[n] = err.Error()
			ok = false
		} else {
			r.Checks[n] = "ok"
		}
	}
	switch {
	case !r.Ready:
		r.Status = "starting"
	case ok:
		r.Status = "ok"
	default:
		r.Status = "unhealthy"
	}
	return r, ok
}

// ServeHTTP answers /livez, /readyz and /healthz.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var rep any
	ok := true
	switch r.URL.Path {
	case "/livez":
		rep = struct {
			Status string `json:"status"`
		}{"ok"}
	case "/readyz", "/healthz":
		rep, ok = s.Evaluate(r.Context())
	default:
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if !ok {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(rep)
}

// Run serves until ctx ends.
func (s *Server) Run(ctx context.Context) error {
	if err := s.endpoint.Run(ctx, s.addr, s); err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "listen" {
			return fmt.Errorf("health: listen on HEALTH_ADDR %s: %w", s.addr, err)
		}
		return err
	}
	return nil
}

// Addr is the bound address once Run listens (useful with port 0).
func (s *Server) Addr() string { return s.endpoint.Addr() }

// Probe asks a running server's /readyz; nil when it answers 200.
func Probe(addr string) error {
	// A server listening on every interface is probed on loopback.
	if host, port, err := net.SplitHostPort(addr); err == nil && (host == "" || host == "0.0.0.0" || host == "::") {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get("http://" + addr + "/readyz")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var r Report
		_ = json.NewDecoder(resp.Body).Decode(&r)
		return fmt.Errorf("unhealthy (HTTP %d): %v", resp.StatusCode, r.Checks)
	}
	return nil
}
