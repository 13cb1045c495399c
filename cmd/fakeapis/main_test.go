package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

const token = "123456789:AAtestTOKENsecretPART_abcdefghijklmn"

func post(t *testing.T, url string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// Someone trying the bot on the fakes can act as a user: the update the
// control queues is what Telegram would deliver for a /start in a topic.
func TestControlUserQueuesACommand(t *testing.T) {
	tg := fakes.NewTelegram(token)
	defer tg.Close()
	updates := fakes.NewUpdates(tg, 1)
	tg.ChatMembers(nil)
	srv := httptest.NewServer(telegramMux(tg, updates))
	defer srv.Close()

	if resp := post(t, srv.URL+"/control/user?chat=-100123&thread=7&text=/start@any_bot"); resp.StatusCode != 200 {
		t.Fatalf("control answered %d", resp.StatusCode)
	}
	resp, err := http.Get(srv.URL + "/bot" + token + "/getUpdates?offset=0&timeout=0")
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		OK     bool              `json:"ok"`
		Result []json.RawMessage `json:"result"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&body)
	if !body.OK || len(body.Result) != 1 {
		t.Fatalf("getUpdates = %+v", body)
	}
	raw := string(body.Result[0])
	for _, want := range []string{`"message_thread_id":7`, `"is_topic_message":true`, `"type":"bot_command"`, `"length":14`, `"id":-100123`} {
		if !strings.Contains(raw, want) {
			t.Errorf("update lacks %s: %s", want, raw)
		}
	}
	// The acting user is the group's creator, so admin-only commands work.
	resp, err = http.Get(srv.URL + "/bot" + token + "/getChatMember?chat_id=-100123&user_id=1001")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"creator"`) {
		t.Errorf("getChatMember = %s", b)
	}
	if resp := post(t, srv.URL+"/control/user?text=/start"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a control without chat answered %d", resp.StatusCode)
	}
}

func TestPageControlsOnBothProviders(t *testing.T) {
	page := fakes.NewIncidentIO()
	defer page.Close()
	srv := httptest.NewServer(pageMux(page))
	defer srv.Close()
	post(t, srv.URL+"/control/incident?id=INC1&name=Errors&status=investigating&update=U1&body=Looking&component="+fakes.IOComponentCLI)
	resp, err := http.Get(srv.URL + "/proxy/" + strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"ongoing_incidents":[{`) || !strings.Contains(string(b), `"message_string":"Looking"`) {
		t.Errorf("native summary after the control: %.400s", b)
	}
	if resp := post(t, srv.URL+"/control/incident?id=INC2&name=x&status=investigating&update=U2&body=x&component=nope"); resp.StatusCode != http.StatusNoContent && resp.StatusCode != http.StatusBadRequest {
		t.Errorf("bad component answered %d", resp.StatusCode)
	}
}

// A maintenance with a window, as a tester schedules one to see reminders.
func TestMaintenanceControlSetsTheWindow(t *testing.T) {
	page := fakes.NewIncidentIO()
	defer page.Close()
	srv := httptest.NewServer(pageMux(page))
	defer srv.Close()
	base := srv.URL + "/control/maintenance?id=M1&name=Upgrade&status=scheduled&update=MU1&body=Soon&component=" + fakes.IOComponentCLI
	if resp := post(t, base+"&start=2026-12-01T10:00:00Z&end=2026-12-01T09:00:00Z"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("end before start answered %d", resp.StatusCode)
	}
	if resp := post(t, base+"&start=2026-12-01T10:00:00Z&end=2026-12-01T11:00:00Z"); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("answered %d", resp.StatusCode)
	}
	resp, err := http.Get(srv.URL + "/proxy/" + strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(b), `"scheduled_maintenances":[{`) || !strings.Contains(string(b), `"start_at":"2026-12-01T10:00:00`) {
		t.Errorf("native summary: %.600s", b)
	}
}

// Out of the box, two pages: the OpenAI-like incident.io page and a
// classic Statuspage named github, each with its own controls, listed in
// the start-up message as the STATUS_PAGES value the bot accepts.
func TestTwoPagesOutOfTheBox(t *testing.T) {
	served, err := newPages("incidentio", "127.0.0.1:8082", "127.0.0.1:8083")
	if err != nil {
		t.Fatal(err)
	}
	if len(served) != 2 || served[0].name != "openai" || served[1].name != "github" {
		t.Fatalf("pages: %+v", served)
	}
	msg := startupMessage("127.0.0.1:8081", served)
	for _, want := range []string{
		"fake status page openai (incidentio, like status.openai.com) on http://127.0.0.1:8082",
		"fake status page github (statuspage, like www.githubstatus.com) on http://127.0.0.1:8083",
		"TELEGRAM_API_URL=http://127.0.0.1:8081 and STATUSPAGE_URL=http://127.0.0.1:8082",
		"STATUS_PAGES=openai=http://127.0.0.1:8082,github=http://127.0.0.1:8083",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("start-up message lacks %q:\n%s", want, msg)
		}
	}
	value := msg[strings.LastIndex(msg, "STATUS_PAGES=")+len("STATUS_PAGES="):]
	list, err := pages.Parse(value)
	if err != nil || len(list) != 2 || list[1].URL != "http://127.0.0.1:8083" {
		t.Errorf("STATUS_PAGES value %q: %+v, %v", value, list, err)
	}

	// Each page served as main serves it (here on test ports): the bot's
	// client reads the first as incident.io and the second as Statuspage,
	// and a control on one changes that page alone.
	var urls []string
	for _, sp := range served {
		srv := httptest.NewServer(pageMux(sp.pg))
		defer srv.Close()
		urls = append(urls, srv.URL)
	}
	if resp := post(t, urls[1]+"/control/component?id=ghactions001&status=major_outage"); resp.StatusCode != http.StatusNoContent {
		t.Fatalf("control on github answered %d", resp.StatusCode)
	}
	ctx := context.Background()
	openai, _, err := statuspage.NewAuto(urls[0], 5*time.Second).Fetch(ctx)
	if err != nil || openai.Provider != statuspage.ProviderIncidentIO || openai.Name != "OpenAI" {
		t.Fatalf("first page: %+v, %v", openai, err)
	}
	github, _, err := statuspage.NewAuto(urls[1], 5*time.Second).Fetch(ctx)
	if err != nil || github.Provider != statuspage.ProviderStatuspage || github.Name != "GitHub" {
		t.Fatalf("second page: %+v, %v", github, err)
	}
	for _, c := range github.Components {
		if (c.ID == "ghactions001") != (c.Status == "major_outage") {
			t.Errorf("github component %s is %s", c.Name, c.Status)
		}
	}
	for _, c := range openai.Components {
		if c.Status != "operational" {
			t.Errorf("the control on github changed openai's %s to %s", c.Name, c.Status)
		}
	}
}

func TestPagesFlags(t *testing.T) {
	served, err := newPages("statuspage", "127.0.0.1:8082", "")
	if err != nil || len(served) != 1 || served[0].kind != "statuspage" {
		t.Fatalf("-github '': %+v, %v", served, err)
	}
	if msg := startupMessage("127.0.0.1:8081", served); strings.Contains(msg, "STATUS_PAGES") || !strings.Contains(msg, "STATUSPAGE_URL=http://127.0.0.1:8082") {
		t.Errorf("one page: %s", msg)
	}
	if _, err := newPages("atlassian", "127.0.0.1:8082", ""); err == nil || !strings.Contains(err.Error(), "-provider must be incidentio or statuspage") {
		t.Errorf("bad provider: %v", err)
	}
	if _, err := newPages("incidentio", "127.0.0.1:8082", "127.0.0.1:8082"); err == nil || !strings.Contains(err.Error(), "different addresses") {
		t.Errorf("same address twice: %v", err)
	}
}
