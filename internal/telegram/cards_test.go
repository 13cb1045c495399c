package telegram_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

func TestEditReplyAndPin(t *testing.T) {
	tg := fakes.NewTelegram(token)
	defer tg.Close()
	s, err := telegram.NewSender(tg.URL(), token, 2*time.Second)
	require.NoError(t, err)
	ctx := context.Background()
	card, err := s.SendMessage(ctx, -100, 3, "<b>card</b>", telegram.SendOptions{})
	require.NoError(t, err)
	require.NotZero(t, card)

	require.NoError(t, s.Edit(ctx, -100, card, "<b>card v2</b>"))
	require.NoError(t, s.Edit(ctx, -100, card, "<b>card v2</b>"), "message is not modified: a repeated edit succeeds")
	require.Equal(t, 1, tg.EditCount(card))

	reply, err := s.SendMessage(ctx, -100, 3, "update", telegram.SendOptions{ReplyTo: card})
	require.NoError(t, err)
	msgs := tg.MessagesTo(-100, 3)
	require.Len(t, msgs, 2, "the reply stays in the topic")
	require.Equal(t, "<b>card v2</b>", msgs[0].Text)
	require.Equal(t, card, msgs[1].ReplyTo)
	require.Equal(t, reply, msgs[1].ID)

	require.NoError(t, s.Pin(ctx, -100, card))
	require.True(t, tg.Pinned(card))
	require.NoError(t, s.Unpin(ctx, -100, card))
	require.False(t, tg.Pinned(card))
	tg.DenyPinning(-100)
	require.Error(t, s.Pin(ctx, -100, card))

	tg.DeleteMessage(-100, card)
	err = s.Edit(ctx, -100, card, "<b>card v3</b>")
	var se *telegram.SendError
	require.True(t, errors.As(err, &se), "got %v", err)
	require.Equal(t, telegram.Gone, se.Outcome, se.Description)

	tg.FailChat(-100, func(int) *fakes.APIError { return fakes.TooMany(3) })
	_, err = s.SendMessage(ctx, -100, 3, "update", telegram.SendOptions{ReplyTo: card})
	require.True(t, errors.As(err, &se))
	require.Equal(t, telegram.RateLimited, se.Outcome)
}
