package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// colChatCalls holds each chat's turns for Bot API calls that post or
// change messages: the calls of the last minute and the sends waiting.
// It is one budget per chat shared by every worker process (and the
// command bot), so the spacing holds whichever process makes a call.
//
// Only the insert of a new turn is contended, and it is atomic on FerretDB
// too (a unique _id); every other write is to a turn by its one owner.
// FerretDB v1 loses concurrent updates of one document, compare-and-set
// and $inc included (measured: 500 increments by 25 clients left 108).
const colChatCalls = "chat_calls"

// ChatBudget is the limit of one chat (telegram.ChatBudget).
type ChatBudget interface {
	// Slot is the earliest start of a call after the calls made (oldest
	// first) and ahead calls that go first.
	Slot(calls []time.Time, ahead int, now time.Time) time.Time
}

// chatTurn is one call's turn in a chat. Turns go in Seq order.
type chatTurn struct {
	ID     string    `bson:"_id"`
	Chat   int64     `bson:"chat"`
	Seq    int64     `bson:"seq"`
	Ticket string    `bson:"ticket"`
	Called time.Time `bson:"called,omitempty"` // zero: waiting for its turn
	// Until a waiting turn keeps its place: its owner comes back before
	// (TurnGrace after when it was told to), or gave up or died.
	Until time.Time `bson:"until"`
}

// TurnGrace is how long past the time it was told to come back a waiting
// turn keeps its place (a send queue's backlog delays the comeback).
const TurnGrace = time.Minute

// claimAttempts bounds the retries of one claim (a turn taken by another
// process first).
const claimAttempts = 20

// keepCalls is how long a call made still counts (a group's minute).
const keepCalls = 61 * time.Second

// ClaimCall takes the chat's turn for the call of ticket (unique to one
// call of one send: a retried claim finds its waiting turn again). ok:
// the call may start now (the caller makes it at once). Otherwise the
// turn waits in the chat's queue, in the order claims first came, and
// retryAt is when to claim again.
func (s *Store) ClaimCall(ctx context.Context, chatID int64, ticket string, b ChatBudget, now time.Time) (ok bool, retryAt time.Time, err error) {
	if ticket == "" {
		return false, time.Time{}, errors.New("claim a chat's turn: no ticket")
	}
	col := s.db.Collection(colChatCalls)
	for range claimAttempts {
		turns, err := findAll[chatTurn](ctx, col, "read the turns of a chat", bson.D{{Key: "chat", Value: chatID}},
			options.Find().SetSort(bson.D{{Key: "seq", Value: 1}}))
		if err != nil {
			return false, time.Time{}, err
		}
		mine := slices.IndexFunc(turns, func(t chatTurn) bool { return t.Ticket == ticket && t.Called.IsZero() })
		if mine < 0 {
			t := chatTurn{Chat: chatID, Seq: 1, Ticket: ticket, Until: now.Add(TurnGrace)}
			if n := len(turns); n > 0 {
				t.Seq = turns[n-1].Seq + 1
			}
			t.ID = fmt.Sprintf("%d|%d", chatID, t.Seq)
			if _, err := col.InsertOne(ctx, t); mongo.IsDuplicateKeyError(err) {
				continue // another process took that turn
			} else if err != nil {
				return false, time.Time{}, fmt.Errorf("queue for a chat's turn: %w", err)
			}
			turns, mine = append(turns, t), len(turns)
		}
		d := decideTurn(turns, mine, b, now)
		id := turns[mine].ID
		if d.void {
			// Given up as abandoned while it was away, and passed: queue again.
			if _, err := col.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
				return false, time.Time{}, fmt.Errorf("queue for a chat's turn: %w", err)
			}
			continue
		}
		set := bson.D{{Key: "until", Value: d.retryAt.Add(TurnGrace)}}
		if d.ok {
			set = bson.D{{Key: "called", Value: now}}
		}
		if _, err := col.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: set}}); err != nil {
			return false, time.Time{}, fmt.Errorf("take a chat's turn: %w", err)
		}
		if d.ok && len(d.prune) > 0 {
			// Best effort: what is left is pruned by the next call.
			_, _ = col.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: d.prune}}}})
		}
		return d.ok, d.retryAt, nil
	}
	return false, now.Add(time.Second), nil // contended: come back shortly
}

// turnDecision is what a claim of turns[mine] gets.
type turnDecision struct {
	ok      bool
	retryAt time.Time
	// void: a later turn has called (this one was given up as abandoned).
	void bool
	// prune are turns that no longer matter.
	prune []string
}

// decideTurn is the rule of a claim, without I/O: a turn goes when every
// earlier turn still waiting has gone (or was abandoned) and the budget
// lets a call start after the calls made.
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
		case i == mine:
		case !t.Called.IsZero():
			called = append(called, t.Called)
			latest = i
		case !t.Until.Before(now):
			ahead++
		default:
			d.prune = append(d.prune, t.ID) // abandoned
		}
	}
	for i, t := range turns[:mine] {
		if !t.Called.IsZero() && i != latest && now.Sub(t.Called) > keepCalls {
			d.prune = append(d.prune, t.ID)
		}
	}
	slices.SortFunc(called, time.Time.Compare)
	d.retryAt = b.Slot(called, ahead, now)
	d.ok = ahead == 0 && !d.retryAt.After(now)
	return d
}
