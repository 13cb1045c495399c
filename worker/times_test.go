package worker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Times for every reader, end to end: a notice's times go out as
// date-time entities (each reader's app shows its own time) with the
// chat's zone as the text behind them; a notice Telegram refuses for an
// entity (a window more than 1098 days ahead: ENTITY_DATE_INVALID, as the
// fake answers like the real Bot API) is sent once more as plain text and
// delivered, not lost.
func TestNoticeTimesAreDateTimeEntities(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	s := testenv.NewStack(t, time.Second)
	berlin := storyChat{id: 951, settings: store.Settings{Mode: store.ModeCards, TimeZone: "Europe/Berlin"}}
	subscribeStoryChats(t, s, berlin)
	s.StartWorker(t)
	s.WaitForBaseline(t)
	inbox := newInbox(s, berlin.id)

	from := time.Now().Add(48 * time.Hour).Truncate(time.Hour)
	s.Page.SetMaintenanceWindow("mnt00001", from, from.Add(2*time.Hour))
	s.Page.AddMaintenanceUpdate("mnt00001", "Database upgrade", "scheduled", "mup0001", "We will upgrade the database.")
	got := inbox.wait(t, 1, "the maintenance notice")[0]
	require.Equal(t, "HTML", got.ParseMode)
	require.Len(t, got.Times, 2, "both ends of the window are date-time entities: %s", got.Text)
	require.Equal(t, from.Unix(), got.Times[0].Unix)
	require.Equal(t, from.In(mustZone(t, "Europe/Berlin")).Format("2006-01-02 15:04"), got.Times[0].Text, "the chat's zone is the text behind it")
	require.True(t, strings.HasSuffix(got.Times[1].Text, " CET") || strings.HasSuffix(got.Times[1].Text, " CEST"), got.Times[1].Text)

	far := time.Now().AddDate(4, 0, 0).Truncate(time.Hour)
	s.Page.SetMaintenanceWindow("mnt00002", far, far.Add(time.Hour))
	s.Page.AddMaintenanceUpdate("mnt00002", "Far-off migration", "scheduled", "mup0002", "Years ahead.")
	got = inbox.wait(t, 2, "the far-off maintenance, refused for its entity and sent as plain text")[1]
	require.Equal(t, 1, s.Telegram.RefusedEntities(), "the fake refused the entity as Telegram does")
	require.Empty(t, got.ParseMode, "sent again without entities")
	require.Contains(t, got.Text, "Window: "+far.In(mustZone(t, "Europe/Berlin")).Format("2006-01-02 15:04"))
	require.Contains(t, got.Text, "Far-off migration")
	require.NotContains(t, got.Text, "<b>", "plain text, no tags")
	time.Sleep(3 * time.Second)
	require.Len(t, inbox.messages(), 2, "delivered once")
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}
