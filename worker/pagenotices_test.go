package worker_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-telegram/bot/models"
	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/openai-status-bot/statusbot/internal/bot"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// messagesWith counts the messages to a chat that contain want.
func messagesWith(s *testenv.Stack, chat int64, want string) int {
	n := 0
	for _, m := range s.Telegram.MessagesTo(chat, 0) {
		if strings.Contains(m.Text, want) {
			n++
		}
	}
	return n
}

// startBot runs the command bot on the stack (its Telegram fake, its
// store) and returns a function that asks it a command in a private chat
// and waits for the reply that contains want.
func startBot(t *testing.T, s *testenv.Stack) func(chat int64, text, want string) string {
	t.Helper()
	updates := fakes.NewUpdates(s.Telegram, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- bot.Run(ctx, s.Config, s.Store, nil, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the bot did not stop")
		}
	})
	return func(chat int64, text, want string) string {
		t.Helper()
		before := len(s.Telegram.MessagesTo(chat, 0))
		updates.Push(models.Update{Message: &models.Message{ID: 1, Date: int(time.Now().Unix()), Text: text,
			Chat: models.Chat{ID: chat, Type: models.ChatTypePrivate}, From: &models.User{ID: chat, FirstName: "User"}}})
		var reply string
		testenv.WaitFor(t, 30*time.Second, "the reply to "+text, func() bool {
			for _, m := range s.Telegram.MessagesTo(chat, 0)[before:] {
				if strings.Contains(m.Text, want) {
					reply = m.Text
					return true
				}
			}
			return false
		})
		return reply
	}
}

// Issue 30, item 5 and its "Done when", end to end: github is removed
// while chat A follows it alone and chat B follows it and openai. Each is
// told once, in its chat, that the bot no longer watches github and what
// it still follows (A: how to choose a page), B's pinned card of github's
// open incident is unpinned, a group that became a supergroup is told
// there; a second worker start tells
// no one again; B no longer follows github; A's /status says it follows no
// page and that the page shown is not followed. On the old code neither
// chat heard anything, the card stayed pinned, and A's /status showed openai as if it were
// followed.
func TestRemovedPageTellsItsChatsOnce(t *testing.T) {
	s, ps := twoPageStack(t)
	ctx := context.Background()
	io, gh := ps.IncidentIO("openai"), ps.Statuspage("github")
	const onlyGitHub, both, group, supergroup = int64(811), int64(822), int64(-833), int64(-100833)
	followOnly(t, s, onlyGitHub, "github")
	followOnly(t, s, both, "")
	followOnly(t, s, group, "github")
	_, _, err := s.Store.FollowPage(ctx, store.SubscriberKey(both, 0), "github")
	require.NoError(t, err)
	_, err = s.Store.ChangeSettings(ctx, store.SubscriberKey(both, 0), store.SetPinCards(true))
	require.NoError(t, err)
	stop := s.StartWorker(t)
	waitForPageBaseline(t, s, "")
	waitForPageBaseline(t, s, "github")
	// An open incident of github: the chat of both pages has its card pinned.
	gh.AddIncidentUpdate("ghgone1", "Actions delayed before the removal", "investigating", "major", "ghgoneu1", "Runs are delayed.")
	var card int
	testenv.WaitFor(t, 60*time.Second, "the card pinned", func() bool {
		for _, m := range s.Telegram.MessagesTo(both, 0) {
			if strings.Contains(m.Text, "Actions delayed before the removal") && s.Telegram.Pinned(m.ID) {
				card = m.ID
				return true
			}
		}
		return false
	})
	waitDeliveriesClosed(t, s)
	stop()

	// The group became a supergroup meanwhile: Telegram answers "migrated".
	s.Telegram.FailChat(group, func(int) *fakes.APIError { return fakes.Upgraded(supergroup) })
	setPages(t, s, pages.Page{Name: "openai", URL: io.URL(), Provider: "auto"})
	stop = s.StartWorker(t)
	const told = "no longer watches"
	testenv.WaitFor(t, 60*time.Second, "both chats told", func() bool {
		return messagesWith(s, onlyGitHub, told) == 1 && messagesWith(s, both, told) == 1
	})
	testenv.WaitFor(t, 30*time.Second, "the supergroup told", func() bool { return messagesWith(s, supergroup, told) == 1 })
	_, err = s.Store.Subscription(ctx, store.SubscriberKey(supergroup, 0))
	require.NoError(t, err, "the group's subscription moved to its supergroup")
	require.Contains(t, textsTo(s, both), "Still followed: openai")
	require.Contains(t, textsTo(s, onlyGitHub), "follows no page")
	require.Contains(t, textsTo(s, onlyGitHub), "/subscribe page openai")
	testenv.WaitFor(t, 30*time.Second, "the notice told to every follower", func() bool {
		pending, err := s.Store.PendingPageNotices(ctx)
		return err == nil && len(pending) == 0
	})
	sub, err := s.Store.Subscription(ctx, store.SubscriberKey(both, 0))
	require.NoError(t, err)
	require.Equal(t, []string{""}, sub.Pages, "the chat of both pages left github")
	require.False(t, s.Telegram.Pinned(card), "the removed page's card unpinned")
	exportPageNotice(t, s)
	stop()

	// Another start (a second worker, a restart) tells no one again.
	s.StartWorker(t)
	ask := startBot(t, s)
	reply := ask(onlyGitHub, "/status", "follows no page")
	require.Contains(t, reply, "does not follow")
	info := ask(onlyGitHub, "/info", "Pages: none")
	require.Contains(t, info, "/subscribe page openai")
	require.Equal(t, 1, messagesWith(s, onlyGitHub, told), "told once")
	require.Equal(t, 1, messagesWith(s, both, told), "told once")
	require.Equal(t, 1, messagesWith(s, supergroup, told), "told once")
	ask(onlyGitHub, "/subscribe page openai", "now follows")
	sub, err = s.Store.Subscription(ctx, store.SubscriberKey(onlyGitHub, 0))
	require.NoError(t, err)
	require.Equal(t, []string{""}, sub.Pages, "following openai drops the removed page")
}

func hostOfURL(raw string) string {
	_, rest, _ := strings.Cut(raw, "://")
	host, _, _ := strings.Cut(rest, "/")
	return host
}

// exportPageNotice writes the page notice's history for the replay test
// (make histories).
func exportPageNotice(t *testing.T, s *testenv.Stack) {
	if os.Getenv("UPDATE_REPLAY_HISTORIES") == "" {
		return
	}
	var ids []string
	testenv.WaitFor(t, 30*time.Second, "a page notice's workflow closed", func() bool {
		resp, err := s.Temporal.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: "WorkflowType = 'PageNoticeWorkflow' AND ExecutionStatus = 'Completed'"})
		require.NoError(t, err)
		ids = ids[:0]
		for _, ex := range resp.GetExecutions() {
			ids = append(ids, ex.GetExecution().GetWorkflowId())
		}
		return len(ids) > 0
	})
	slices.Sort(ids)
	export(t, s, ids[0], filepath.Join(testenv.RepoRoot(), "workflows", "testdata", "page_notice_removed.json"))
}
