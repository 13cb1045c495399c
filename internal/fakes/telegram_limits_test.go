package fakes

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
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
