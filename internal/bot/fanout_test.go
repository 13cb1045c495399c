package bot

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/health"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// The worker and the bot share one token, and Telegram's ~30 messages a
// second are the token's: a burst of 50 /status (50 chats) in the middle
// of a fan-out must not push the fan-out into 429s. The fake Telegram
// enforces Telegram's limits (30 msg/s overall, 1 msg/s per chat).
func TestCommandBurstDuringFanOutCausesNo429(t *testing.T) {
	// The defaults: TELEGRAM_RATE_LIMIT=20, BOT_REPLY_RATE=4.
	commandBurstDuringFanOut(t, 20, 4)
}

// Issue 29 item 5: TELEGRAM_RATE_LIMIT is the token's whole budget, the
// bot's replies in it, first: no share is kept for them. At 25 a second a
// burst of commands during a fan-out keeps every second at 25 calls or
// fewer (the fake allows 30). On the old code the replies went beside the
// notices' 25 (BOT_REPLY_RATE 4 more a second): 30 in the busiest.
//
// The budget spaces the calls' starts (store.SendBudget: no second of
// starts holds more than the rate); the fake counts arrivals, which a
// loaded machine's HTTP jitter can bring one slot closer: one more than the
// rate is that, the replies' 4 a second beside the notices is not.
func TestRepliesAndNoticesShareOneBudget(t *testing.T) {
	if busiest := commandBurstDuringFanOut(t, 25, 4); busiest > 25+1 {
		t.Fatalf("%d calls in the busiest second at TELEGRAM_RATE_LIMIT=25", busiest)
	}
}

// commandBurstDuringFanOut runs a fan-out to 300 chats at rate with 50
// /status asked in the middle of it; it returns the most messages of the
// token in one second.
func commandBurstDuringFanOut(t *testing.T, rate, replyRate float64) int {
	s := testenv.NewStack(t, time.Hour)
	s.Config.TelegramRateLimit, s.Config.BotReplyRate = rate, replyRate
	s.Telegram.RealLimits()
	ctx := context.Background()
	const subscribers, firstChat = 300, 7_000_000
	for i := range int64(subscribers) {
		if _, err := s.Store.Subscribe(ctx, firstChat+i, 0, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	s.StartWorker(t)
	s.WaitForBaseline(t)

	upd := fakes.NewUpdates(s.Telegram, 1)
	bctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	hs := health.New("127.0.0.1:0")
	tn := defaultTuning(s.Config)
	tn.pollTimeout = time.Second
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	go func() { done <- run(bctx, s.Config, s.Store, hs, log, tn) }()
	t.Cleanup(func() { stop(); <-done })
	testenv.WaitFor(t, 10*time.Second, "the bot ready", func() bool { rep, _ := hs.Evaluate(ctx); return rep.Ready })

	s.Page.SetComponent("api0000001", "API", "major_outage")
	s.TriggerPoll(t)
	testenv.WaitFor(t, time.Minute, "the fan-out under way", func() bool { return len(s.Telegram.Messages()) >= 30 })
	const burst, firstAsker = 50, 9_000_000
	for i := range int64(burst) {
		upd.Push(private(firstAsker+i, "/status"))
	}
	count := func() (notices, replies int) {
		for _, m := range s.Telegram.Messages() {
			switch {
			case m.ChatID >= firstAsker:
				replies++
			case m.ChatID >= firstChat:
				notices++
			}
		}
		return notices, replies
	}
	testenv.WaitFor(t, 2*time.Minute, "every notice", func() bool { n, _ := count(); return n >= subscribers })
	// Replies that met a 429 may have been given up: wait a while, not for ever.
	deadline := time.Now().Add(30 * time.Second)
	for _, r := count(); r < burst && time.Now().Before(deadline); _, r = count() {
		time.Sleep(50 * time.Millisecond)
	}
	notices, replies := count()
	t.Logf("most messages in one second: %d overall, %d notices", maxPerSecond(s.Telegram.Messages(), 0), maxPerSecond(s.Telegram.Messages(), firstAsker))
	t.Logf("%d notices, %d replies, %d 429s", notices, replies, s.Telegram.TooManyCount())
	if n := s.Telegram.TooManyCount(); n != 0 {
		t.Fatalf("%d sends got 429 Too Many Requests", n)
	}
	if replies != burst {
		t.Fatalf("%d replies to %d /status", replies, burst)
	}
	return maxPerSecond(s.Telegram.Messages(), 0)
}

// maxPerSecond is the most messages in any one-second window (to chats
// below below, if set).
func maxPerSecond(msgs []fakes.Message, below int64) int {
	best := 0
	var in []time.Time
	for _, m := range msgs {
		if below != 0 && m.ChatID >= below {
			continue
		}
		in = append(in, m.At)
		for len(in) > 0 && m.At.Sub(in[0]) > time.Second {
			in = in[1:]
		}
		best = max(best, len(in))
	}
	return best
}
