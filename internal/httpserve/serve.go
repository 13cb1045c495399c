// Package httpserve runs the processes' small HTTP endpoints (health,
// metrics) on a listener until the context ends.
package httpserve

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// Serve serves h on ln until ctx ends, then shuts down within 2 seconds.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// Endpoint listens on an address and remembers what it bound (port 0 in
// tests picks a free one).
type Endpoint struct {
	mu sync.Mutex
	ln net.Listener
}

// Run listens on addr and serves h until ctx ends. A listen failure is
// returned as it is, for the caller to name its setting.
func (e *Endpoint) Run(ctx context.Context, addr string, h http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.ln = ln
	e.mu.Unlock()
	return Serve(ctx, ln, h)
}

// Addr is the bound address once Run listens ("" before).
func (e *Endpoint) Addr() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ln == nil {
		return ""
	}
	return e.ln.Addr().String()
}
