// Package logging builds the process logger, with secrets redacted from
// every message and attribute (including the Temporal SDK's and go-telegram's).
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// New returns a text logger at level that replaces each secret with
// "<redacted>".
func New(w io.Writer, level string, secrets ...string) *slog.Logger {
	var lv slog.Level
	_ = lv.UnmarshalText([]byte(level))
	r := NewRedactor(secrets...)
	h := slog.NewTextHandler(w, &slog.HandlerOptions{Level: lv, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		switch a.Value.Kind() {
		case slog.KindString:
			return slog.String(a.Key, r.Redact(a.Value.String()))
		case slog.KindAny:
			if err, ok := a.Value.Any().(error); ok {
				return slog.String(a.Key, r.Redact(err.Error()))
			}
			return slog.String(a.Key, r.Redact(fmt.Sprint(a.Value.Any())))
		}
		return a
	}})
	return slog.New(&redactingHandler{Handler: h, r: r})
}

// Redactor replaces secrets in text.
type Redactor struct{ secrets []string }

// NewRedactor ignores empty and very short secrets (they would mangle text).
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if len(s) >= 6 {
			r.secrets = append(r.secrets, s)
			// The part after the colon of a bot token is the secret half.
			if i := strings.IndexByte(s, ':'); i > 0 && len(s)-i > 6 && strings.HasPrefix(s, s[:i]) && !strings.Contains(s, "://") {
				r.secrets = append(r.secrets, s[i+1:])
			}
		}
	}
	return r
}

// Redact returns s without secrets.
func (r *Redactor) Redact(s string) string {
	for _, sec := range r.secrets {
		s = strings.ReplaceAll(s, sec, "<redacted>")
	}
	return s
}

type redactingHandler struct {
	slog.Handler
	r *Redactor
}

func (h *redactingHandler) Handle(ctx context.Context, rec slog.Record) error {
	rec.Message = h.r.Redact(rec.Message)
	return h.Handler.Handle(ctx, rec)
}

func (h *redactingHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &redactingHandler{Handler: h.Handler.WithAttrs(as), r: h.r}
}

func (h *redactingHandler) WithGroup(name string) slog.Handler {
	return &redactingHandler{Handler: h.Handler.WithGroup(name), r: h.r}
}
