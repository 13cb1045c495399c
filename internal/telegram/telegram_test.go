package telegram_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

const token = "42:SECRETsecretSECRETsecret"

func TestSendClassifiesTelegramAnswers(t *testing.T) {
	tg := fakes.NewTelegram(token)
	defer tg.Close()
	s, err := telegram.NewSender(tg.URL(), token, 2*time.Second)
	require.NoError(t, err)
	cases := []struct {
		name    string
		answer  *fakes.APIError
		outcome telegram.Outcome
	}{
		{"429", fakes.TooMany(7), telegram.RateLimited},
		{"blocked", fakes.ErrBlocked, telegram.Terminal},
		{"kicked", fakes.ErrKicked, telegram.Terminal},
		{"deactivated", &fakes.APIError{Code: 403, Description: "Forbidden: user is deactivated"}, telegram.Terminal},
		{"chat not found", fakes.ErrChatNotFound, telegram.Terminal},
		{"thread not found", &fakes.APIError{Code: 400, Description: "Bad Request: message thread not found"}, telegram.Terminal},
		{"topic closed", &fakes.APIError{Code: 400, Description: "Bad Request: TOPIC_CLOSED"}, telegram.Terminal},
		{"upgraded", fakes.Upgraded(-1001234), telegram.Migrated},
		{"too long", fakes.ErrTooLong, telegram.Permanent},
		{"no rights", &fakes.APIError{Code: 400, Description: "Bad Request: not enough rights to send text messages to the chat"}, telegram.Permanent},
		{"parse", fakes.ErrParse, telegram.Permanent},
		{"5xx", fakes.ErrInternal, telegram.Transient},
		{"bad gateway", &fakes.APIError{Code: 502, Description: "Bad Gateway"}, telegram.Transient},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			chat := int64(1000 + i)
			tg.FailChat(chat, func(int) *fakes.APIError { return tc.answer })
			err := s.Send(context.Background(), chat, 0, "<b>x</b>")
			var se *telegram.SendError
			require.True(t, errors.As(err, &se), "got %v", err)
			require.Equal(t, tc.outcome, se.Outcome, se.Description)
			require.NotContains(t, se.Error(), "SECRET")
			switch tc.outcome {
			case telegram.RateLimited:
				require.Equal(t, 7*time.Second, se.RetryAfter)
			case telegram.Migrated:
				require.Equal(t, int64(-1001234), se.MigrateTo)
			}
		})
	}
}

func TestSendIsHTMLWithoutPreviewAndSpacesOneChat(t *testing.T) {
	tg := fakes.NewTelegram(token)
	defer tg.Close()
	s, err := telegram.NewSender(tg.URL(), token, 2*time.Second)
	require.NoError(t, err)
	require.NoError(t, s.Send(context.Background(), 5, 9, "<b>one</b>"))
	require.NoError(t, s.Send(context.Background(), 5, 9, "<b>two</b>"))
	m := tg.MessagesTo(5, 9)
	require.Len(t, m, 2)
	require.Equal(t, "HTML", m[0].ParseMode)
	require.True(t, m[0].NoPreview)
	require.GreaterOrEqual(t, m[1].At.Sub(m[0].At), 990*time.Millisecond, "one message per second per chat")
}

// Transport errors embed the request URL, which holds the token.
func TestTransportErrorsAreRedacted(t *testing.T) {
	s, err := telegram.NewSender("http://127.0.0.1:1", token, time.Second)
	require.NoError(t, err)
	err = s.Send(context.Background(), 1, 0, "x")
	require.Error(t, err)
	require.False(t, strings.Contains(err.Error(), "SECRET"), err.Error())
	var se *telegram.SendError
	require.True(t, errors.As(err, &se))
	require.Equal(t, telegram.Transient, se.Outcome)
}

func TestRedact(t *testing.T) {
	require.Equal(t, "Post https://x/bot<redacted>/sendMessage", telegram.Redact("Post https://x/bot"+token+"/sendMessage", token))
	require.Equal(t, "tail <redacted>", telegram.Redact("tail SECRETsecretSECRETsecret", token))
}

// TELEGRAM_PAID_BROADCAST: messages go with allow_paid_broadcast, edits
// (which take no such parameter) as before; without it nothing is paid.
func TestPaidBroadcastMarksMessagesOnly(t *testing.T) {
	tg := fakes.NewTelegram(token)
	defer tg.Close()
	tg.RealLimits()
	ctx := context.Background()
	for _, paid := range []bool{false, true} {
		chat := int64(500)
		if paid {
			chat = 501
		}
		s, err := telegram.NewSender(tg.URL(), token, 2*time.Second, telegram.CallsPerSecond(1000), telegram.PaidBroadcast(paid))
		require.NoError(t, err)
		id, err := s.SendMessage(ctx, chat, 0, "<b>x</b>", telegram.SendOptions{})
		require.NoError(t, err)
		ms := tg.MessagesTo(chat, 0)
		require.Len(t, ms, 1)
		require.Equal(t, paid, ms[0].Paid, "paid broadcast %v", paid)
		time.Sleep(1100 * time.Millisecond) // the chat's second
		require.NoError(t, s.Edit(ctx, chat, id, "<b>y</b>"))
	}
}
