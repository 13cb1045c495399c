package telegram_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// A message Telegram refuses for its entities is sent once more as plain
// text, not lost; an edit too. Well-formed entities go as they are.
func TestRefusedEntitiesFallBackToPlainText(t *testing.T) {
	tg := fakes.NewTelegram(token)
	defer tg.Close()
	s, err := telegram.NewSender(tg.URL(), token, 2*time.Second)
	require.NoError(t, err)
	ctx := context.Background()
	far := time.Now().AddDate(4, 0, 0).Unix()
	soon := time.Now().Add(time.Hour).Unix()
	tooFar := `<b>Window:</b> <tg-time unix="` + itoa(far) + `" format="wdt">2030-12-01 10:00 UTC</tg-time> &amp; more`
	id, err := s.SendMessage(ctx, 5, 0, tooFar, telegram.SendOptions{})
	require.NoError(t, err)
	msgs := tg.MessagesTo(5, 0)
	require.Len(t, msgs, 1)
	require.Equal(t, "Window: 2030-12-01 10:00 UTC & more", msgs[0].Text, "the text it shows, as plain text")
	require.Empty(t, msgs[0].ParseMode)
	require.Equal(t, 1, tg.RefusedEntities())

	badFormat := `<b>Card</b> <tg-time unix="` + itoa(soon) + `" format="hh:mm">09:00</tg-time>`
	require.NoError(t, s.Edit(ctx, 5, id, badFormat))
	got, _ := tg.Message(5, id)
	require.Equal(t, "Card 09:00", got.Text)
	require.Equal(t, 2, tg.RefusedEntities())

	good := `<b>Card</b> <tg-time unix="` + itoa(soon) + `" format="t">09:00</tg-time>`
	require.NoError(t, s.Edit(ctx, 5, id, good))
	got, _ = tg.Message(5, id)
	require.Equal(t, good, got.Text)
	require.Equal(t, []fakes.DateTime{{Unix: soon, Format: "t", Text: "09:00"}}, got.Times)
	require.Equal(t, 2, tg.RefusedEntities(), "well-formed: sent as it is")
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// Within a chat's turn (one call per Send), the plain-text retry of a
// message refused for its entities is a second Bot API call: it takes a
// slot of the bot's budget of its own (WithSlot) before it is made, and
// no second turn. Before, it was made at once, outside the budget.
func TestPlainTextRetryTakesItsOwnSlot(t *testing.T) {
	tg := fakes.NewTelegram(token)
	defer tg.Close()
	s, err := telegram.NewSender(tg.URL(), token, 2*time.Second)
	require.NoError(t, err)
	turns, slots := 0, 0
	ctx := telegram.WithTurn(context.Background(), func(context.Context) (func(time.Time), time.Time, error) {
		turns++
		return func(time.Time) {}, time.Time{}, nil
	})
	ctx = telegram.WithSlot(ctx, func(context.Context) error {
		slots++
		require.Equal(t, 1, tg.RefusedEntities(), "the slot is taken after the refusal, before the plain call")
		require.Empty(t, tg.MessagesTo(6, 0))
		return nil
	})
	far := time.Now().AddDate(4, 0, 0).Unix()
	_, err = s.SendMessage(ctx, 6, 0, `<tg-time unix="`+itoa(far)+`" format="wdt">2030-12-01</tg-time>`, telegram.SendOptions{})
	require.NoError(t, err)
	require.Len(t, tg.MessagesTo(6, 0), 1, "sent as plain text")
	require.Equal(t, 1, turns, "one chat's turn for both calls")
	require.Equal(t, 1, slots, "the plain call's own slot")

	// A well-formed message takes no extra slot.
	_, err = s.SendMessage(ctx, 7, 0, "<b>fine</b>", telegram.SendOptions{})
	require.NoError(t, err)
	require.Equal(t, 1, slots)
}
