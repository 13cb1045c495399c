package bot

import (
	"context"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// sharedTurns makes the bot's replies and edits in a group take the
// group's turn in the budget the workers' notices use (store.ClaimCall):
// Telegram counts the token's messages in a chat whoever sends them, so
// the workers and the bot together keep to about one a second and 19 a
// minute. The bot's own pace (pace.go) decides first which of its
// messages goes next (admins first); this turn only spaces that message
// from the workers' calls.
//
// The bot's tickets sort before any notice's (TicketOf starts with the
// event's time): a reply someone waits for goes before the notices still
// queued, and the bot's own pace keeps its share of the minute small.
type sharedTurns struct {
	st      *store.Store
	now     func() time.Time
	maxWait time.Duration // a casual message that would wait longer is dropped
	log     *slog.Logger

	seq     atomic.Int64
	mu      sync.Mutex
	claimed map[int64]claimedTurn // per group: the turn of the send in flight
}

type claimedTurn struct {
	ticket string
	at     time.Time
}

func newSharedTurns(st *store.Store, now func() time.Time, maxWait time.Duration, log *slog.Logger) *sharedTurns {
	return &sharedTurns{st: st, now: now, maxWait: maxWait, log: log, claimed: map[int64]claimedTurn{}}
}

// botTicket sorts before every notice's ticket ("!" before digits).
func (s *sharedTurns) botTicket() string {
	return "!bot|" + strconv.FormatInt(s.now().UnixNano(), 10) + "|" + strconv.FormatInt(s.seq.Add(1), 10)
}

// take waits for the group's turn; false when ctx ended or a casual
// message would wait longer than maxWait (its turn is given up). When
// MongoDB fails, the bot's own pace alone holds (a reply is not lost to
// the store).
func (s *sharedTurns) take(ctx context.Context, chatID int64, urgent bool) bool {
	if s == nil || chatID > 0 {
		return ctx.Err() == nil
	}
	ticket, start := s.botTicket(), s.now()
	budget := telegram.BudgetOf(chatID)
	for {
		now := s.now()
		c, err := s.st.ClaimCall(ctx, chatID, ticket, budget, now)
		if err != nil {
			if ctx.Err() != nil {
				s.drop(chatID, ticket)
				return false
			}
			s.log.Warn("could not take the group's turn; replying within the bot's own pace", "error", err)
			return true
		}
		if c.OK {
			s.mu.Lock()
			s.claimed[chatID] = claimedTurn{ticket: ticket, at: now}
			s.mu.Unlock()
			return true
		}
		if !urgent && c.RetryAt.Sub(start) > s.maxWait {
			s.drop(chatID, ticket)
			return false
		}
		if !sleep(ctx, c.RetryAt.Sub(now)) {
			s.drop(chatID, ticket)
			return false
		}
	}
}

func (s *sharedTurns) drop(chatID int64, ticket string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.st.DropTurn(ctx, chatID, ticket); err != nil {
		s.log.Info("could not give up a group's turn (it lapses)", "error", err)
	}
}

// done notes that the send of the group's turn was answered: when that
// was later than store.ConfirmAfter past the claim (the bot's rate, a
// slow answer), the next turn is spaced from the answer instead.
func (s *sharedTurns) done(chatID int64) {
	if s == nil || chatID > 0 {
		return
	}
	s.mu.Lock()
	c, ok := s.claimed[chatID]
	delete(s.claimed, chatID)
	s.mu.Unlock()
	now := s.now()
	if !ok || now.Sub(c.at) <= store.ConfirmAfter {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.st.ConfirmCall(ctx, chatID, c.ticket, now); err != nil {
		s.log.Info("could not confirm a reply's start", "error", err)
	}
}
