// Command devdb runs FerretDB v1: the MongoDB-wire store used by `make run`,
// the tests and CI where no mongod can be installed.
//
// Its backend is SQLite (-handler sqlite, the default: nothing else to
// install) or PostgreSQL (-handler postgresql): FerretDB pushes equality
// filters down to PostgreSQL, where SQLite gets only _id, so the scale
// benchmarks run on it (docs/benchmarks.md). Without -postgresql-url devdb
// starts a PostgreSQL cluster of its own in <dir>/pg (initdb the first
// time) on a free port, and stops it when it stops or dies.
//
// It prints the MongoDB URI on the first line of stdout (and writes it to
// -uri-file when given) so that callers can start it on a free port.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	dir := flag.String("dir", ".data/ferretdb", "directory for the SQLite files (or the PostgreSQL cluster, in <dir>/pg)")
	listen := flag.String("listen", "127.0.0.1:0", "TCP address to listen on (port 0 picks a free one)")
	uriFile := flag.String("uri-file", "", "write the MongoDB URI to this file once listening")
	handler := flag.String("handler", "sqlite", "FerretDB backend: sqlite or postgresql")
	pgURL := flag.String("postgresql-url", "", "PostgreSQL to use (postgresql handler); empty: start a cluster in <dir>/pg")
	pgBin := flag.String("pg-bin", envOr("PG_BIN", "/usr/lib/postgresql/15/bin"), "PostgreSQL's programs (initdb, postgres)")
	flag.Parse()

	abs, err := filepath.Abs(*dir)
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		fail(err)
	}
	cfg := &ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen},
		Handler:  *handler,
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	var pg *exec.Cmd
	switch *handler {
	case "sqlite":
		cfg.SQLiteURL = "file:" + abs + "/"
	case "postgresql":
		cfg.PostgreSQLURL = *pgURL
		if cfg.PostgreSQLURL == "" {
			if pg, cfg.PostgreSQLURL, err = startPostgres(*pgBin, filepath.Join(abs, "pg")); err != nil {
				fail(err)
			}
		}
	default:
		fail(fmt.Errorf("-handler %q: want sqlite or postgresql", *handler))
	}
	stopPG := func() {
		if pg != nil && pg.Process != nil {
			_ = pg.Process.Signal(syscall.SIGINT) // fast shutdown
			_ = pg.Wait()
		}
	}
	if *handler == "postgresql" {
		if err := indexEqualities(*pgBin, cfg.PostgreSQLURL); err != nil {
			stopPG()
			fail(err)
		}
	}
	if *handler == "postgresql" && !strings.Contains(cfg.PostgreSQLURL, "pool_max_conns") {
		// FerretDB v1 holds a connection for every statement of an update
		// command that matched a document until the whole command ends,
		// and needs another to write: a bulk of 50 replacements of existing
		// documents (a story's second step, told.go) took all of its
		// default 50 and waited forever.
		sep := "?"
		if strings.Contains(cfg.PostgreSQLURL, "?") {
			sep = "&"
		}
		cfg.PostgreSQLURL += sep + "pool_max_conns=250"
	}
	f, err := ferretdb.New(cfg)
	if err != nil {
		stopPG()
		fail(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan error, 1)
	go func() { done <- f.Run(ctx) }()

	uri := f.MongoDBURI()
	fmt.Println(uri)
	if *uriFile != "" {
		if err := os.WriteFile(*uriFile, []byte(uri+"\n"), 0o644); err != nil {
			stopPG()
			fail(err)
		}
	}
	err = <-done
	stopPG()
	if err != nil && ctx.Err() == nil {
		fail(err)
	}
}

// startPostgres runs a PostgreSQL cluster in dir (created with initdb the
// first time) on a free loopback port, as the postgres user when this is
// root (PostgreSQL refuses to run as root). The server dies with devdb
// (Pdeathsig), so a killed test leaves none behind.
func startPostgres(bin, dir string) (*exec.Cmd, string, error) {
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, "", fmt.Errorf("running as root and no postgres user to run PostgreSQL as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	run := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGQUIT}
		return cmd
	}
	if _, err := os.Stat(filepath.Join(bin, "postgres")); err != nil {
		return nil, "", fmt.Errorf("PostgreSQL not found in %s (-pg-bin, $PG_BIN; Debian: apt-get install postgresql-15): %w", bin, err)
	}
	if cred != nil { // the postgres user must reach its directory in ours
		if err := os.Chmod(filepath.Dir(dir), 0o755); err != nil {
			return nil, "", err
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err != nil {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, "", err
		}
		if cred != nil {
			if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
				return nil, "", err
			}
		}
		// No WAL durability to pay for in a throwaway store.
		if out, err := run("initdb", "-D", dir, "-U", "ferretdb", "--auth=trust", "--no-sync", "-E", "UTF8", "--no-instructions").CombinedOutput(); err != nil {
			return nil, "", fmt.Errorf("initdb: %v: %s", err, out)
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, "", err
	}
	logf, err := os.OpenFile(filepath.Join(dir, "..", "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, "", err
	}
	cmd := run("postgres", "-D", dir, "-p", strconv.Itoa(port), "-k", dir, "-c", "listen_addresses=127.0.0.1",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300",
		// No vacuum for inserts alone: a fan-out's ledger, told records and
		// fates grow by a hundred documents a second, and each vacuum of
		// them read their GIN indexes whole (a fifth of a core, more as
		// they grew). Deletes and updates still trigger vacuums, and
		// inserts still trigger ANALYZE. MongoDB has no vacuum at all.
		"-c", "autovacuum_vacuum_insert_threshold=-1",
		// Plans for FerretDB's parameterized queries see the field name, so
		// that they can use the GIN companions.
		"-c", "plan_cache_mode=force_custom_plan")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, "", fmt.Errorf("start postgres: %w", err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for deadline := time.Now().Add(60 * time.Second); ; {
		// pg_isready: listening is not yet accepting (starting up).
		if exec.Command(filepath.Join(bin, "pg_isready"), "-q", "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-U", "ferretdb", "-d", "postgres").Run() == nil {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			return nil, "", fmt.Errorf("postgres did not listen on %s within 60s (log: %s)", addr, logf.Name())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The postgres database exists in every cluster; FerretDB keeps each
	// MongoDB database as a schema in it.
	return cmd, "postgres://ferretdb@" + addr + "/postgres", nil
}

// ginCompanions makes PostgreSQL serve FerretDB's equality filters from an
// index, as MongoDB serves them. FerretDB v1 pushes `{f: v}` down as
// `(_jsonb -> 'f') @> v` but indexes `(_jsonb -> 'f')` with a btree, which
// cannot answer @>: every find was a sequential scan. This event trigger
// gives each btree index FerretDB creates a GIN companion on the same
// expressions (jsonb_path_ops answers @>, on any subset of its columns).
// fastupdate is off: with it, inserts gather in a pending list (up to 4 MB)
// that every index scan reads whole until vacuum merges it, and the
// insert-heavy collections of a fan-out (chat turns, call slots, fates, told
// records) made each equality read slower and slower between vacuums.
const ginCompanions = `
CREATE OR REPLACE FUNCTION devdb_gin_companion() RETURNS event_trigger LANGUAGE plpgsql AS $$
DECLARE
	cmd record;
	cols text;
BEGIN
	FOR cmd IN SELECT * FROM pg_event_trigger_ddl_commands() WHERE command_tag = 'CREATE INDEX' LOOP
		IF (SELECT a.amname FROM pg_class c JOIN pg_am a ON a.oid = c.relam WHERE c.oid = cmd.objid) <> 'btree' THEN
			CONTINUE;
		END IF;
		SELECT string_agg(pg_get_indexdef(i.indexrelid, k, true) || ' jsonb_path_ops', ', ' ORDER BY k) INTO cols
			FROM pg_index i, generate_series(1, i.indnkeyatts) AS k
			WHERE i.indexrelid = cmd.objid AND pg_get_indexdef(i.indexrelid, k, true) LIKE '%_jsonb ->%';
		IF cols IS NOT NULL AND cols NOT LIKE '%DESC%' THEN
			EXECUTE format('CREATE INDEX ON %s USING gin (%s) WITH (fastupdate = off)', (SELECT indrelid::regclass FROM pg_index WHERE indexrelid = cmd.objid), cols);
		END IF;
	END LOOP;
END $$;
DROP EVENT TRIGGER IF EXISTS devdb_gin_companion;
CREATE EVENT TRIGGER devdb_gin_companion ON ddl_command_end WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION devdb_gin_companion();
`

// indexEqualities installs ginCompanions (idempotent).
func indexEqualities(bin, url string) error {
	out, err := exec.Command(filepath.Join(bin, "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", ginCompanions).CombinedOutput()
	if err != nil {
		return fmt.Errorf("install the GIN companion trigger: %v: %s", err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "devdb:", err)
	os.Exit(1)
}
