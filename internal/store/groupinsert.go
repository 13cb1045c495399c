package store

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// groupInsert writes the inserts that concurrent callers make into one
// collection as one unordered InsertMany (a group commit): while one
// InsertMany is in flight the callers after it queue, and the next takes
// them all. A caller alone pays one round trip, as with InsertOne; the
// sends of a batch that claim their chats' turns at once pay one or two
// between them (issue 29: round trips a message). Each caller gets its own
// document's answer: a duplicate _id is a mongo.WriteError with code 11000,
// as InsertOne's.
type groupInsert struct {
	mu      sync.Mutex
	queue   []*queuedInsert
	running bool
}

type queuedInsert struct {
	doc  any
	err  error
	done chan struct{}
}

// maxGroupInsert bounds the documents of one InsertMany.
const maxGroupInsert = 500

// groupInsertTimeout bounds one InsertMany: it is no caller's (each may
// give up on its own context; the write goes on for the others).
const groupInsertTimeout = 10 * time.Second

// insert writes doc with the other callers' documents queued meanwhile.
// A caller whose context ends first gets its error; its document may
// still be written (as an InsertOne cut after it was sent may be).
func (g *groupInsert) insert(ctx context.Context, col *mongo.Collection, doc any) error {
	q := &queuedInsert{doc: doc, done: make(chan struct{})}
	g.mu.Lock()
	g.queue = append(g.queue, q)
	lead := !g.running
	g.running = true
	g.mu.Unlock()
	if lead {
		go g.run(col)
	}
	select {
	case <-q.done:
		return q.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// groupLinger is how long the first insert after a quiet spell waits for
// the others under way: the sends of a batch ask for their chats' turns
// within a millisecond or two of one another once their slots are leased,
// and without it the first went alone and the rest in one or two more.
const groupLinger = 3 * time.Millisecond

// run writes the queue until it is empty.
func (g *groupInsert) run(col *mongo.Collection) {
	time.Sleep(groupLinger)
	for {
		g.mu.Lock()
		n := min(len(g.queue), maxGroupInsert)
		if n == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		batch := g.queue[:n:n]
		g.queue = g.queue[n:]
		g.mu.Unlock()
		docs := make([]any, n)
		for i, q := range batch {
			docs[i] = q.doc
		}
		ctx, cancel := context.WithTimeout(context.Background(), groupInsertTimeout)
		_, err := col.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
		cancel()
		errs := perDocument(err, n)
		for i, q := range batch {
			q.err = errs[i]
			close(q.done)
		}
	}
}

// perDocument splits an unordered InsertMany's error into each
// document's: its write error, or the whole command's error for all.
func perDocument(err error, n int) []error {
	out := make([]error, n)
	if err == nil {
		return out
	}
	var bw mongo.BulkWriteException
	if !errors.As(err, &bw) || bw.WriteConcernError != nil || len(bw.WriteErrors) == 0 {
		for i := range out {
			out[i] = err
		}
		return out
	}
	for _, we := range bw.WriteErrors {
		if we.Index >= 0 && we.Index < n {
			out[we.Index] = we.WriteError
		}
	}
	return out
}
