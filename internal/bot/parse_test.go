package bot

import (
	"encoding/json"
	"testing"
)

// FuzzParseCommand: the parser never panics, its output is bounded, valid
// UTF-8 and consistent, and /subscribe's parser accepts whatever it gives.
// FuzzReplies: whatever a user types, the replies that quote it are valid
// Telegram HTML within the length limit.
// FuzzDecodeUpdates: a getUpdates answer never panics the decoder, and an
// item with an update_id is never dropped silently (the offset must move).
func FuzzDecodeUpdates(f *testing.F) {
	f.Add(`{"update_id":5,"message":{"message_id":1,"date":1,"chat":{"id":1,"type":"private"},"text":"/start"}}`)
	f.Add(`{"update_id":6,"my_chat_member":{"chat":{"id":1,"type":"private"},"from":{"id":1},"date":1,"old_chat_member":{"status":"x"},"new_chat_member":{"status":"left"}}}`)
	f.Add(`{"update_id":7,"callback_query":{"id":"1","from":{"id":1},"message":{"message_id":1,"date":0,"chat":{"id":1}}}}`)
	f.Add(`{"update_id":"x"}`)
	f.Fuzz(func(t *testing.T, item string) {
		if !json.Valid([]byte(item)) {
			return
		}
		got := decodeUpdates([]json.RawMessage{json.RawMessage(item)})
		var probe struct {
			ID *int64 `json:"update_id"`
		}
		if json.Unmarshal([]byte(item), &probe) == nil && probe.ID != nil && len(got) != 1 {
			t.Fatalf("update %d dropped", *probe.ID)
		}
		for _, p := range got {
			if !p.bad {
				_ = chatOf(p.upd)
			}
		}
	})
}
