package importer

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// The previous bot's collections (see docs/operations.md, "Coming from the
// previous bot").
const (
	colPreviousSubscribers = "subscribers"
	colPreviousComponents  = "components"
)

// ReadPrevious reads the previous bot's subscribers (Record: what it
// cannot read is said in Err) and its component records (old ID -> name),
// in key order.
func ReadPrevious(ctx context.Context, db *mongo.Database) ([]Previous, map[string]OldComponent, error) {
	cur, err := db.Collection(colPreviousSubscribers).Find(ctx, bson.D{})
	if err != nil {
		return nil, nil, fmt.Errorf("previous bot: read subscribers: %w", err)
	}
	var docs []bson.M
	if err := cur.All(ctx, &docs); err != nil {
		return nil, nil, fmt.Errorf("previous bot: read subscribers: %w", err)
	}
	subs := make([]Previous, 0, len(docs))
	for _, d := range docs {
		subs = append(subs, Record(d))
	}
	sort.SliceStable(subs, func(i, j int) bool {
		if subs[i].Key != subs[j].Key {
			return subs[i].Key < subs[j].Key
		}
		return subs[i].ID < subs[j].ID
	})

	cur, err = db.Collection(colPreviousComponents).Find(ctx, bson.D{})
	if err != nil {
		return nil, nil, fmt.Errorf("previous bot: read components: %w", err)
	}
	var comps []bson.M
	if err := cur.All(ctx, &comps); err != nil {
		return nil, nil, fmt.Errorf("previous bot: read components: %w", err)
	}
	old := map[string]OldComponent{}
	for _, c := range comps {
		id := fmt.Sprint(c["_id"])
		old[id] = OldComponent{ID: id, Name: str(c["name"]), Group: str(c["group_name"])}
	}
	return subs, old, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// Report is what an import did, or would do (dry run).
type Report struct {
	Read     int       // previous records
	Created  int       // written now (dry run: would be)
	Present  int       // already ours: left as they are
	Left     []Problem // left here since: not subscribed again
	Merged   []Problem // one chat stored in several records
	Invalid  []Problem // records that cannot be read (Entry: the _id)
	Changed  int       // of the planned creations, subscribed, stopped or moved while the import ran
	ByID     int       // filter entries kept by ID
	ByName   int       // filter entries mapped by name
	Unmapped []Problem
	Types    []Problem // unknown notification types, left out
}

// Problem names a subscriber and what could not be carried over.
type Problem struct{ Key, Entry, Why string }

// Subscription is the subscription a previous subscriber becomes.
func Subscription(p Previous, old map[string]OldComponent, today []statuspage.Component, now time.Time) (store.Subscriber, Mapping, []string, error) {
	chatID, threadID, err := ParseKey(p.Key)
	if err != nil {
		return store.Subscriber{}, Mapping{}, nil, err
	}
	kinds, unknown := Kinds(p.Types)
	m := MapFilter(p.Components, old, today)
	return store.Subscriber{
		Key: store.SubscriberKey(chatID, threadID), ChatID: chatID, ThreadID: threadID,
		Kinds: kinds, Components: m.IDs, CreatedAt: now,
		// One message per update, as the previous bot sent them; /settings
		// switches a chat to cards.
		Settings: store.Settings{Mode: store.ModeMessages},
	}, m, unknown, nil
}

// BatchSize is how many subscriptions one write carries.
const BatchSize = 500

// Progress is told, after each batch, how many of the planned creations
// are written.
type Progress func(written, total int)

// Import plans (PlanImport) and, unless dryRun, writes the planned
// subscriptions in batches, then records every key it handled, so a later
// run leaves them alone whatever the chats do here. A chat that subscribed,
// stopped or moved while it ran keeps what it did (Report.Changed).
func Import(ctx context.Context, st *store.Store, subs []Previous, old map[string]OldComponent, today []statuspage.Component, dryRun bool, now time.Time, progress Progress) (Report, error) {
	state, err := st.ImportState(ctx)
	if err != nil {
		return Report{}, err
	}
	plan := PlanImport(subs, old, today, state, now)
	r := plan.Report
	if dryRun {
		return r, nil
	}
	var creates []store.Subscriber
	var others []string
	for _, e := range plan.Entries {
		if e.Fate == Create {
			creates = append(creates, e.Sub)
		} else {
			others = append(others, e.Key)
		}
	}
	for start := 0; start < len(creates); start += BatchSize {
		w, err := st.ImportSubscribers(ctx, creates[start:min(start+BatchSize, len(creates))])
		if err != nil {
			return r, err
		}
		r.Created -= len(w.Present) + len(w.Left)
		r.Changed += len(w.Present) + len(w.Left)
		r.Present += len(w.Present)
		for _, k := range w.Left {
			r.Left = append(r.Left, Problem{Key: k, Why: "stopped or moved here while the import ran: not subscribed again"})
		}
		if err := st.MarkImported(ctx, slices.Concat(w.Written, w.Present, w.Left), now); err != nil {
			return r, err
		}
		if progress != nil {
			progress(min(start+BatchSize, len(creates)), len(creates))
		}
	}
	for start := 0; start < len(others); start += BatchSize {
		if err := st.MarkImported(ctx, others[start:min(start+BatchSize, len(others))], now); err != nil {
			return r, err
		}
	}
	return r, nil
}

// Check is the outcome of a verify.
type Check struct {
	Previous  int      // valid previous subscribers (keys)
	Found     int      // of them, subscribed here
	Left      int      // of them, left here since (stopped, removed, moved): rightly not subscribed
	Missing   []string // neither: the import has not run, or lost them
	Sampled   int
	Differing []Problem // sampled subscriptions that differ from the import's plan
}

// Verify plans the import again: every valid previous key must be
// subscribed here or have left here since, so nothing is left to create.
// A sample of up to sample subscriptions is compared field by field with
// what the import writes; one a chat changed here since shows as
// differing: that is for the operator to judge.
func Verify(ctx context.Context, st *store.Store, subs []Previous, old map[string]OldComponent, today []statuspage.Component, sample int) (Check, error) {
	var c Check
	state, err := st.ImportState(ctx)
	if err != nil {
		return c, err
	}
	plan := PlanImport(subs, old, today, state, time.Time{})
	var present []Entry
	for _, e := range plan.Entries {
		switch e.Fate {
		case Present:
			present = append(present, e)
		case Left:
			c.Left++
		case Create:
			c.Missing = append(c.Missing, e.Key)
		}
	}
	c.Previous, c.Found = len(plan.Entries), len(present)
	// An even spread over the key order: deterministic, so a re-run
	// checks the same ones.
	var picked []Entry
	step := max(1, len(present)/max(1, sample))
	for i := 0; i < len(present) && len(picked) < sample; i += step {
		picked = append(picked, present[i])
	}
	keys := make([]string, len(picked))
	for i, e := range picked {
		keys[i] = e.Key
	}
	got, err := st.Subscriptions(ctx, keys)
	if err != nil {
		return c, err
	}
	have := map[string]store.Subscriber{}
	for _, s := range got {
		have[s.Key] = s
	}
	for _, e := range picked {
		h, ok := have[e.Key]
		if !ok {
			continue // stopped since ImportState was read
		}
		c.Sampled++
		if why := differs(e.Sub, h); why != "" {
			c.Differing = append(c.Differing, Problem{Key: e.Key, Why: why})
		}
	}
	return c, nil
}

func differs(want, got store.Subscriber) string {
	switch {
	case want.ChatID != got.ChatID || want.ThreadID != got.ThreadID:
		return fmt.Sprintf("chat %d:%d here, %d:%d planned", got.ChatID, got.ThreadID, want.ChatID, want.ThreadID)
	case !slices.Equal(kindStrings(want.Kinds), kindStrings(got.Kinds)):
		return fmt.Sprintf("types %v here, %v planned", got.Kinds, want.Kinds)
	case !slices.Equal(sorted(want.Components), sorted(got.Components)):
		return fmt.Sprintf("components %v here, %v planned", got.Components, want.Components)
	}
	return ""
}

func kindStrings(kinds []event.Kind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}
