package telegram_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// CallsPerSecond counts every call that posts or changes a message: 15
// incident card updates (an edit and a reply each, in 15 chats) at 10 calls
// a second never put more than about 10 calls in one second, and Telegram's
// limits (edits counted like messages) answer no 429.
func TestCallsPerSecondCountsEditsAndReplies(t *testing.T) {
	tg := fakes.NewTelegram(token)
	defer tg.Close()
	s, err := telegram.NewSender(tg.URL(), token, 5*time.Second, telegram.CallsPerSecond(10))
	require.NoError(t, err)
	ctx := context.Background()
	const chats = 15
	ids := make([]int, chats)
	for i := range chats {
		ids[i], err = s.SendMessage(ctx, int64(100+i), 0, "card", telegram.SendOptions{})
		require.NoError(t, err)
	}
	time.Sleep(1100 * time.Millisecond) // the cards leave the window and their chats
	tg.RealLimits()
	before := len(tg.Messages())
	var wg sync.WaitGroup
	errs := make(chan error, 2*chats)
	for i := range chats {
		wg.Add(1)
		go func() {
			defer wg.Done()
			chat := int64(100 + i)
			errs <- s.Edit(ctx, chat, ids[i], "card, updated")
			_, err := s.SendMessage(ctx, chat, 0, "reply", telegram.SendOptions{ReplyTo: ids[i]})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Zero(t, tg.TooManyCount())
	require.Len(t, tg.Messages()[before:], chats)
	require.Len(t, tg.Edits(), chats)
	var at []time.Time
	for _, m := range tg.Messages()[before:] {
		at = append(at, m.At)
	}
	for _, e := range tg.Edits() {
		at = append(at, e.At)
	}
	// Evenly spaced at 10 a second: a second holds 10 starts, 11 with
	// arrival jitter at its edges.
	require.LessOrEqual(t, fakes.Busiest(at, time.Second), 11)
}

// A pin (it posts a service message in the chat) keeps the chat's
// one-a-second spacing after the card.
func TestPinIsPacedInItsChat(t *testing.T) {
	tg := fakes.NewTelegram(token)
	defer tg.Close()
	var mu sync.Mutex
	var sent, pinned time.Time
	s, err := telegram.NewSender(tg.URL(), token, 5*time.Second, telegram.CallsPerSecond(20))
	require.NoError(t, err)
	id, err := s.SendMessage(context.Background(), -5, 0, "card", telegram.SendOptions{})
	require.NoError(t, err)
	sent = tg.Messages()[0].At
	tg.Handle("pinChatMessage", func(fakes.Params) (any, *fakes.APIError) {
		mu.Lock()
		defer mu.Unlock()
		pinned = time.Now()
		return true, nil
	})
	require.NoError(t, s.Pin(context.Background(), -5, id))
	mu.Lock()
	defer mu.Unlock()
	require.GreaterOrEqual(t, pinned.Sub(sent), time.Second, "the pin a second after the card in the chat")
}

// A wait for a chat's turn ends with its context: a Transient error, and
// nothing sent.
func TestPacedWaitHonoursContext(t *testing.T) {
	tg := fakes.NewTelegram(token)
	defer tg.Close()
	s, err := telegram.NewSender(tg.URL(), token, 5*time.Second, telegram.CallsPerSecond(20))
	require.NoError(t, err)
	require.NoError(t, s.Send(context.Background(), 7, 0, "one"))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	err = s.Send(ctx, 7, 0, "two") // must wait a second for the chat
	var se *telegram.SendError
	require.True(t, errors.As(err, &se), "got %v", err)
	require.Equal(t, telegram.Transient, se.Outcome)
	require.Len(t, tg.MessagesTo(7, 0), 1)
	// The chat's turn was given back: the next send goes through.
	require.NoError(t, s.Send(context.Background(), 7, 0, "three"))
	require.Len(t, tg.MessagesTo(7, 0), 2)
}
