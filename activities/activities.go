// Package activities holds every side effect of the pipeline: fetching the
// status page, the checkpoint, subscriber paging, the ledger and Telegram.
package activities

import (
	"context"
	"golang.org/x/sync/singleflight"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// Error types the workflows branch on.
const (
	ErrTypeRateLimited      = "RateLimited"
	ErrTypePermanentMessage = "PermanentMessageError"
	ErrTypeTransient        = "TransientSendError"
	// ErrTypeNotYet: a call's turn in its chat, or its slot of the bot's
	// budget, has not come; the activity comes back then (NextRetryDelay).
	ErrTypeNotYet = "NotYet"
)

// Activities holds the dependencies; register one instance per worker.
type Activities struct {
	Store *store.Store
	// Page reads the legacy page when Fetchers has no fetcher for it (the
	// one page of a deployment without STATUS_PAGES, tests).
	Page statuspage.Fetcher
	// Fetchers reads each listed page, by name.
	Fetchers map[string]statuspage.Fetcher
	// Pages is the pages on offer and which is legacy (STATUS_PAGES;
	// docs/pages.md). The worker fills it; empty means Page alone, legacy.
	Pages    pages.Offer
	Telegram *telegram.Sender
	// Temporal lets a delivery wait for its predecessor.
	Temporal client.Client
	// DeliveryStarted reports whether the delivery of an event exists.
	DeliveryStarted func(ctx context.Context, eventKey string) (bool, error)
	Now             func() time.Time
	// BlindAfter is how long a part of the page may fail before the poll
	// reports it as a blind spot (three poll intervals).
	BlindAfter time.Duration
	// Cadence, when set, is told after every poll of a page (by name)
	// whether an incident is open on it, so that page's Schedule polls
	// faster while one is.
	Cadence func(ctx context.Context, page string, incidentOpen bool) error
	// Reminders, when set, is given every page read (and its
	// event.Event.Page: "" for the legacy page), to keep one reminder
	// workflow per scheduled maintenance (worker/reminders.go).
	Reminders func(ctx context.Context, eventPage string, page *statuspage.Page) error
	// StartSummary starts (or finds running) the morning summary workflow
	// of a chat's held quiet-hours window (hold.go, worker.go).
	StartSummary func(ctx context.Context, in SummaryInput) error
	// Budget is this process's part of the bot's budget of calls for the
	// whole cluster (TELEGRAM_RATE_LIMIT; store.SendBudget, on the real
	// clock); nil: the send queue's rate limit alone.
	Budget *store.SendBudget
	// claimTook is how long a chat's claim took of late (calls.go).
	claimTook atomic.Int64

	msgMu    sync.Mutex
	messages map[string]string
	// reads: reads the sends under way need at once are made once.
	reads singleflight.Group
	// events caches stored events by key (storedEvent): a send that tells
	// several steps reads them all, at every call of its chain.
	events map[string]event.Event
}

func (a *Activities) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}
