package fakes

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// getChat and getChatMember answer as the Bot API does, errors included.
func TestTelegramChats(t *testing.T) {
	tg := NewTelegram("1:x")
	defer tg.Close()
	call := func(method, body string) (int, map[string]any) {
		t.Helper()
		resp, err := http.Post(tg.URL()+"/bot1:x/"+method, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	tg.AddChat(Chat{ID: -1001, Type: "channel", Title: "News", Username: "ournews", BotIn: true, Members: map[int64]string{5: "creator"}})
	tg.AddChat(Chat{ID: -1002, Type: "channel", Title: "Public", Username: "public", Members: map[int64]string{5: "creator"}})
	tg.AddChat(Chat{ID: -1003, Type: "channel", Title: "Hidden"})
	tg.AddChat(Chat{ID: -1004, Type: "supergroup", Title: "Group", BotIn: true})

	for _, c := range []struct {
		method, body string
		code         int
		want         string // in the description, or the result's status / type
	}{
		{"getChat", `{"chat_id":"@ournews"}`, 200, "channel"},
		{"getChat", `{"chat_id":"@OURNEWS"}`, 200, "channel"},
		{"getChat", `{"chat_id":-1001}`, 200, "channel"},
		{"getChat", `{"chat_id":"@public"}`, 200, "channel"}, // public: found without the bot in it
		{"getChat", `{"chat_id":-1003}`, 400, "Bad Request: chat not found"},
		{"getChat", `{"chat_id":"@nosuch"}`, 400, "Bad Request: chat not found"},
		{"getChatMember", `{"chat_id":-1001,"user_id":5}`, 200, "creator"},
		{"getChatMember", `{"chat_id":-1001,"user_id":6}`, 200, "left"},
		{"getChatMember", `{"chat_id":-1001,"user_id":1000}`, 200, "administrator"},
		{"getChatMember", `{"chat_id":-1004,"user_id":6}`, 200, "member"},
		{"getChatMember", `{"chat_id":"@public","user_id":5}`, 403, "Forbidden: bot is not a member of the channel chat"},
		{"getChatMember", `{"chat_id":-1003,"user_id":5}`, 400, "Bad Request: chat not found"},
		{"getChatMember", `{"chat_id":-9,"user_id":5}`, 400, "Bad Request: chat not found"},
	} {
		code, out := call(c.method, c.body)
		got := ""
		if d, ok := out["description"].(string); ok {
			got = d
		} else if r, ok := out["result"].(map[string]any); ok {
			got, _ = r["status"].(string)
			if got == "" {
				got, _ = r["type"].(string)
			}
		}
		if code != c.code || got != c.want {
			t.Errorf("%s %s: %d %q, want %d %q", c.method, c.body, code, got, c.code, c.want)
		}
	}
	tg.SetMember(-1001, 5, "member")
	if _, out := call("getChatMember", `{"chat_id":-1001,"user_id":5}`); out["result"].(map[string]any)["status"] != "member" {
		t.Fatalf("SetMember: %v", out)
	}
}
