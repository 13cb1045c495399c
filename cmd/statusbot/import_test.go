package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/importer"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// seedPrevious writes subscribers and component records in the previous
// bot's shape (docs/operations.md): Statuspage-era component IDs.
func seedPrevious(t *testing.T, db *mongo.Database) {
	t.Helper()
	ctx := context.Background()
	comps := []any{
		bson.M{"_id": "rsp4kx2ylg0q", "name": "Responses", "status": "operational"},
		bson.M{"_id": "img8w1hq2m3d", "name": "Images", "status": "operational"},
		bson.M{"_id": "lgn0apis0001", "name": "Login", "group_name": "APIs", "status": "operational"},
		bson.M{"_id": "lgn0nogroup1", "name": "Login", "status": "operational"},
		bson.M{"_id": "plg0gone0001", "name": "Playground", "status": "operational"},
	}
	if _, err := db.Collection("components").InsertMany(ctx, comps); err != nil {
		t.Fatal(err)
	}
	subs := []any{
		bson.M{"_id": "1001", "chat_id": int64(1001), "types": bson.A{"incident", "component"}, "components": bson.A{}},
		bson.M{"_id": "-1002003004005:7", "chat_id": int64(-1002003004005), "thread_id": 7, "types": bson.A{"component"},
			"components": bson.A{"rsp4kx2ylg0q", "img8w1hq2m3d"}},
		bson.M{"_id": "1003", "chat_id": int64(1003), "types": bson.A{"incident"}, "components": bson.A{"CLI"}},
		bson.M{"_id": "1004", "chat_id": int64(1004), "types": bson.A{"all"}, "components": bson.A{"lgn0apis0001", "lgn0nogroup1", "plg0gone0001"}},
		bson.M{"_id": "1005", "chat_id": int64(1005), "types": bson.A{"component"}, "components": bson.A{fakes.IOComponentSearch}},
		bson.M{"_id": "not-a-chat", "types": bson.A{"incident"}},
	}
	if _, err := db.Collection("subscribers").InsertMany(ctx, subs); err != nil {
		t.Fatal(err)
	}
}

func importRun(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, testenv.StatusbotBinary(t), append([]string{"import"}, args...)...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}

func allSubscribers(t *testing.T, st *store.Store) []store.Subscriber {
	t.Helper()
	subs, _, err := st.ListSubscribers(context.Background(), "", 1000)
	if err != nil {
		t.Fatal(err)
	}
	return subs
}

// The previous bot's chats arrive with their filters mapped to today's
// IDs; a re-run changes nothing; --verify agrees.
func TestImportFromPreviousBot(t *testing.T) {
	st, db := testenv.StoreAndDatabase(t)
	prev := db.Client().Database(db.Name() + "_prev")
	t.Cleanup(func() { _ = prev.Drop(context.Background()) })
	seedPrevious(t, prev)
	page := fakes.NewIncidentIO()
	defer page.Close()
	// A chat that used /start here already: the import leaves it as it is.
	if _, err := st.Subscribe(context.Background(), 1005, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"TELEGRAM_BOT_TOKEN=123456:AAimportTEST", "MONGODB_URI=" + testenv.MongoURI(t), "MONGODB_DATABASE=" + db.Name(),
		"STATUSPAGE_URL=" + page.URL(), "STATUSPAGE_PROVIDER=incidentio"}
	from := []string{"--from-mongo", testenv.MongoURI(t), "--database", prev.Name()}

	code, out := importRun(t, env, append(from, "--dry-run")...)
	t.Logf("dry run:\n%s", out)
	if code != 0 || !strings.Contains(out, "would create (dry run, nothing written) 4, already here 1") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if n := len(allSubscribers(t, st)); n != 1 {
		t.Fatalf("dry run wrote: %d subscribers", n)
	}

	code, out = importRun(t, env, from...)
	t.Logf("import:\n%s", out)
	for _, want := range []string{
		"6 subscribers, 5 component records",
		"subscribers: 6 read, created 4, already here 1 (left as they are), left here since 0 (stopped, removed or moved: not subscribed again), invalid 1, stored twice 0 (merged)",
		"component filters: 1 entries kept by ID, 4 mapped by name, 2 not mapped",
		`not mapped: chat 1004, filter entry "lgn0nogroup1": 2 components are named "Login"`,
		`not mapped: chat 1004, filter entry "plg0gone0001": no component named "Playground" on today's page`,
		`not imported: _id "not-a-chat" is not chatID or chatID:threadID`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	got := map[string]store.Subscriber{}
	for _, s := range allSubscribers(t, st) {
		got[s.Key] = s
	}
	topic := got["-1002003004005:7"]
	if topic.ChatID != -1002003004005 || topic.ThreadID != 7 ||
		!slices.Equal(topic.Components, []string{fakes.IOComponentResponses, fakes.IOComponentImages}) ||
		len(topic.Kinds) != 1 || topic.Kinds[0] != "component" || topic.Settings.Mode != store.ModeMessages {
		t.Errorf("topic: %+v", topic)
	}
	if c := got["1003"].Components; !slices.Equal(c, []string{fakes.IOComponentCLI}) {
		t.Errorf("1003: %v", c)
	}
	if c := got["1004"].Components; !slices.Equal(c, []string{fakes.IOComponentAPILogin, "lgn0nogroup1", "plg0gone0001"}) {
		t.Errorf("1004: %v", c)
	}
	if s := got["1005"]; len(s.Components) != 0 || s.Settings.Mode != store.ModeCards {
		t.Errorf("existing subscription changed: %+v", s)
	}
	// Imported chats get their maintenance reminders: the reminder
	// deliveries page chats by the stored lead.
	reminded := 0
	for key, s := range got {
		if want := store.ReminderLeadOf(s.Kinds, s.Settings); s.LeadMinutes != want {
			t.Errorf("%s: reminder lead %d, want %d", key, s.LeadMinutes, want)
		}
		if s.LeadMinutes == 60 {
			reminded++
		}
	}
	if reminded == 0 {
		t.Error("no imported chat is reminded of maintenance")
	}
	before := allSubscribers(t, st)

	code, out = importRun(t, env, append(from, "--verify")...)
	t.Logf("re-run with verify:\n%s", out)
	if code != 0 || !strings.Contains(out, "created 0, already here 5") ||
		!strings.Contains(out, "verify: 5 of 5 previous subscribers are subscribed here, 0 left here since (not subscribed again), 0 missing; sample of 5: 1 differ") ||
		!strings.Contains(out, "differs: chat 1005: ") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if after := allSubscribers(t, st); !sameSubscribers(before, after) {
		t.Fatalf("re-run changed subscriptions:\n%+v\n%+v", before, after)
	}
	if strings.Contains(out, "AAimportTEST") {
		t.Fatal("token shown")
	}
}

func sameSubscribers(a, b []store.Subscriber) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Key != y.Key || x.ChatID != y.ChatID || x.ThreadID != y.ThreadID || !slices.Equal(x.Kinds, y.Kinds) ||
			!slices.Equal(x.Components, y.Components) || !x.CreatedAt.Equal(y.CreatedAt) || x.Settings.Mode != y.Settings.Mode {
			return false
		}
	}
	return true
}

// The URI's credentials never reach the output, and one is required.
func TestImportNeedsURI(t *testing.T) {
	code, out := importRun(t, []string{"PATH=" + os.Getenv("PATH")}, "--database", "x")
	if code != 2 || !strings.Contains(out, "must hold a mongodb:// or mongodb+srv:// URI") {
		t.Fatalf("exit %d: %s", code, out)
	}
	if got := hostOf("mongodb+srv://USER:PASSWORD@cluster0.example.mongodb.net/?w=majority"); got != "mongodb+srv://cluster0.example.mongodb.net" {
		t.Fatal(got)
	}
}

func importEnv(t *testing.T, db *mongo.Database, page *fakes.IncidentIO) []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"TELEGRAM_BOT_TOKEN=123456:AAimportTEST", "MONGODB_URI=" + testenv.MongoURI(t), "MONGODB_DATABASE=" + db.Name(),
		"STATUSPAGE_URL=" + page.URL(), "STATUSPAGE_PROVIDER=incidentio"}
}

func previousDB(t *testing.T, db *mongo.Database) *mongo.Database {
	prev := db.Client().Database(db.Name() + "_prev")
	t.Cleanup(func() { _ = prev.Drop(context.Background()) })
	return prev
}

func subscribedKeys(t *testing.T, st *store.Store) map[string]store.Subscriber {
	got := map[string]store.Subscriber{}
	for cursor := ""; ; {
		subs, next, err := st.ListSubscribers(context.Background(), cursor, 1000)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range subs {
			got[s.Key] = s
		}
		if cursor = next; next == "" {
			return got
		}
	}
}

// A re-run (and --verify, which docs/operations.md prescribes) never
// undoes what a chat did here since the first run: a /stop, the bot
// removed after a 403, a group moved to a supergroup.
func TestImportLeavesChatsThatLeftHere(t *testing.T) {
	st, db := testenv.StoreAndDatabase(t)
	prev := previousDB(t, db)
	seedPrevious(t, prev)
	page := fakes.NewIncidentIO()
	defer page.Close()
	env := importEnv(t, db, page)
	from := []string{"--from-mongo", testenv.MongoURI(t), "--database", prev.Name()}
	if code, out := importRun(t, env, from...); code != 0 || !strings.Contains(out, "created 5") {
		t.Fatalf("first run: exit %d:\n%s", code, out)
	}
	ctx := context.Background()
	now := time.Now()
	if err := st.StopSubscription(ctx, "1001", now); err != nil { // /stop
		t.Fatal(err)
	}
	if err := st.Unsubscribe(ctx, "-1002003004005:7"); err != nil { // a send answered 403
		t.Fatal(err)
	}
	if _, err := st.MigrateChatAt(ctx, 1003, -1001000001003, now); err != nil { // became a supergroup
		t.Fatal(err)
	}

	for _, args := range [][]string{append(slices.Clone(from), "--dry-run"), append(slices.Clone(from), "--verify")} {
		code, out := importRun(t, env, args...)
		t.Logf("%v:\n%s", args[len(args)-1], out)
		for _, want := range []string{
			" 0, already here 2 (left as they are), left here since 3 (stopped, removed or moved: not subscribed again), invalid 1",
			"left here: chat 1001: stopped here on ",
			"left here: chat -1002003004005:7: imported on ",
			"left here: chat 1003: moved here to -1001000001003",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("missing %q", want)
			}
		}
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		if args[len(args)-1] == "--verify" && !strings.Contains(out, "verify: 2 of 5 previous subscribers are subscribed here, 3 left here since (not subscribed again), 0 missing") {
			t.Error("verify does not count the chats that left")
		}
	}
	got := subscribedKeys(t, st)
	for _, k := range []string{"1001", "-1002003004005:7", "1003"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s subscribed again", k)
		}
	}
	if _, ok := got["-1001000001003"]; !ok || len(got) != 3 {
		t.Errorf("subscriptions: %v", slices.Sorted(maps.Keys(got)))
	}
}

// Records the previous bot stored oddly are read right or reported by
// their _id, and the dry run says exactly what the import then does.
func TestImportReadsOddRecordsAndDryRunMatches(t *testing.T) {
	st, db := testenv.StoreAndDatabase(t)
	prev := previousDB(t, db)
	oid := bson.NewObjectID()
	docs := []any{
		// One chat stored twice, with different settings.
		bson.M{"_id": "2001", "chat_id": int64(2001), "types": bson.A{"incident"}, "components": bson.A{}},
		bson.M{"_id": int64(2001), "types": bson.A{"component"}, "components": bson.A{"rsp4kx2ylg0q"}},
		// One chat stored twice, the same.
		bson.M{"_id": "2006", "types": bson.A{"component"}},
		bson.M{"_id": int32(2006), "types": bson.A{"component"}},
		bson.M{"_id": oid, "chat_id": int64(2002), "types": bson.A{"incident"}},
		bson.M{"_id": -1001234567891.0, "types": bson.A{"incident"}},
		bson.M{"_id": "2003", "types": "incident"},
		bson.M{"_id": "2004", "chat_id": int64(2005), "types": bson.A{"incident"}},
		bson.M{"_id": "2007", "types": int32(1)},
	}
	if _, err := prev.Collection("components").InsertOne(context.Background(), bson.M{"_id": "rsp4kx2ylg0q", "name": "Responses"}); err != nil {
		t.Fatal(err)
	}
	if _, err := prev.Collection("subscribers").InsertMany(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	page := fakes.NewIncidentIO()
	defer page.Close()
	env := importEnv(t, db, page)
	from := []string{"--from-mongo", testenv.MongoURI(t), "--database", prev.Name()}

	counts := func(out string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "subscribers: ") {
				return strings.Replace(l, "would create (dry run, nothing written)", "created", 1)
			}
		}
		return ""
	}
	code, dry := importRun(t, env, append(slices.Clone(from), "--dry-run")...)
	t.Logf("dry run:\n%s", dry)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	code, out := importRun(t, env, from...)
	t.Logf("import:\n%s", out)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	want := "subscribers: 9 read, created 4, already here 0 (left as they are), left here since 0 (stopped, removed or moved: not subscribed again), invalid 3, stored twice 2 (merged)"
	if counts(dry) != want || counts(out) != want {
		t.Errorf("dry run %q\nimport  %q\nwant    %q", counts(dry), counts(out), want)
	}
	for _, w := range []string{
		`stored twice: chat 2001: stored 2 times with different settings (_id "2001": types [incident], filter none (every component); _id 2001: types [component], filter [` + fakes.IOComponentResponses + `])`,
		`stored twice: chat 2006: stored 2 times (_id "2006", _id 2006), the same settings: imported once`,
		`not imported: _id ObjectId("` + oid.Hex() + `") is not chatID or chatID:threadID`,
		`not imported: _id "2004" names chat 2004, but its chat_id is 2005`,
		`not imported: _id "2007": types is 1, not a list`,
	} {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q", w)
		}
	}
	got := subscribedKeys(t, st)
	if s := got["2001"]; !slices.Equal(s.Kinds, event.DefaultKinds) || len(s.Components) != 0 {
		t.Errorf("2001 merged into %v %v", s.Kinds, s.Components)
	}
	if s, ok := got["-1001234567891"]; !ok || s.ChatID != -1001234567891 {
		t.Errorf("double _id: %v", slices.Sorted(maps.Keys(got)))
	}
	if s := got["2003"]; !slices.Equal(s.Kinds, []event.Kind{event.KindIncident}) {
		t.Errorf("types as a string became %v", s.Kinds)
	}
	if _, ok := got["2004"]; ok || len(got) != 4 {
		t.Errorf("subscriptions: %v", slices.Sorted(maps.Keys(got)))
	}
}

// Writes go in batches, with progress; every subscriber arrives.
// IMPORT_SUBSCRIBERS sets the number (docs/operations.md quotes 5,000).
func TestImportWritesInBatchesWithProgress(t *testing.T) {
	n := 1234
	if v, err := strconv.Atoi(os.Getenv("IMPORT_SUBSCRIBERS")); err == nil && v > 0 {
		n = v
	}
	st, db := testenv.StoreAndDatabase(t)
	prev := previousDB(t, db)
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.M{"_id": strconv.Itoa(100000 + i), "chat_id": int64(100000 + i), "types": bson.A{"incident", "component"}, "components": bson.A{}}
	}
	if _, err := prev.Collection("subscribers").InsertMany(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	page := fakes.NewIncidentIO()
	defer page.Close()
	began := time.Now()
	code, out := importRun(t, importEnv(t, db, page), "--from-mongo", testenv.MongoURI(t), "--database", prev.Name())
	t.Logf("%d subscribers imported in %s:\n%s", n, time.Since(began).Round(time.Second/10), out)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for written := importer.BatchSize; written < n; written += importer.BatchSize {
		if !strings.Contains(out, fmt.Sprintf("  written %d of %d (", written, n)) {
			t.Errorf("no progress at %d", written)
		}
	}
	if !strings.Contains(out, fmt.Sprintf("  written %d of %d (", n, n)) || !strings.Contains(out, fmt.Sprintf("created %d,", n)) {
		t.Error("the last batch is not reported")
	}
	if got := len(subscribedKeys(t, st)); got != n {
		t.Errorf("%d subscribed, want %d", got, n)
	}
}

// The previous bot's database is read from the URI as the driver reads
// it: a password net/url rejects (an unescaped #) still names it, and a
// URI the driver cannot read says why instead of "names none".
func TestImportReadsTheDatabaseAsTheDriverDoes(t *testing.T) {
	if db, err := databaseOf("mongodb://old:pa#ss@old-host:27017/statusbot"); err != nil || db != "statusbot" {
		t.Errorf("databaseOf = %q, %v", db, err)
	}
	_, err := databaseOf("mongodb://old:pa%zzSECRET@old-host:27017/statusbot")
	if err == nil || !strings.Contains(err.Error(), "invalid URL escape") || strings.Contains(err.Error(), "names none") || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("databaseOf: %v", err)
	}
}
