package store_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/store"
)

// An Atlas mongodb+srv name that does not resolve is named, with what to
// check, not reported as an invalid URI; the password stays out.
func TestOpenSaysTheSRVNameDoesNotResolve(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := store.Open(ctx, "mongodb+srv://statusbot:s3cretPW@cluster0.nonexistent.invalid/openai-status-bot", "openai-status-bot")
	if err == nil {
		t.Fatal("opened")
	}
	msg := err.Error()
	t.Log(msg)
	if !strings.Contains(msg, "lookup _mongodb._tcp.cluster0.nonexistent.invalid") || !strings.Contains(msg, "does not resolve here") {
		t.Errorf("error does not name the lookup: %s", msg)
	}
	if strings.Contains(msg, "s3cretPW") {
		t.Errorf("password shown: %s", msg)
	}
}
