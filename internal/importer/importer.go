package importer

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
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

// ReadPrevious reads the previous bot's subscribers and its component
// records (old ID -> name), in key order. Field names are read as that
// bot wrote them; chat_id and thread_id, when present, must agree with
// the key.
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
		subs = append(subs, Previous{Key: keyOf(d), Types: stringList(d["types"]), Components: stringList(d["components"])})
	}
	sort.Slice(subs, func(i, j int) bool { return subs[i].Key < subs[j].Key })

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

// keyOf is the subscriber's key: its _id (a string, or the chat ID as a
// number), with thread_id appended when the _id does not carry it.
func keyOf(d bson.M) string {
	key := ""
	switch id := d["_id"].(type) {
	case string:
		key = id
	case int32, int64, float64:
		key = fmt.Sprint(id)
	}
	if t, ok := d["thread_id"]; ok && key != "" && !strings.Contains(key, ":") {
		if n := fmt.Sprint(t); n != "0" && n != "" && n != "<nil>" {
			key += ":" + n
		}
	}
	return key
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func stringList(v any) []string {
	arr, _ := v.(bson.A)
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok && s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Report is what an import did, or would do (dry run).
type Report struct {
	Read     int
	Created  int // written now
	Present  int // already ours: left as they are
	Invalid  []Problem
	ByID     int // filter entries kept by ID
	ByName   int // filter entries mapped by name
	Unmapped []Problem
	Types    []Problem // unknown notification types, left out
}

// Problem names a subscriber and what could not be carried over.
type Problem struct{ Key, Entry, Why string }

// Plan is the subscription a previous subscriber becomes.
func Plan(p Previous, old map[string]OldComponent, today []statuspage.Component, now time.Time) (store.Subscriber, Mapping, []string, error) {
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

// Import writes each previous subscriber that is not ours yet; one that
// is (a re-run, or the chat used /start on this bot) is left as it is.
// A re-run therefore changes nothing.
func Import(ctx context.Context, st *store.Store, subs []Previous, old map[string]OldComponent, today []statuspage.Component, dryRun bool, now time.Time) (Report, error) {
	r := Report{Read: len(subs)}
	for _, p := range subs {
		sub, m, unknown, err := Plan(p, old, today, now)
		if err != nil {
			r.Invalid = append(r.Invalid, Problem{Key: p.Key, Why: err.Error()})
			continue
		}
		r.ByID += m.ByID
		r.ByName += m.ByName
		for _, u := range m.Unmapped {
			r.Unmapped = append(r.Unmapped, Problem{Key: sub.Key, Entry: u.Entry, Why: u.Why})
		}
		for _, t := range unknown {
			r.Types = append(r.Types, Problem{Key: sub.Key, Entry: t, Why: "unknown notification type, left out"})
		}
		var created bool
		if dryRun {
			have, err := st.Subscriptions(ctx, []string{sub.Key})
			if err != nil {
				return r, err
			}
			created = len(have) == 0
		} else if created, err = st.ImportSubscriber(ctx, sub); err != nil {
			return r, err
		}
		if created {
			r.Created++
		} else {
			r.Present++
		}
	}
	return r, nil
}

// Check is the outcome of a verify.
type Check struct {
	Previous  int      // valid previous subscribers
	Found     int      // of them, subscribed here
	Missing   []string // keys not subscribed here
	Sampled   int
	Differing []Problem // sampled subscriptions that differ from the import's plan
}

// Verify compares counts (every valid previous key subscribed here) and a
// sample of up to sample subscriptions, field by field, with what the
// import writes. A subscription a chat changed here since shows as
// differing: that is for the operator to judge.
func Verify(ctx context.Context, st *store.Store, subs []Previous, old map[string]OldComponent, today []statuspage.Component, sample int) (Check, error) {
	var c Check
	plans := map[string]store.Subscriber{}
	var keys []string
	for _, p := range subs {
		sub, _, _, err := Plan(p, old, today, time.Time{})
		if err != nil {
			continue
		}
		plans[sub.Key] = sub
		keys = append(keys, sub.Key)
	}
	c.Previous = len(keys)
	have := map[string]store.Subscriber{}
	for start := 0; start < len(keys); start += 500 {
		batch := keys[start:min(start+500, len(keys))]
		got, err := st.Subscriptions(ctx, batch)
		if err != nil {
			return c, err
		}
		for _, s := range got {
			have[s.Key] = s
		}
	}
	for _, k := range keys {
		if _, ok := have[k]; ok {
			c.Found++
		} else {
			c.Missing = append(c.Missing, k)
		}
	}
	// An even spread over the key order: deterministic, so a re-run
	// checks the same ones.
	step := max(1, len(keys)/max(1, sample))
	for i := 0; i < len(keys) && c.Sampled < sample; i += step {
		want := plans[keys[i]]
		got, ok := have[keys[i]]
		if !ok {
			continue
		}
		c.Sampled++
		if why := differs(want, got); why != "" {
			c.Differing = append(c.Differing, Problem{Key: keys[i], Why: why})
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
