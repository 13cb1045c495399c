package fakes

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"github.com/go-telegram/bot/models"
)

// Updates is a getUpdates queue with Telegram's semantics: a call with
// offset N confirms (drops) every update below N and returns the pending
// ones from N on, waiting up to the request's timeout (capped at MaxWait)
// for one to arrive. Like the Bot API server, an offset more than 10
// beyond the last ID assigned is treated as invalid and answered from the
// queue's head, confirming nothing: that is what a bot sees after
// Telegram restarted its IDs (see RestartIDs).
type Updates struct {
	mu      sync.Mutex
	arrived chan struct{}
	nextID  int64
	pending []queued
	calls   []GetUpdatesCall
	fail    *APIError
	// MaxWait caps how long one getUpdates waits for updates, so tests
	// never sit through a real long-poll timeout. Zero means 100ms.
	MaxWait time.Duration
}

type queued struct {
	id  int64
	raw json.RawMessage
}

// GetUpdatesCall is one getUpdates request the fake answered.
type GetUpdatesCall struct {
	Offset         int64
	Timeout        int
	AllowedUpdates []string
	Returned       []int64
}

// NewUpdates installs a getUpdates queue on t; update IDs start at firstID.
func NewUpdates(t *Telegram, firstID int64) *Updates {
	u := &Updates{arrived: make(chan struct{}), nextID: firstID}
	t.Handle("getUpdates", u.handle)
	return u
}

// Push queues an update; its ID is assigned here and returned.
func (u *Updates) Push(upd models.Update) int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	upd.ID = u.nextID
	u.nextID++
	raw, err := json.Marshal(&upd)
	if err != nil {
		panic("fakes: marshal update: " + err.Error())
	}
	u.pending = append(u.pending, queued{id: upd.ID, raw: raw})
	close(u.arrived)
	u.arrived = make(chan struct{})
	return upd.ID
}

// PushRaw queues an update given as raw JSON without "update_id" (it is
// added here), for shapes models.Update cannot express.
func (u *Updates) PushRaw(body string) int64 {
	u.mu.Lock()
	defer u.mu.Unlock()
	id := u.nextID
	u.nextID++
	raw := `{"update_id":` + strconv.FormatInt(id, 10)
	if len(body) > 2 {
		raw += "," + body[1:]
	} else {
		raw += "}"
	}
	u.pending = append(u.pending, queued{id: id, raw: json.RawMessage(raw)})
	close(u.arrived)
	u.arrived = make(chan struct{})
	return id
}

// RestartIDs makes the next updates' IDs start at firstID, as Telegram
// does after a week without updates (the next ID is random) or when the
// token changes. Updates still pending keep their IDs.
func (u *Updates) RestartIDs(firstID int64) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.nextID = firstID
}

// Fail makes getUpdates answer err until Fail(nil).
func (u *Updates) Fail(err *APIError) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.fail = err
}

// Calls returns the getUpdates requests answered so far.
func (u *Updates) Calls() []GetUpdatesCall {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]GetUpdatesCall(nil), u.calls...)
}

// Pending counts the updates not yet confirmed.
func (u *Updates) Pending() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.pending)
}

func (u *Updates) handle(p Params) (any, *APIError) {
	offset := p.Int64("offset")
	timeout, _ := strconv.Atoi(p["timeout"])
	limit, _ := strconv.Atoi(p["limit"])
	if limit <= 0 || limit > 100 {
		limit = 100
	}
	var allowed []string
	_ = json.Unmarshal([]byte(p["allowed_updates"]), &allowed)
	wait := u.MaxWait
	if wait <= 0 {
		wait = 100 * time.Millisecond
	}
	if d := time.Duration(timeout) * time.Second; d < wait {
		wait = d
	}
	deadline := time.Now().Add(wait)
	for {
		u.mu.Lock()
		if u.fail != nil {
			err := u.fail
			u.mu.Unlock()
			return nil, err
		}
		// Confirm everything below the offset, unless the offset is
		// beyond what was ever assigned (tdlib's TQueue: "Specified
		// from_id is in the future"; the server answers from the head).
		if offset <= u.nextID+10 {
			i := 0
			for i < len(u.pending) && u.pending[i].id < offset {
				i++
			}
			u.pending = u.pending[i:]
		}
		n := min(limit, len(u.pending))
		if n > 0 || !time.Now().Before(deadline) {
			out := make([]json.RawMessage, n)
			ids := make([]int64, n)
			for j := range n {
				out[j], ids[j] = u.pending[j].raw, u.pending[j].id
			}
			u.calls = append(u.calls, GetUpdatesCall{Offset: offset, Timeout: timeout, AllowedUpdates: allowed, Returned: ids})
			u.mu.Unlock()
			return out, nil
		}
		arrived := u.arrived
		u.mu.Unlock()
		select {
		case <-arrived:
		case <-time.After(time.Until(deadline)):
		}
	}
}

// ChatMembers answers getChatMember from a table of statuses per chat and
// user ("creator", "administrator", "member", ...); a missing entry is a
// plain member.
func (t *Telegram) ChatMembers(status map[int64]map[int64]string) {
	var mu sync.Mutex
	t.Handle("getChatMember", func(p Params) (any, *APIError) {
		mu.Lock()
		defer mu.Unlock()
		chat, user := p.Int64("chat_id"), p.Int64("user_id")
		s := status[chat][user]
		if s == "" {
			s = "member"
		}
		m := map[string]any{"status": s, "user": map[string]any{"id": user, "is_bot": false, "first_name": "U"}}
		switch s {
		case "creator":
			m["is_anonymous"] = false
		case "administrator":
			m["can_be_edited"], m["is_anonymous"], m["can_manage_chat"] = false, false, true
		case "restricted":
			m["is_member"], m["until_date"] = true, 0
		case "kicked":
			m["until_date"] = 0
		}
		return m, nil
	})
}
