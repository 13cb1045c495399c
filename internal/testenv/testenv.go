// Package testenv starts the real servers tests need — FerretDB (MongoDB
// wire) and the Temporal dev server — once per test binary, on free loopback
// ports, and gives each test its own database. Tests skip with a clear
// message only when the binaries are missing (`make tools` builds them).
package testenv

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/store"
)

// RepoRoot is the directory holding go.mod.
func RepoRoot() string {
	dir, _ := os.Getwd()
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(d, "tools", "devdb")); err == nil {
				return d
			}
		}
	}
	return dir
}

// Binary returns the path of a tool from $ENVVAR or bin/NAME.
func Binary(name, envVar string) (string, bool) {
	p := os.Getenv(envVar)
	if p == "" {
		p = filepath.Join(RepoRoot(), "bin", name)
	}
	st, err := os.Stat(p)
	return p, err == nil && !st.IsDir()
}

var (
	mongoOnce sync.Once
	mongoURI  string
	mongoErr  error
	mongoCmd  *exec.Cmd
	mongoDir  string
)

// DevDBHandler is FerretDB's backend for the tests: $DEVDB_HANDLER, sqlite
// by default; postgresql for the scale benchmarks (docs/benchmarks.md).
func DevDBHandler() string {
	if h := os.Getenv("DEVDB_HANDLER"); h != "" {
		return h
	}
	return "sqlite"
}

// MongoURI starts FerretDB (bin/devdb or $DEVDB_BIN, on DevDBHandler) once
// and returns its URI.
func MongoURI(t testing.TB) string {
	t.Helper()
	bin, ok := Binary("devdb", "DEVDB_BIN")
	if !ok {
		t.Skipf("FerretDB helper not found at %s: run `make tools` (or set DEVDB_BIN) to run this test", bin)
	}
	mongoOnce.Do(func() { mongoURI, mongoErr = startDevDB(bin) })
	if mongoErr != nil {
		t.Fatalf("start FerretDB: %v", mongoErr)
	}
	return mongoURI
}

func startDevDB(bin string) (string, error) {
	dir, err := os.MkdirTemp("", "statusbot-devdb-")
	if err != nil {
		return "", err
	}
	mongoDir = dir
	cmd := exec.Command(bin, "-dir", dir, "-listen", "127.0.0.1:0", "-handler", DevDBHandler())
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	logf, err := os.Create(filepath.Join(dir, "devdb.log"))
	if err != nil {
		return "", err
	}
	cmd.Stderr = logf
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	mongoCmd = cmd
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			line <- strings.TrimSpace(sc.Text())
		}
		close(line)
	}()
	select {
	case uri, ok := <-line:
		if !ok || !strings.HasPrefix(uri, "mongodb://") {
			return "", fmt.Errorf("devdb printed no URI")
		}
		return uri, nil
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		return "", fmt.Errorf("devdb did not start within 60s")
	}
}

// Store opens a store on a fresh database, dropped with the test.
func Store(t testing.TB) *store.Store {
	t.Helper()
	st, _ := StoreAndDatabase(t)
	return st
}

// StoreAndDatabase is a fresh store and a plain driver handle on its
// database, for writing documents as older versions of the bot did.
func StoreAndDatabase(t testing.TB) (*store.Store, *mongo.Database) {
	t.Helper()
	uri, name := MongoURI(t), DatabaseName(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := store.Open(ctx, uri, name)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = st.Close(5 * time.Second) })
	cl, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatalf("connect to MongoDB: %v", err)
	}
	t.Cleanup(func() { _ = cl.Disconnect(context.Background()) })
	return st, cl.Database(name)
}

// DatabaseName is unique per call and readable in FerretDB's files.
func DatabaseName(t testing.TB) string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, t.Name())
	if len(name) > 40 {
		name = name[:40]
	}
	return "t_" + name + "_" + hex.EncodeToString(b)
}
