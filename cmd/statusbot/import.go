package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/importer"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

const importUsage = `usage: statusbot import (--from-mongo URI | --from-mongo-file PATH) [--database NAME] [--dry-run] [--verify] [--sample N]

Copies the previous bot's subscribers into this bot's MongoDB (MONGODB_URI).
Chats already subscribed here are left as they are, so a re-run changes
nothing, and chats that stopped, were removed or moved here since are not
subscribed again. --dry-run reports exactly what the import does; writes go
in batches of 500, with progress. Component filters are mapped to today's components by ID, else by
name; what cannot be mapped is listed. --verify then compares counts and a
sample. --from-mongo-file keeps the URI (and its password) out of ps.`

// importCommand runs `statusbot import`; it returns the exit code.
func importCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprintln(stderr, importUsage) }
	from := fs.String("from-mongo", "", "the previous bot's MongoDB URI")
	fromFile := fs.String("from-mongo-file", "", "file holding the previous bot's MongoDB URI")
	database := fs.String("database", "", "the previous bot's database (default: the one in the URI)")
	dryRun := fs.Bool("dry-run", false, "report what would be written, write nothing")
	verify := fs.Bool("verify", false, "afterwards, compare counts and a sample with the previous bot's")
	sample := fs.Int("sample", 20, "how many subscriptions --verify compares field by field")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	uri, err := previousURI(*from, *fromFile)
	if err == nil && *database == "" {
		*database, err = databaseOf(uri)
	} else if err == nil {
		if problem := config.MongoURIProblem(uri); problem != "" {
			err = errors.New("--from-mongo: the URI cannot be read: " + problem + " (value not shown)")
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "statusbot import:", err)
		return 2
	}
	cfg, err := config.Load()
	if err != nil {
		fmt.Fprintln(stderr, "statusbot import:", err)
		return 2
	}
	if err := runImport(ctx, cfg, uri, *database, *dryRun, *verify, *sample, stdout); err != nil {
		fmt.Fprintln(stderr, "statusbot import:", err)
		return 1
	}
	return 0
}

func runImport(ctx context.Context, cfg *config.Config, uri, database string, dryRun, verify bool, sample int, out io.Writer) error {
	prevClient, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(10 * time.Second).SetAppName("openai-status-bot-import"))
	if err != nil {
		return errors.New("--from-mongo: " + config.MongoURIError(err, uri) + " (value not shown)")
	}
	defer func() { _ = prevClient.Disconnect(context.Background()) }()
	prev := prevClient.Database(database)
	subs, old, err := importer.ReadPrevious(ctx, prev)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "previous bot: %s database %s: %d subscribers, %d component records\n", hostOf(uri), database, len(subs), len(old))

	st, err := store.Open(ctx, cfg.MongoDBURI, cfg.MongoDBDatabase)
	if err != nil {
		return err
	}
	defer func() { _ = st.Close(10 * time.Second) }()
	today, from, err := todaysComponents(ctx, cfg, st)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "today's page: %d components, %s\n", len(today), from)

	began := time.Now()
	r, err := importer.Import(ctx, st, subs, old, today, dryRun, time.Now().UTC(), func(written, total int) {
		fmt.Fprintf(out, "  written %d of %d (%s)\n", written, total, time.Since(began).Round(100*time.Millisecond))
	})
	if err != nil {
		return err
	}
	printReport(out, r, dryRun)
	if !verify {
		return nil
	}
	c, err := importer.Verify(ctx, st, subs, old, today, sample)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "verify: %d of %d previous subscribers are subscribed here, %d left here since (not subscribed again), %d missing; sample of %d: %d differ\n",
		c.Found, c.Previous, c.Left, len(c.Missing), c.Sampled, len(c.Differing))
	for _, k := range c.Missing {
		fmt.Fprintf(out, "  missing: chat %s\n", k)
	}
	for _, p := range c.Differing {
		fmt.Fprintf(out, "  differs: chat %s: %s\n", p.Key, p.Why)
	}
	if len(c.Missing) > 0 && !dryRun {
		return fmt.Errorf("verify: %d previous subscribers are not subscribed here", len(c.Missing))
	}
	return nil
}

func printReport(out io.Writer, r importer.Report, dryRun bool) {
	verb := "created"
	if dryRun {
		verb = "would create (dry run, nothing written)"
	}
	fmt.Fprintf(out, "subscribers: %d read, %s %d, already here %d (left as they are), left here since %d (stopped, removed or moved: not subscribed again), invalid %d, stored twice %d (merged)\n",
		r.Read, verb, r.Created, r.Present, len(r.Left), len(r.Invalid), len(r.Merged))
	if r.Changed > 0 {
		fmt.Fprintf(out, "  %d of the planned chats subscribed, stopped or moved here while the import ran: they keep what they did\n", r.Changed)
	}
	fmt.Fprintf(out, "component filters: %d entries kept by ID, %d mapped by name, %d not mapped (kept as they were: the filter matches less, never more)\n", r.ByID, r.ByName, len(r.Unmapped))
	for _, p := range r.Unmapped {
		fmt.Fprintf(out, "  not mapped: chat %s, filter entry %q: %s\n", p.Key, p.Entry, p.Why)
	}
	for _, p := range r.Types {
		fmt.Fprintf(out, "  not mapped: chat %s, type %q: %s\n", p.Key, p.Entry, p.Why)
	}
	for _, p := range r.Merged {
		fmt.Fprintf(out, "  stored twice: chat %s: %s\n", p.Key, p.Why)
	}
	for _, p := range r.Left {
		fmt.Fprintf(out, "  left here: chat %s: %s\n", p.Key, p.Why)
	}
	for _, p := range r.Invalid {
		fmt.Fprintf(out, "  not imported: %s\n", p.Why)
	}
}

// todaysComponents are the bot's last poll's, else the page's read now.
func todaysComponents(ctx context.Context, cfg *config.Config, st *store.Store) ([]statuspage.Component, string, error) {
	snap, err := st.LatestSnapshot(ctx)
	if err != nil {
		return nil, "", err
	}
	if snap != nil && snap.Page.ComponentsErr == "" && len(snap.Page.Components) > 0 {
		return snap.Page.Components, "from the bot's last poll at " + snap.FetchedAt.UTC().Format(time.RFC3339), nil
	}
	f, err := statuspage.New(cfg.StatuspageProvider, cfg.StatuspageURL, cfg.HTTPTimeout)
	if err != nil {
		return nil, "", err
	}
	page, _, err := f.Fetch(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("read today's components from STATUSPAGE_URL: %w", err)
	}
	if page.ComponentsErr != "" {
		return nil, "", fmt.Errorf("read today's components from STATUSPAGE_URL: %s", page.ComponentsErr)
	}
	return page.Components, "read now from " + cfg.StatuspageURL, nil
}

func previousURI(uri, file string) (string, error) {
	switch {
	case uri != "" && file != "":
		return "", errors.New("give --from-mongo or --from-mongo-file, not both")
	case file != "":
		raw, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("--from-mongo-file: %w", err)
		}
		uri = strings.TrimSpace(string(raw))
	}
	if !strings.HasPrefix(uri, "mongodb://") && !strings.HasPrefix(uri, "mongodb+srv://") {
		return "", errors.New("--from-mongo (or --from-mongo-file) must hold a mongodb:// or mongodb+srv:// URI")
	}
	return uri, nil
}

func databaseOf(uri string) (string, error) {
	db, problem := config.MongoURIDatabase(uri)
	switch {
	case problem != "":
		return "", errors.New("--from-mongo: the URI cannot be read: " + problem + " (value not shown)")
	case db == "":
		return "", errors.New("name the previous bot's database: --database NAME (the URI names none)")
	}
	return db, nil
}

// hostOf keeps user and password out of the output.
func hostOf(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return "the previous MongoDB"
	}
	return u.Scheme + "://" + u.Host
}
