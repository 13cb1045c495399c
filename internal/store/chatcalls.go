package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// colChatCalls holds each chat's turns for the Bot API calls that post or
// change messages: the calls of the last minute and the sends waiting.
// It is one budget per chat shared by every worker process (and the
// command bot), so the spacing holds whichever process makes a call.
//
// A chat's state is written as numbered versions ("<chat>|<v>"), each
// inserted once: the insert of version v+1 is atomic on FerretDB too (a
// unique _id), so two processes can never both change version v. FerretDB
// v1 loses concurrent updates of one document, compare-and-set and $inc
// included (measured: 500 increments by 25 clients left 108), and reads
// by anything but _id scan the collection: every read here is by _id.
// "<chat>|head" names a recent version (a hint; versions after it are
// probed).
const colChatCalls = "chat_calls"

// ChatBudget is the limit of one chat (telegram.ChatBudget).
type ChatBudget interface {
	// Slot is the earliest start of a call after the calls made (oldest
	// first) and ahead calls that go first.
	Slot(calls []time.Time, ahead int, now time.Time) time.Time
}

// chatState is one version of a chat's turns.
type chatState struct {
	ID    string     `bson:"_id"`
	Chat  int64      `bson:"chat"`
	V     int64      `bson:"v"`
	Turns []chatTurn `bson:"turns,omitempty"`
	At    time.Time  `bson:"at"`
}

// chatTurn is one call's turn in a chat; turns go in their order.
type chatTurn struct {
	Ticket string    `bson:"ticket"`
	Called time.Time `bson:"called,omitempty"` // zero: waiting for its turn
	// Started is when the call started, when its caller says so
	// (ConfirmCall): it started later than Called by more than ConfirmAfter.
	Started time.Time `bson:"started,omitempty"`
	// Until a waiting turn keeps its place: its owner comes back before
	// (TurnGrace after when it was told to), or gave up or died.
	Until time.Time `bson:"until,omitempty"`
}

type chatHead struct {
	V int64 `bson:"v"`
}

// TurnGrace is how long past the time it was told to come back a waiting
// turn keeps its place (a send queue's backlog delays the comeback).
const TurnGrace = time.Minute

// ConfirmAfter is how late after its claim a call may start unconfirmed:
// within the budgets' margin (telegram.ChatBudget), so the spacing Telegram
// sees holds. Later than that (a slow MongoDB answer), its start is
// confirmed: one more write only then.
const ConfirmAfter = 50 * time.Millisecond

// claimAttempts bounds the retries of one change (a version written by
// another process first).
const claimAttempts = 30

// keepCalls is how long a call made still counts (a group's minute).
const keepCalls = 61 * time.Second

// ChatCallsRetention is how long the versions of a chat's turns are kept:
// long past any call that still counts and any reader of an older head.
// Deleting a version inline would let a reader that read an older head
// write it again; the heads stay (one per chat, without "at").
const ChatCallsRetention = time.Hour

// Claim is the answer to ClaimCall.
type Claim struct {
	// OK: the call may start now; the caller makes it at once, and when it
	// started later than ConfirmAfter past the claim's now, says when
	// (ConfirmCall).
	OK      bool
	RetryAt time.Time // not OK: when to claim again
}

// ClaimCall takes the chat's turn for the call of ticket (unique to one
// call of one send: a claim that comes back finds its waiting turn
// again). Otherwise the turn waits in the chat's queue, in the order of
// the tickets (a notice's starts with its event's time: a chat gets a
// burst in the order of its events, whichever send claimed first), and
// RetryAt is when to claim again.
func (s *Store) ClaimCall(ctx context.Context, chatID int64, ticket string, b ChatBudget, now time.Time) (Claim, error) {
	if ticket == "" {
		return Claim{}, errors.New("claim a chat's turn: no ticket")
	}
	var c Claim
	err := s.changeChat(ctx, chatID, now, func(turns []chatTurn) ([]chatTurn, bool) {
		mine := slices.IndexFunc(turns, func(t chatTurn) bool { return t.Ticket == ticket && t.Called.IsZero() })
		if mine < 0 {
			turns, mine = queueTurn(turns, ticket)
		}
		d := decideTurn(turns, mine, b, now)
		if d.void { // given up as abandoned while it was away: queue again
			turns, mine = queueTurn(slices.Delete(turns, mine, mine+1), ticket)
			d = decideTurn(turns, mine, b, now)
		}
		c = Claim{OK: d.ok, RetryAt: d.retryAt}
		if d.ok {
			turns[mine].Called, turns[mine].Until = now, time.Time{}
		} else {
			until := d.retryAt.Add(TurnGrace)
			if turns[mine].Until.Equal(until) && len(d.prune) == 0 {
				return turns, false
			}
			turns[mine].Until = until
		}
		return dropTurns(turns, d.prune), true
	})
	return c, err
}

// ConfirmCall says when the call of ticket started: the next turn is
// spaced from then, not from the claim.
func (s *Store) ConfirmCall(ctx context.Context, chatID int64, ticket string, started time.Time) error {
	return s.changeChat(ctx, chatID, started, func(turns []chatTurn) ([]chatTurn, bool) {
		for i := len(turns) - 1; i >= 0; i-- {
			if turns[i].Ticket == ticket && !turns[i].Called.IsZero() {
				turns[i].Started = started
				return turns, true
			}
		}
		return turns, false
	})
}

// DropTurn gives up the waiting turn of ticket (its caller will not
// call): the turns behind it need not wait out its TurnGrace.
func (s *Store) DropTurn(ctx context.Context, chatID int64, ticket string) error {
	return s.changeChat(ctx, chatID, time.Now(), func(turns []chatTurn) ([]chatTurn, bool) {
		i := slices.IndexFunc(turns, func(t chatTurn) bool { return t.Ticket == ticket && t.Called.IsZero() })
		if i < 0 {
			return turns, false
		}
		return slices.Delete(turns, i, i+1), true
	})
}

// changeChat applies change to the chat's latest turns and writes them as
// the next version; when another process wrote that version first, it
// reads again. change says whether there is anything to write.
func (s *Store) changeChat(ctx context.Context, chatID int64, now time.Time, change func([]chatTurn) ([]chatTurn, bool)) error {
	col := s.db.Collection(colChatCalls)
	prefix := strconv.FormatInt(chatID, 10) + "|"
	var head chatHead
	err := col.FindOne(ctx, bson.D{{Key: "_id", Value: prefix + "head"}}).Decode(&head)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("read the turns of a chat: %w", err)
	}
	v := head.V
	var cur chatState
	if v > 0 {
		// Pruned after an hour's quiet: nothing of it counts any more.
		err := col.FindOne(ctx, bson.D{{Key: "_id", Value: prefix + strconv.FormatInt(v, 10)}}).Decode(&cur)
		if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			return fmt.Errorf("read the turns of a chat: %w", err)
		}
	}
	for lost := 0; lost < claimAttempts; {
		// Versions after the one known.
		var next chatState
		err := col.FindOne(ctx, bson.D{{Key: "_id", Value: prefix + strconv.FormatInt(v+1, 10)}}).Decode(&next)
		if err == nil {
			v, cur = v+1, next
			continue
		}
		if !errors.Is(err, mongo.ErrNoDocuments) {
			return fmt.Errorf("read the turns of a chat: %w", err)
		}
		turns, write := change(slices.Clone(cur.Turns))
		if !write {
			return nil
		}
		st := chatState{ID: prefix + strconv.FormatInt(v+1, 10), Chat: chatID, V: v + 1, Turns: turns, At: now}
		if _, err := col.InsertOne(ctx, st); mongo.IsDuplicateKeyError(err) {
			lost++
			continue // another process wrote it first: read it
		} else if err != nil {
			return fmt.Errorf("write the turns of a chat: %w", err)
		}
		// Best effort: a head left behind costs the next reader a probe;
		// old versions the maintenance prunes (ChatCallsRetention).
		_, _ = col.UpdateOne(ctx, bson.D{{Key: "_id", Value: prefix + "head"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: v + 1}}}},
			options.UpdateOne().SetUpsert(true))
		return nil
	}
	return fmt.Errorf("write the turns of a chat: %d other writers first", claimAttempts)
}

// turnDecision is what a claim of turns[mine] gets.
type turnDecision struct {
	ok      bool
	retryAt time.Time
	// void: a later turn has called (this one was given up as abandoned).
	void bool
	// prune are the turns that no longer matter.
	prune []int
}

// decideTurn is the rule of a claim, without I/O: a turn goes when every
// earlier turn still waiting has gone (or was abandoned) and the budget
// lets a call start after the calls made (when they started, as far as
// known).
func decideTurn(turns []chatTurn, mine int, b ChatBudget, now time.Time) turnDecision {
	var d turnDecision
	var called []time.Time
	ahead, latest := 0, -1
	for i, t := range turns {
		switch {
		case i > mine:
			if !t.Called.IsZero() {
				return turnDecision{void: true}
			}
			if t.Until.Before(now) {
				d.prune = append(d.prune, i)
			}
		case i == mine:
		case !t.Started.IsZero():
			called = append(called, t.Started)
			latest = i
		case !t.Called.IsZero():
			called = append(called, t.Called)
			latest = i
		case !t.Until.Before(now):
			ahead++
		default:
			d.prune = append(d.prune, i) // abandoned
		}
	}
	for i, t := range turns[:mine] {
		if !t.Called.IsZero() && i != latest && now.Sub(t.Called) > keepCalls {
			d.prune = append(d.prune, i)
		}
	}
	slices.SortFunc(called, time.Time.Compare)
	d.retryAt = b.Slot(called, ahead, now)
	d.ok = ahead == 0 && !d.retryAt.After(now)
	return d
}

// queueTurn puts a waiting turn for ticket into turns in the order of the
// tickets: behind every turn that has called (those keep their place)
// and every waiting one with a ticket not after it.
func queueTurn(turns []chatTurn, ticket string) ([]chatTurn, int) {
	at := len(turns)
	for at > 0 && turns[at-1].Called.IsZero() && turns[at-1].Ticket > ticket {
		at--
	}
	return slices.Insert(turns, at, chatTurn{Ticket: ticket}), at
}

// dropTurns removes the turns at the indexes prune.
func dropTurns(turns []chatTurn, prune []int) []chatTurn {
	out := turns[:0:0]
	for i, t := range turns {
		if !slices.Contains(prune, i) {
			out = append(out, t)
		}
	}
	return out
}
