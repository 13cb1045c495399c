package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
// A chat's state is written as numbered versions ("<chat>#<v>"), each
// inserted once: the insert of version v+1 is atomic on FerretDB too (a
// unique _id), so two processes can never both change version v. FerretDB
// v1 loses concurrent updates of one document, compare-and-set and $inc
// included (measured: 500 increments by 25 clients left 108), and every
// read or update scans the collection, even by _id (measured: 3.5 ms at
// 1,000 documents, 34 ms at 20,000; an insert stays under 1.5 ms). So:
//
//   - a process remembers the version it last read or wrote of a chat
//     (chatMemory) and writes the next one at once: one insert, no read,
//     unless another process wrote first (a duplicate _id: then it reads
//     the chat's newest version, one find by the chat and v index);
//   - a chat it knows nothing of is claimed by inserting version 1: a
//     chat with no recent calls has no versions at all, because
//   - a chat's versions are deleted together once its newest is
//     ChatCallsQuiet old, by the process that wrote that version
//     (closeQuietChats, every chatPruneEvery): it inserts the version
//     after it, an empty one as old (the insert fails when anyone wrote
//     after it, and any process that reads it starts the chat again),
//     then deletes the chain by _id. Nothing is read: FerretDB hands an
//     insert and an _id equality to its storage, and decodes every
//     document for anything else (a range, a $in). A chain whose writer
//     died is pruned by the maintenance prune (pruneChats). The
//     collection holds the chats of the last minutes, not every chat
//     ever told.
//
// Versions of the first design ("<chat>|<v>" and "<chat>|head") are not
// read; they go with the hourly prune.
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
	// Folded: an earlier call told what this one would have (FoldTurns);
	// its owner makes no call, and it holds no one back.
	Folded bool `bson:"folded,omitempty"`
	// NotBefore holds the first turn of a burst in a quiet chat a moment,
	// for the burst's other sends to queue (ClaimCallGathering).
	NotBefore time.Time `bson:"not_before,omitempty"`
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

// ChatCallsRetention is how long versions of the first design are kept.
const ChatCallsRetention = time.Hour

// ChatCallsQuiet is how long after its newest version a chat's versions
// are deleted (when no turn waits): well past any call that still counts
// (keepCalls) and any remembered version (chatMemoryFor), so no process
// writes after a version that is gone.
const ChatCallsQuiet = 3 * time.Minute

// chatMemoryFor is how long after it was written a remembered version is
// taken for the newest without reading (another process's later version
// is found by the insert's duplicate key).
const chatMemoryFor = time.Minute

// chatPruneEvery is how often a process deletes the versions of quiet chats.
const chatPruneEvery = 30 * time.Second

// Claim is the answer to ClaimCall.
type Claim struct {
	// OK: the call may start now; the caller makes it at once, and when it
	// started later than ConfirmAfter past the claim's now, says when
	// (ConfirmCall).
	OK      bool
	RetryAt time.Time // not OK: when to claim again
	// Folded: an earlier call told what this one would have; no call.
	Folded bool
}

// ClaimCall takes the chat's turn for the call of ticket (unique to one
// call of one send: a claim that comes back finds its waiting turn
// again). Otherwise the turn waits in the chat's queue, in the order of
// the tickets (a notice's starts with its event's time: a chat gets a
// burst in the order of its events, whichever send claimed first), and
// RetryAt is when to claim again.
func (s *Store) ClaimCall(ctx context.Context, chatID int64, ticket string, b ChatBudget, now time.Time) (Claim, error) {
	return s.ClaimCallGathering(ctx, chatID, ticket, b, now, 0)
}

// ClaimCallGathering is ClaimCall for a send of a burst (many notices due
// at once): in a quiet chat its turn first waits gather, so that the
// burst's other sends queue in the order of their tickets behind or
// ahead of it, and the earliest goes first (and may tell the others,
// FoldTurns).
func (s *Store) ClaimCallGathering(ctx context.Context, chatID int64, ticket string, b ChatBudget, now time.Time, gather time.Duration) (Claim, error) {
	if ticket == "" {
		return Claim{}, errors.New("claim a chat's turn: no ticket")
	}
	var c Claim
	err := s.changeChat(ctx, chatID, now, func(turns []chatTurn) ([]chatTurn, bool) {
		mine := slices.IndexFunc(turns, func(t chatTurn) bool { return t.Ticket == ticket && t.Called.IsZero() })
		if mine < 0 {
			quiet := quietTurns(turns, now)
			turns, mine = queueTurn(turns, ticket)
			if gather > 0 && quiet {
				turns[mine].NotBefore = now.Add(gather)
			}
		}
		if turns[mine].Folded {
			c = Claim{Folded: true}
			return slices.Delete(turns, mine, mine+1), true
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

// WaitingBehind returns the tickets of the turns waiting behind ticket's
// in the chat, in their order (those a call of ticket may fold), from
// what this process knows of the chat when that is recent (no read),
// else from the chat's newest version.
func (s *Store) WaitingBehind(ctx context.Context, chatID int64, ticket string, now time.Time) ([]string, error) {
	cur, known := s.chats.recall(chatID, now)
	if !known || cur.V == 0 {
		var err error
		if cur, err = s.newestChat(ctx, chatID, cur); err != nil {
			return nil, err
		}
	}
	var out []string
	for _, t := range cur.Turns {
		if t.Ticket > ticket && t.Called.IsZero() && !t.Folded && !t.Until.Before(now) {
			out = append(out, t.Ticket)
		}
	}
	return out, nil
}

// newestChat reads the chat's newest version (from, a version known, is
// no longer taken for it).
func (s *Store) newestChat(ctx context.Context, chatID int64, _ chatState) (chatState, error) {
	st, err := s.newestVersion(ctx, chatID)
	if err == nil {
		s.chats.remember(st)
	}
	return st, err
}

// newestVersion reads the chat's newest version in one round trip (by the
// chat and v index; version 0, none, when the chat has no versions). A
// process that knows nothing of a chat, or knew a version minutes old,
// once walked the versions one by one: over a hundred reads for a group
// never quiet for hours.
func (s *Store) newestVersion(ctx context.Context, chatID int64) (chatState, error) {
	prefix := strconv.FormatInt(chatID, 10)
	var st chatState
	err := s.db.Collection(colChatCalls).FindOne(ctx,
		bson.D{{Key: "chat", Value: chatID}, {Key: "_id", Value: bson.D{{Key: "$gt", Value: prefix + "#"}, {Key: "$lt", Value: prefix + "$"}}}},
		options.FindOne().SetSort(bson.D{{Key: "v", Value: -1}})).Decode(&st)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return chatState{Chat: chatID}, nil
	}
	if err != nil {
		return chatState{Chat: chatID}, fmt.Errorf("read the turns of a chat: %w", err)
	}
	return st, nil
}

// FoldTurns marks the waiting turns of tickets as told by a call made:
// their owners make no call (their claims answer Folded).
func (s *Store) FoldTurns(ctx context.Context, chatID int64, tickets []string, now time.Time) error {
	if len(tickets) == 0 {
		return nil
	}
	return s.changeChat(ctx, chatID, now, func(turns []chatTurn) ([]chatTurn, bool) {
		changed := false
		for i, t := range turns {
			if t.Called.IsZero() && !t.Folded && slices.Contains(tickets, t.Ticket) {
				turns[i].Folded, turns[i].Until, changed = true, now.Add(10*time.Minute), true // its owner comes back within that
			}
		}
		return turns, changed
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
// reads the versions after the one known. change says whether there is
// anything to write.
func (s *Store) changeChat(ctx context.Context, chatID int64, now time.Time, change func([]chatTurn) ([]chatTurn, bool)) error {
	col := s.db.Collection(colChatCalls)
	cur, known := s.chats.recall(chatID, now)
	for lost := 0; lost < claimAttempts; {
		if !known {
			// Remembered from minutes ago, or another process wrote the
			// next version first: the newest, in one read (none when the
			// chat's versions were pruned: it starts again at version 1).
			var err error
			if cur, err = s.newestVersion(ctx, chatID); err != nil {
				return err
			}
			if restartable(cur, now) {
				if err := s.restartChain(ctx, cur); err != nil {
					return err
				}
				cur = chatState{Chat: chatID}
			}
			known = true
		}
		turns, write := change(slices.Clone(cur.Turns))
		if !write {
			s.chats.remember(cur)
			return nil
		}
		st := chatState{ID: chatVersionID(chatID, cur.V+1), Chat: chatID, V: cur.V + 1, Turns: turns, At: now}
		// With the other claims of this process under way (groupinsert.go).
		if err := s.chatInserts.insert(ctx, col, st); mongo.IsDuplicateKeyError(err) {
			lost++
			known = false
			continue // another process wrote it first: read it
		} else if err != nil {
			return fmt.Errorf("write the turns of a chat: %w", err)
		}
		s.chats.remember(st)
		s.chats.wrote(st)
		s.pruneChatsEvery(now)
		return nil
	}
	return fmt.Errorf("write the turns of a chat: %d other writers first", claimAttempts)
}

// chatRestartMargin is how much sooner than a prune a claim takes a
// chat's chain for one a prune may be deleting (restartable).
const chatRestartMargin = time.Minute

// restartable: the chat's newest version is old enough that a prune may
// be deleting the chain now (ChatCallsQuiet, less chatRestartMargin), and
// nothing in it counts any more (no call within keepCalls, no turn
// waiting). A version written after it could outlive the chain: a prune
// deletes the versions it read, and the next process that knows nothing
// of the chat would insert version 1 beside the survivor, two chains each
// spacing only its own calls (a 429). So such a chat starts again.
func restartable(st chatState, now time.Time) bool {
	if st.V == 0 || now.Sub(st.At) < ChatCallsQuiet-chatRestartMargin {
		return false
	}
	for _, t := range st.Turns {
		if t.Until.After(now) {
			return false
		}
	}
	return true
}

// restartChain deletes the chain of st, its newest version (restartable),
// so that the chat starts again at version 1. The old chain gets no
// versions after st (every process that reads it starts again too, and
// none remembers it), and its versions were written by st.At (give or
// take the clocks' skew, chatClockSkew). A chain started again meanwhile
// by another process was started after st was restartable, minutes after
// st.At, and stays whole: even where a close's empty version (v after
// the old chain's newest) hides it from the read for a moment.
func (s *Store) restartChain(ctx context.Context, st chatState) error {
	if _, err := s.deleteVersions(ctx, chainVersions(st.Chat, st.V, st.At.Add(chatClockSkew))); err != nil {
		return fmt.Errorf("start the turns of a quiet chat again: %w", err)
	}
	return nil
}

// chatClockSkew bounds how far the clocks of two processes that write a
// chat's versions may be apart: a version written after another may say
// it is older by that much.
const chatClockSkew = 30 * time.Second

// versionDelete is one version of chat_calls to delete, if it was
// written at or before NotAfter: an older read found it, and it may have
// been deleted and written again since, by a chat started again.
type versionDelete struct {
	ID       string
	NotAfter time.Time
}

// chainVersions are the deletes of a chat's versions 1 to upTo.
func chainVersions(chatID, upTo int64, notAfter time.Time) []versionDelete {
	out := make([]versionDelete, upTo)
	for v := range upTo {
		out[v] = versionDelete{ID: chatVersionID(chatID, v+1), NotAfter: notAfter}
	}
	return out
}

func chatVersionID(chatID int64, v int64) string {
	return strconv.FormatInt(chatID, 10) + "#" + strconv.FormatInt(v, 10)
}

// chatMemory is what a process knows of chats' newest versions: the one
// it last read or wrote of each, while that is recent (chatMemoryFor).
type chatMemory struct {
	mu    sync.Mutex
	chats map[int64]chatState
	// written is the version this process wrote last of each chat, until
	// it closes the chat once quiet (closeQuietChats).
	written map[int64]writtenVersion
	pruned  atomic.Int64 // unix nanoseconds of the last close started
	gap     atomic.Int64 // nanoseconds until the next may start (chatPruneGap); 0: chatPruneEvery
}

// writtenVersion is what a close needs of a version written.
type writtenVersion struct {
	Chat  int64
	V     int64
	At    time.Time
	Until time.Time // the latest its waiting turns keep their place
}

// maxWritten bounds the versions a process keeps to close: those of the
// last minutes (ChatCallsQuiet and a prune's gap), 210,000 at 1,000 calls
// a second. Past it, chats are left to the maintenance prune.
const maxWritten = 500_000

// wrote keeps st, a version this process wrote, to close its chat.
func (m *chatMemory) wrote(st chatState) {
	w := writtenVersion{Chat: st.Chat, V: st.V, At: st.At}
	for _, t := range st.Turns {
		if t.Until.After(w.Until) {
			w.Until = t.Until
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keep(w)
}

// keep makes w the version to close of its chat (m.mu held).
func (m *chatMemory) keep(w writtenVersion) {
	if m.written == nil {
		m.written = map[int64]writtenVersion{}
	}
	// A lower version is an answer that came late, unless it is the
	// version 1 of the chat started again (restartChain).
	old, ok := m.written[w.Chat]
	if ok && old.V > w.V && (w.V != 1 || !w.At.After(old.At)) {
		return
	}
	if !ok && len(m.written) >= maxWritten {
		return
	}
	m.written[w.Chat] = w
}

// takeQuiet returns, and forgets, the versions written last that are
// quiet at now (quietVersion), by chat.
func (m *chatMemory) takeQuiet(now time.Time) []writtenVersion {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []writtenVersion
	for chat, w := range m.written {
		if quietVersion(w.At, w.Until, now) {
			out = append(out, w)
			delete(m.written, chat)
		}
	}
	slices.SortFunc(out, func(a, b writtenVersion) int { return cmp.Compare(a.Chat, b.Chat) })
	return out
}

// giveBack keeps versions to close again (a close that failed).
func (m *chatMemory) giveBack(ws []writtenVersion) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, w := range ws {
		m.keep(w)
	}
}

// quietVersion: a chat whose newest version was written at, with turns
// waiting until until, may be deleted at now. A turn that waited counts a
// while past its time (chatRestartMargin): a claim that read the chat a
// moment before took it for a live chain (restartable), and its version
// may be on its way.
func quietVersion(at, until, now time.Time) bool {
	return now.Sub(at) >= ChatCallsQuiet && !until.After(now.Add(-chatRestartMargin))
}

// recall returns the newest version known of the chat, and whether it may
// be taken for the newest without reading. A chat not known starts at
// version 0 (none): its first write is version 1.
func (m *chatMemory) recall(chatID int64, now time.Time) (chatState, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.chats[chatID]
	if !ok {
		return chatState{Chat: chatID}, true // a chat quiet for minutes has no versions
	}
	return st, now.Sub(st.At) < chatMemoryFor
}

func (m *chatMemory) remember(st chatState) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.chats == nil || len(m.chats) > 10_000 {
		m.chats = map[int64]chatState{} // the chats of the last minute are what counts
	}
	if old, ok := m.chats[st.Chat]; !ok || old.V <= st.V {
		m.chats[st.Chat] = st
	}
}

// pruneChatsEvery starts closeQuietChats when the last was chatPruneGap ago.
func (s *Store) pruneChatsEvery(now time.Time) {
	last := s.chats.pruned.Load()
	if last == 0 { // a process's first prune a while after it starts
		s.chats.pruned.CompareAndSwap(0, now.UnixNano())
		return
	}
	gap := max(time.Duration(s.chats.gap.Load()), chatPruneEvery)
	if now.UnixNano()-last < int64(gap) || !s.chats.pruned.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		start := time.Now()
		_, _ = s.closeQuietChats(ctx, now) // best effort: the maintenance prune does it too
		s.chats.gap.Store(int64(chatPruneGap(time.Since(start))))
	}()
}

// chatPruneGap is how long after a close that took took the next may
// start: chatPruneEvery, or ten times as long as it took, so that closes
// take a tenth of the store's time or less however slow it is. (When
// they read the at range, which FerretDB decodes in full, a prune every
// 30 s at 100,000 chats took a good share of the store's time from a
// fan-out.)
func chatPruneGap(took time.Duration) time.Duration {
	return max(chatPruneEvery, 10*took)
}

// closeQuietChats deletes the chains of the chats this process wrote last
// and that are quiet now (quietVersion), in two round trips whatever their
// number, reading nothing. For each it inserts version v+1 after the v it
// wrote: empty, and as old as v. The insert fails when another process
// wrote v+1 first (the chat lives on: that process closes it). Once it is
// in, no process writes after it: one that remembers v does so for
// chatMemoryFor only, and one that reads it starts the chat again
// (restartable). Then it deletes versions 1 to v+1 by _id, those written
// by v's time (a chain started again since was started minutes later).
func (s *Store) closeQuietChats(ctx context.Context, now time.Time) (int64, error) {
	quiet := s.chats.takeQuiet(now)
	if len(quiet) == 0 {
		return 0, nil
	}
	closed, err := s.insertClosings(ctx, quiet)
	if err != nil {
		s.chats.giveBack(quiet)
		return 0, err
	}
	var dels []versionDelete
	for _, w := range closed {
		dels = append(dels, chainVersions(w.Chat, w.V+1, w.At.Add(chatClockSkew))...)
	}
	n, err := s.deleteVersions(ctx, dels)
	if err != nil {
		return 0, fmt.Errorf("mongodb: close the turns of quiet chats: %w", err)
	}
	return n, nil
}

// insertClosings inserts, after each version written last, its chat's
// empty version (closeQuietChats), and returns those whose insert went in.
func (s *Store) insertClosings(ctx context.Context, quiet []writtenVersion) ([]writtenVersion, error) {
	var closed []writtenVersion
	for part := range slices.Chunk(quiet, maxGroupInsert) {
		docs := make([]any, len(part))
		for i, w := range part {
			docs[i] = chatState{ID: chatVersionID(w.Chat, w.V+1), Chat: w.Chat, V: w.V + 1, At: w.At}
		}
		_, err := s.db.Collection(colChatCalls).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
		for i, err := range perDocument(err, len(part)) {
			switch {
			case err == nil:
				closed = append(closed, part[i])
			case !mongo.IsDuplicateKeyError(err):
				return nil, fmt.Errorf("mongodb: close the turns of quiet chats: %w", err)
			}
		}
	}
	return closed, nil
}

// pruneChats, run by the maintenance prune, deletes the versions of every
// chat whose newest version is ChatCallsQuiet old and has no turn waiting
// past now: chains no process closed (closeQuietChats) because it
// stopped or forgot them. It reads no more than it may delete: the
// versions older than that (by the at index), then, of their chats, the
// versions since (by the chat and v index), and deletes the chats that
// have none and no turn waiting.
func (s *Store) pruneChats(ctx context.Context, now time.Time) (int64, error) {
	docs, err := s.chatPruneCandidates(ctx, now)
	if err != nil {
		return 0, err
	}
	n, err := s.deleteVersions(ctx, quietChats(docs, now))
	if err != nil {
		return 0, fmt.Errorf("mongodb: prune the chats' turns: %w", err)
	}
	return n, nil
}

// deleteVersions deletes the versions of chat_calls dels names that were
// written at or before their NotAfter.
func (s *Store) deleteVersions(ctx context.Context, dels []versionDelete) (int64, error) {
	if len(dels) == 0 {
		return 0, nil
	}
	// One delete statement per version, by _id, in one command: FerretDB
	// v1 hands an _id equality to its storage, while an _id $in is matched
	// by FerretDB itself against every document (each against every ID: at
	// a fan-out's hundred messages a second that was seconds of FerretDB's
	// CPU every prune).
	models := make([]mongo.WriteModel, len(dels))
	for i, d := range dels {
		models[i] = mongo.NewDeleteOneModel().SetFilter(bson.D{{Key: "_id", Value: d.ID}, {Key: "at", Value: bson.D{{Key: "$lte", Value: d.NotAfter}}}})
	}
	res, err := s.db.Collection(colChatCalls).BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	if err != nil {
		return 0, err
	}
	return res.DeletedCount, nil
}

// chatPruneCandidates reads the versions ChatCallsQuiet old, and of their
// chats the versions since (_id, chat, v and at only).
func (s *Store) chatPruneCandidates(ctx context.Context, now time.Time) ([]chatState, error) {
	col := s.db.Collection(colChatCalls)
	cut := now.Add(-ChatCallsQuiet)
	old, err := findAll[chatState](ctx, col, "read the chats' turns", bson.D{{Key: "at", Value: bson.D{{Key: "$lte", Value: cut}}}})
	if err != nil || len(old) == 0 {
		return nil, err
	}
	seen := map[int64]bool{}
	chats := make([]int64, 0, len(old))
	for _, d := range old {
		if strings.Contains(d.ID, "#") && !seen[d.Chat] {
			seen[d.Chat] = true
			chats = append(chats, d.Chat)
		}
	}
	if len(chats) == 0 {
		return old, nil
	}
	recent, err := findAll[chatState](ctx, col, "read the chats' turns",
		bson.D{{Key: "chat", Value: bson.D{{Key: "$in", Value: chats}}}, {Key: "at", Value: bson.D{{Key: "$gt", Value: cut}}}},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}, {Key: "chat", Value: 1}, {Key: "v", Value: 1}, {Key: "at", Value: 1}}))
	return append(old, recent...), err
}

// quietChats are the deletes of the versions of chats whose newest
// version is quiet at now (quietVersion): all of a chat's versions, or
// none (a chat is claimed by inserting version 1 when it has none), each
// while as old as the prune's cut. Versions of the first design are not
// among them.
func quietChats(docs []chatState, now time.Time) []versionDelete {
	newest := map[int64]chatState{}
	for _, d := range docs {
		if !strings.Contains(d.ID, "#") {
			continue
		}
		if n, ok := newest[d.Chat]; !ok || d.V > n.V {
			newest[d.Chat] = d
		}
	}
	quiet := func(st chatState) bool {
		var until time.Time
		for _, t := range st.Turns {
			if t.Until.After(until) {
				until = t.Until
			}
		}
		return quietVersion(st.At, until, now)
	}
	var out []versionDelete
	for _, d := range docs {
		if n, ok := newest[d.Chat]; ok && strings.Contains(d.ID, "#") && quiet(n) {
			out = append(out, versionDelete{ID: d.ID, NotAfter: now.Add(-ChatCallsQuiet)})
		}
	}
	return out
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
		case t.Folded && i != mine: // told already: its owner only comes to hear so
			if t.Until.Before(now) {
				d.prune = append(d.prune, i)
			}
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
	if hold := turns[mine].NotBefore; hold.After(d.retryAt) {
		d.retryAt = hold
	}
	d.ok = ahead == 0 && !d.retryAt.After(now)
	return d
}

// quietTurns: no call of the chat still counts and no turn waits.
func quietTurns(turns []chatTurn, now time.Time) bool {
	for _, t := range turns {
		if t.Called.IsZero() && !t.Folded && !t.Until.Before(now) {
			return false
		}
		if !t.Called.IsZero() && now.Sub(t.Called) < keepCalls {
			return false
		}
	}
	return true
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

// pruneFirstDesignChats deletes what the first design of chat_calls left:
// its heads at once (only hints), its versions after ChatCallsRetention.
func (s *Store) pruneFirstDesignChats(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.db.Collection(colChatCalls).DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$regex", Value: `\|`}}},
		{Key: "$or", Value: bson.A{
			bson.D{{Key: "at", Value: bson.D{{Key: "$exists", Value: false}}}},
			bson.D{{Key: "at", Value: bson.D{{Key: "$lt", Value: now.Add(-ChatCallsRetention)}}}},
		}}})
	if err != nil {
		return 0, fmt.Errorf("mongodb: prune the chats' turns: %w", err)
	}
	return res.DeletedCount, nil
}
