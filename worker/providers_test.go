package worker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// fakePage is what both fakes let a test do to their page.
type fakePage interface {
	SetComponent(id, name, status string)
	AddIncidentUpdate(incidentID, name, status, impact, updateID, body string)
	AddMaintenanceUpdate(id, name, status, updateID, body string)
	AffectComponent(incidentID, componentID, status string)
}

type pageUnderTest struct {
	page                 fakePage
	compA, compB, compC  string
	nameA, nameB, nameC  string
	maintenanceHasWindow bool
}

// The whole pipeline, tried as a new user would, against a page that
// behaves like today's status.openai.com (incident.io) and against a
// classic Statuspage: every incident notice carries its text, a chat
// filtered to one component gets the incidents that affect it and nothing
// else, a component outage reaches the unfiltered chats, a maintenance is
// announced, and an unchanged page sends nothing over many polls.
func TestProvidersEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test")
	}
	for _, provider := range []string{"incidentio", "statuspage-auto"} {
		t.Run(provider, func(t *testing.T) {
			const interval = 2 * time.Second
			s := testenv.NewStackWith(t, interval, testenv.StackOptions{Provider: provider})
			var pt pageUnderTest
			if s.IO != nil {
				pt = pageUnderTest{page: s.IO, compA: fakes.IOComponentResponses, nameA: "Responses",
					compB: fakes.IOComponentCLI, nameB: "CLI", compC: fakes.IOComponentImages, nameC: "Images", maintenanceHasWindow: true}
			} else {
				s.Page.SetComponent("images0001", "Images", "operational")
				pt = pageUnderTest{page: s.Page, compA: "api0000001", nameA: "API", compB: "chatgpt001", nameB: "ChatGPT",
					compC: "images0001", nameC: "Images"}
			}
			runProviderScenario(t, s, pt, interval)
		})
	}
}

func runProviderScenario(t *testing.T, s *testenv.Stack, pt pageUnderTest, interval time.Duration) {
	ctx := context.Background()
	unfiltered := []struct {
		chat   int64
		thread int
	}{{111, 0}, {-222, 0}, {-100333, 7}}
	for _, sub := range unfiltered {
		_, err := s.Store.Subscribe(ctx, sub.chat, sub.thread, time.Now())
		require.NoError(t, err)
		// One message per update, each with its text (cards: cards_test.go).
		setSettings(t, s, store.SubscriberKey(sub.chat, sub.thread), store.Settings{Mode: store.ModeMessages})
	}
	_, err := s.Store.Subscribe(ctx, 444, 0, time.Now())
	require.NoError(t, err)
	require.NoError(t, s.Store.SetComponents(ctx, store.SubscriberKey(444, 0), []string{pt.compB}))

	s.StartWorker(t)
	s.WaitForBaseline(t)
	require.Empty(t, s.Telegram.Messages(), "the baseline notifies no one")

	p := pt.page
	p.AddIncidentUpdate("01INCA0000000000000000000A", "Elevated errors on "+pt.nameA, "investigating", "minor", "01UPDA0000000000000000001A",
		"We are investigating elevated errors.\n\nNext update within 30 minutes.")
	p.AffectComponent("01INCA0000000000000000000A", pt.compA, "partial_outage")
	waitForText(t, s, 111, 0, "We are investigating elevated errors.")
	p.AddIncidentUpdate("01INCA0000000000000000000A", "", "identified", "minor", "01UPDA0000000000000000002A", "We identified a faulty deploy.")
	waitForText(t, s, 111, 0, "We identified a faulty deploy.")
	p.AddIncidentUpdate("01INCA0000000000000000000A", "", "resolved", "minor", "01UPDA0000000000000000003A", "The deploy was rolled back.")
	waitForText(t, s, 111, 0, "The deploy was rolled back.")

	p.AddIncidentUpdate("01INCB0000000000000000000B", "Errors in "+pt.nameB, "investigating", "minor", "01UPDB0000000000000000001B", "Only the filtered chat's component.")
	p.AffectComponent("01INCB0000000000000000000B", pt.compB, "degraded_performance")
	waitForText(t, s, 444, 0, "Only the filtered chat's component.")

	p.SetComponent(pt.compC, pt.nameC, "major_outage")
	waitForText(t, s, 111, 0, "Major Outage")

	p.AddMaintenanceUpdate("01MNT00000000000000000000M", "Database upgrade", "scheduled", "01UPDM0000000000000000001M", "We will upgrade the database.")
	p.AffectComponent("01MNT00000000000000000000M", pt.compA, "under_maintenance")
	waitForText(t, s, 111, 0, "We will upgrade the database.")

	// Let the last deliveries finish everywhere, then nothing more may come.
	for _, sub := range unfiltered {
		waitForText(t, s, sub.chat, sub.thread, "We will upgrade the database.")
	}
	// Stragglers (the filtered chat's, a retry) are deliveries still
	// running: what an unchanged page must not do is start new ones.
	testenv.WaitFor(t, 2*time.Minute, "every delivery to finish", func() bool {
		return len(s.Deliveries(t, enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING)) == 0
	})
	settled := len(s.Telegram.Messages())
	deliveries := len(s.Deliveries(t, enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED))
	time.Sleep(5 * interval)
	if late := s.Telegram.Messages()[settled:]; len(late) > 0 {
		t.Fatalf("an unchanged page sent %d message(s), first to %d: %q", len(late), late[0].ChatID, late[0].Text)
	}
	require.Len(t, s.Deliveries(t, enumspb.WORKFLOW_EXECUTION_STATUS_UNSPECIFIED), deliveries, "an unchanged page started a delivery")

	for _, sub := range unfiltered {
		msgs := s.Telegram.MessagesTo(sub.chat, sub.thread)
		texts := make([]string, len(msgs))
		seen := map[string]bool{}
		for i, m := range msgs {
			texts[i] = m.Text
			require.False(t, seen[m.Text], "chat %d:%d got a notice twice:\n%s", sub.chat, sub.thread, m.Text)
			seen[m.Text] = true
		}
		all := strings.Join(texts, "\n---\n")
		// Every incident notice carries its text, in order.
		inOrder(t, all, "We are investigating elevated errors.\n\nNext update within 30 minutes.", "We identified a faulty deploy.", "The deploy was rolled back.")
		require.Contains(t, all, "Only the filtered chat's component.")
		require.Contains(t, all, "Scheduled maintenance")
		require.Contains(t, all, pt.nameC)
		require.NotContains(t, all, "No update message provided.")
		if pt.maintenanceHasWindow {
			require.Contains(t, all, "Window: ")
			require.Contains(t, all, "Components: "+pt.nameA)
		}
	}
	// The filtered chat gets the incident on its component (and that
	// component's own change), nothing about the others.
	filtered := s.Telegram.MessagesTo(444, 0)
	var texts []string
	for _, m := range filtered {
		texts = append(texts, m.Text)
		require.Contains(t, m.Text, pt.nameB, "a notice about another component reached the filtered chat")
		require.NotContains(t, m.Text, "faulty deploy")
		require.NotContains(t, m.Text, "Scheduled maintenance")
	}
	require.Contains(t, strings.Join(texts, "\n"), "Errors in "+pt.nameB)
}

func waitForText(t *testing.T, s *testenv.Stack, chat int64, thread int, text string) {
	t.Helper()
	testenv.WaitFor(t, 60*time.Second, "a notice with "+text, func() bool {
		for _, m := range s.Telegram.MessagesTo(chat, thread) {
			if strings.Contains(m.Text, text) {
				return true
			}
		}
		return false
	})
}

func inOrder(t *testing.T, all string, parts ...string) {
	t.Helper()
	at := 0
	for _, p := range parts {
		i := strings.Index(all[at:], p)
		require.GreaterOrEqual(t, i, 0, "missing or out of order: %q in\n%s", p, all)
		at += i + len(p)
	}
}
