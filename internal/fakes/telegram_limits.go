package fakes

import (
	"sort"
	"time"
)

// Telegram's flood limits for one token (apis.md): about 30 messages a
// second across all chats, one a second in one chat, 20 a minute in one
// group; "edits count against the same per-chat limits as sends". The
// fake counts an edit like a message in all three, the global one
// included: an edit is the same kind of message traffic, and a fake that
// let edits through for free hid a fan-out of incident cards (an edit and
// a reply per chat) running at twice the rate limit. Pins and unpins
// count too: each posts a service message in the chat (apis.md).

// admit applies the limits to one message or edit in chatID at now,
// counting it when it passes; a 429 when it does not. The caller holds
// t.mu. Without limits set (the default) everything passes.
func (t *Telegram) admit(chatID int64, now time.Time) *APIError {
	return t.admitPaid(chatID, now, false)
}

// admitPaid is admit for a message sent with allow_paid_broadcast when
// paid: the overall limit is then PaidPerSecond (Telegram lifts the bot's
// limit to 1000 a second for paid broadcasts; a call without the
// parameter still meets the free 30 a second, counted among every call of
// the last second, paid ones included). The per-chat and per-group limits
// stay.
func (t *Telegram) admitPaid(chatID int64, now time.Time, paid bool) *APIError {
	if t.GlobalPerSecond > 0 {
		cut := now.Add(-time.Second)
		i := 0
		for i < len(t.window) && t.window[i].Before(cut) {
			i++
		}
		t.window = t.window[i:]
		limit := t.GlobalPerSecond
		if paid && t.PaidPerSecond > limit {
			limit = t.PaidPerSecond
		}
		if len(t.window) >= limit {
			t.tooMany++
			return TooMany(1)
		}
	}
	if t.PerChatInterval > 0 {
		if last, ok := t.lastPerChat[chatID]; ok && now.Sub(last) < t.PerChatInterval {
			t.tooMany++
			return TooMany(1)
		}
		t.lastPerChat[chatID] = now
	}
	if t.PerGroupPerMinute > 0 && chatID < 0 {
		w := t.perGroup[chatID]
		for len(w) > 0 && now.Sub(w[0]) >= time.Minute {
			w = w[1:]
		}
		if len(w) >= t.PerGroupPerMinute {
			t.perGroup[chatID] = w
			t.tooMany++
			return TooMany(int(time.Minute-now.Sub(w[0]))/int(time.Second) + 1)
		}
		t.perGroup[chatID] = append(w, now)
	}
	if t.GlobalPerSecond > 0 {
		t.window = append(t.window, now)
	}
	t.counted = append(t.counted, now)
	return nil
}

// BusiestSecond is the largest number of messages and edits the fake let
// through within any one second (a sliding window over their arrival
// times): what Telegram's global limit judges.
func (t *Telegram) BusiestSecond() int {
	t.mu.Lock()
	at := append([]time.Time(nil), t.counted...)
	t.mu.Unlock()
	return Busiest(at, time.Second)
}

// Busiest is the most instants of at within any window of length d; it
// sorts at.
func Busiest(at []time.Time, d time.Duration) int {
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	most, lo := 0, 0
	for hi := range at {
		for at[hi].Sub(at[lo]) >= d {
			lo++
		}
		most = max(most, hi-lo+1)
	}
	return most
}
