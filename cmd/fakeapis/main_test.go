package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai-status-bot/statusbot/internal/fakes"
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
	resp, err = http.Get(srv.URL + "/bot" + token + "/getChatMember?chat_id=-100123&user_id=1000")
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
