package fakes

import (
	"encoding/json"
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

// Telegram refuses a bot more than about 30 messages a second, with 429
// and retry_after, unless they are sent with allow_paid_broadcast: then up
// to 1000. Edits have no such parameter and meet the free limit, counted
// among all calls of the last second.
func TestTelegramPaidBroadcastLimits(t *testing.T) {
	tg := NewTelegram("1:x")
	defer tg.Close()
	tg.RealLimits()
	type answer struct {
		code  int
		retry int
	}
	send := func(chat int64, paid bool) answer {
		body := `{"chat_id":` + strconv.FormatInt(chat, 10) + `,"text":"hi"`
		if paid {
			body += `,"allow_paid_broadcast":true`
		}
		resp, err := http.Post(tg.URL()+"/bot1:x/sendMessage", "application/json", strings.NewReader(body+"}"))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct {
			Parameters struct {
				RetryAfter int `json:"retry_after"`
			} `json:"parameters"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return answer{resp.StatusCode, out.Parameters.RetryAfter}
	}
	// Free: the 31st message within the second is refused (the test sends
	// far faster than one second takes).
	start := time.Now()
	for i := range int64(30) {
		if a := send(1000+i, false); a.code != 200 {
			t.Fatalf("free message %d: %d", i+1, a.code)
		}
	}
	a := send(2000, false)
	if time.Since(start) < time.Second && (a.code != 429 || a.retry < 1) {
		t.Fatalf("31st free message in a second: %d retry_after %d, want 429 with retry_after", a.code, a.retry)
	}
	// Paid: the same second lets a paid message through, recorded as paid.
	if a := send(2001, true); a.code != 200 {
		t.Fatalf("paid message after 30 free ones: %d", a.code)
	}
	if ms := tg.MessagesTo(2001, 0); len(ms) != 1 || !ms[0].Paid {
		t.Fatalf("paid message recorded as %+v", ms)
	}
	if ms := tg.MessagesTo(1000, 0); len(ms) != 1 || ms[0].Paid {
		t.Fatalf("free message recorded as %+v", ms)
	}
	// Up to 1000 paid in one second (the limits' own clock, so that a
	// slow machine cannot spread the calls over seconds); a free call in
	// that second is refused.
	tg2 := NewTelegram("1:x")
	defer tg2.Close()
	tg2.RealLimits()
	at := time.Unix(1_000_000, 0)
	tg2.mu.Lock()
	defer tg2.mu.Unlock()
	for i := range int64(1000) {
		if e := tg2.admitPaid(5000+i, at.Add(time.Duration(i)*time.Microsecond), true); e != nil {
			t.Fatalf("paid message %d: %v", i+1, e)
		}
	}
	if e := tg2.admitPaid(9000, at.Add(time.Millisecond), true); e == nil || e.Code != 429 || e.RetryAfter < 1 {
		t.Fatalf("1001st paid message in a second: %v", e)
	}
	if e := tg2.admitPaid(9001, at.Add(time.Millisecond), false); e == nil || e.Code != 429 {
		t.Fatalf("a free message among 1000 paid ones in a second: %v", e)
	}
	if e := tg2.admitPaid(9002, at.Add(1100*time.Millisecond), false); e != nil {
		t.Fatalf("a free message a second later: %v", e)
	}
}
