package fakes

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestTelegramLimits(t *testing.T) {
	tg := NewTelegram("1:x")
	defer tg.Close()
	send := func(chat int64) int {
		resp, err := http.Post(tg.URL()+"/bot1:x/sendMessage", "application/json",
			strings.NewReader(`{"chat_id":`+strconv.FormatInt(chat, 10)+`,"text":"hi"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	tg.PerGroupPerMinute = 2
	if a, b, c, other := send(-5), send(-5), send(-5), send(-6); a != 200 || b != 200 || c != 429 || other != 200 {
		t.Fatalf("group limit: %d %d %d, other group %d", a, b, c, other)
	}
	tg.RealLimits()
	n429 := 0
	for i := range int64(40) {
		if send(100+i) == 429 {
			n429++
		}
	}
	if n429 == 0 || tg.TooManyCount() != n429+1 {
		t.Fatalf("40 messages at once: %d 429s (count %d)", n429, tg.TooManyCount())
	}
	if send(100) != 429 {
		t.Fatal("per-chat limit not enforced")
	}
}

// Edits count like messages under the real limits: in the chat (one a
// second), in a group (20 a minute) and overall (30 a second).
func TestTelegramLimitsCountEdits(t *testing.T) {
	tg := NewTelegram("1:x")
	defer tg.Close()
	call := func(method, body string) int {
		resp, err := http.Post(tg.URL()+"/bot1:x/"+method, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	chat := func(id int64) string { return strconv.FormatInt(id, 10) }
	send := func(id int64) int { return call("sendMessage", `{"chat_id":`+chat(id)+`,"text":"hi"}`) }
	edit := func(id int64, msg int, text string) int {
		return call("editMessageText", `{"chat_id":`+chat(id)+`,"message_id":`+strconv.Itoa(msg)+`,"text":"`+text+`"}`)
	}

	// Without limits (the default) nothing is counted.
	if send(1) != 200 || edit(1, 1, "a") != 200 || edit(1, 1, "b") != 200 || send(1) != 200 {
		t.Fatal("limits enforced without RealLimits")
	}
	tg.RealLimits()
	if send(2) != 200 {
		t.Fatal("first message refused")
	}
	if got := edit(2, 3, "edited"); got != 429 {
		t.Fatalf("an edit right after a message in the same chat: %d, want 429", got)
	}
	if got := send(3); got != 200 {
		t.Fatalf("another chat: %d", got)
	}
	if got := call("editMessageReplyMarkup", `{"chat_id":3,"message_id":4,"reply_markup":"{}"}`); got != 429 {
		t.Fatalf("editMessageReplyMarkup right after a message in the same chat: %d, want 429", got)
	}

	// The global limit: 40 edits of cards in 40 chats at once, after
	// their messages were let through one by one without limits.
	tg.mu.Lock()
	tg.GlobalPerSecond, tg.PerChatInterval = 0, 0
	tg.mu.Unlock()
	first := len(tg.Messages()) + 1
	for i := range int64(40) {
		if send(1000+i) != 200 {
			t.Fatal("seeding refused")
		}
	}
	tg.RealLimits()
	time.Sleep(1100 * time.Millisecond) // the seeding leaves the window and the chats
	tm0 := tg.TooManyCount()
	n429 := 0
	for i := range int64(40) {
		if edit(1000+i, first+int(i), "card") == 429 {
			n429++
		}
	}
	if n429 < 10 || tg.TooManyCount()-tm0 != n429 {
		t.Fatalf("40 edits at once: %d 429s (count %d), want at least 10", n429, tg.TooManyCount()-tm0)
	}

	// Groups: messages and edits share the 20 a minute.
	tg.mu.Lock()
	tg.PerChatInterval = 0
	tg.mu.Unlock()
	time.Sleep(1100 * time.Millisecond)
	if send(-9) != 200 {
		t.Fatal("group message refused")
	}
	id := len(tg.Messages())
	ok := 1
	for i := range 25 {
		if edit(-9, id, "v"+strconv.Itoa(i)) == 200 {
			ok++
		}
	}
	if ok != 20 {
		t.Fatalf("a group took %d messages and edits in a minute, want 20", ok)
	}
}

func TestBusiest(t *testing.T) {
	t0 := time.Now()
	at := func(ms ...int) []time.Time {
		var out []time.Time
		for _, m := range ms {
			out = append(out, t0.Add(time.Duration(m)*time.Millisecond))
		}
		return out
	}
	for _, c := range []struct {
		at   []time.Time
		want int
	}{
		{nil, 0}, {at(0), 1}, {at(0, 999), 2}, {at(0, 1000), 1}, {at(500, 0, 900, 1400, 1450), 4},
	} {
		if got := Busiest(c.at, time.Second); got != c.want {
			t.Errorf("busiest(%v) = %d, want %d", c.at, got, c.want)
		}
	}
}
