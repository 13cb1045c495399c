package bot

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// noticesLikeAWorker sends n notices to chat the way a worker's Send does
// (activities/calls.go): each call takes the chat's turn in the shared
// budget first and comes back when told to.
func noticesLikeAWorker(t *testing.T, h *harness, chat int64, n int) <-chan error {
	snd, err := telegram.NewSender(h.tg.URL(), testToken, 5*time.Second)
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		at := time.Now()
		for i := range n {
			ticket := fmt.Sprintf("%s|ev%02d|sub", at.UTC().Format("2006-01-02T15:04:05.000Z"), i)
			for {
				tctx := telegram.WithTurn(ctx, func(ctx context.Context) (func(time.Time), time.Time, error) {
					c, err := h.st.ClaimCall(ctx, chat, ticket, telegram.BudgetOf(chat), time.Now())
					if err != nil || !c.OK {
						return nil, c.RetryAt, err
					}
					return func(started time.Time) { _ = h.st.ConfirmCall(ctx, chat, ticket, started) }, time.Time{}, nil
				})
				err := snd.SendWith(tctx, chat, 0, fmt.Sprintf("notice %02d", i), telegram.SendOptions{})
				var se *telegram.SendError
				if errors.As(err, &se) && se.Outcome == telegram.NotYet {
					time.Sleep(time.Until(se.RetryAt))
					continue
				}
				if err != nil {
					done <- fmt.Errorf("notice %d: %w", i, err)
					return
				}
				break
			}
		}
		done <- nil
	}()
	return done
}

// TestBotRepliesShareTheGroupsBudgetWithNotices: a worker's notices and
// the bot's replies to members flooding /status go to one group; together
// they keep to Telegram's limits there (the fake's: 0 429s).
func TestBotRepliesShareTheGroupsBudgetWithNotices(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	g := newFloodGroup(t)
	h := g.h
	since := time.Now()
	g.flood(400 * time.Millisecond)
	const n = 12
	notices := noticesLikeAWorker(t, h, g.chat, n)
	select {
	case err := <-notices:
		require.NoError(t, err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the notices did not all go")
	}
	g.quiet()
	time.Sleep(2 * time.Second) // the replies still queued
	var noticeN, replies int
	var at []time.Time
	for _, m := range h.tg.MessagesTo(g.chat, 0) {
		if m.At.Before(since) {
			continue
		}
		at = append(at, m.At)
		if len(m.Text) >= 6 && m.Text[:6] == "notice" {
			noticeN++
		} else {
			replies++
		}
	}
	t.Logf("RESULT %d notices and %d replies in the group, most in a minute %d, 429s %d",
		noticeN, replies, fakes.Busiest(at, time.Minute), h.tg.TooManyCount())
	require.Equal(t, n, noticeN)
	require.Positive(t, replies, "the bot replied during the notices")
	require.Zero(t, h.tg.TooManyCount(), "429s from Telegram")
}
