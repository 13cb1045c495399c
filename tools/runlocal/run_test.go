package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Stub children: each records that it started (and with which
// MONGODB_URI) in $STUB_DIR/events and its pid in $STUB_DIR/<name>.pid,
// then sleeps. The Temporal stub answers `operator cluster health` once
// $STUB_DIR/healthy exists.
var stubs = map[string]string{
	"temporal": `case "$1" in
server) echo "temporal started" >>"$STUB_DIR/events"; echo $$ >"$STUB_DIR/temporal.pid"; exec sleep 300;;
operator) test -f "$STUB_DIR/healthy";;
esac`,
	"devdb": `while [ $# -gt 0 ]; do [ "$1" = -uri-file ] && uri=$2; shift; done
echo "devdb started" >>"$STUB_DIR/events"; echo $$ >"$STUB_DIR/devdb.pid"
echo mongodb://127.0.0.1:1/ >"$uri"; exec sleep 300`,
	"statusbot": `case "$1" in
check-config) exit 0;;
all) echo "statusbot started MONGODB_URI=$MONGODB_URI" >>"$STUB_DIR/events"; echo $$ >"$STUB_DIR/statusbot.pid"; exec sleep 300;;
esac`,
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

func runlocalBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "runlocal-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "runlocal")
		if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

type localRun struct {
	t      *testing.T
	dir    string // stub state
	cmd    *exec.Cmd
	out    *syncBuffer
	exited chan struct{}
}

// startRun runs make run's binary with the stubs and a .env of envLines
// (free ports added).
func startRun(t *testing.T, envLines ...string) *localRun {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range stubs {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	port := func() string { _, p, _ := strings.Cut(freePort(t), ":"); return p }
	// The test's own lines come last: they win.
	envLines = append([]string{"TEMPORAL_PORT=" + port(), "TEMPORAL_UI_PORT=" + port(),
		"DEVDB_ADDR=127.0.0.1:" + port(), "HEALTH_ADDR=127.0.0.1:" + port(), "METRICS_ADDR=127.0.0.1:" + port()}, envLines...)
	envFile := filepath.Join(dir, ".env")
	if err := os.WriteFile(envFile, []byte(strings.Join(envLines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &localRun{t: t, dir: dir, out: &syncBuffer{}, exited: make(chan struct{})}
	r.cmd = exec.Command(runlocalBinary(t), "-env", envFile, "-bin", bin, "-data", filepath.Join(dir, "data"), "-grace", "5s")
	r.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "STUB_DIR=" + dir}
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = r.cmd.Wait(); close(r.exited) }()
	t.Cleanup(func() {
		_ = r.cmd.Process.Kill()
		<-r.exited
		for _, name := range []string{"temporal", "devdb", "statusbot"} {
			if pid := r.pid(name); pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return r
}

func (r *localRun) events() string {
	raw, _ := os.ReadFile(filepath.Join(r.dir, "events"))
	return string(raw)
}

func (r *localRun) pid(name string) int {
	raw, _ := os.ReadFile(filepath.Join(r.dir, name+".pid"))
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	return pid
}

func (r *localRun) waitEvent(what string) {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(r.events(), what) {
		if time.Now().After(deadline) {
			r.t.Fatalf("no %q in events %q; output:\n%s", what, r.events(), r.out)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wait returns the exit code once make run has exited.
func (r *localRun) wait() int {
	r.t.Helper()
	select {
	case <-r.exited:
		return r.cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		r.t.Fatalf("make run did not exit; output:\n%s", r.out)
		return -1
	}
}

func (r *localRun) alive(name string) bool {
	pid := r.pid(name)
	if pid == 0 {
		return false
	}
	// A zombie (not yet reaped) counts as gone.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(stat), ") Z ")
}

// SIGTERM while Temporal is still starting stops it and starts nothing
// more (the shell script ran its cleanup, then `statusbot all` anyway).
func TestSIGTERMDuringStartUp(t *testing.T) {
	r := startRun(t, "TELEGRAM_BOT_TOKEN=123:AAx")
	r.waitEvent("temporal started")
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, r.out)
	}
	time.Sleep(300 * time.Millisecond)
	if ev := r.events(); strings.Contains(ev, "devdb") || strings.Contains(ev, "statusbot") {
		t.Fatalf("started after SIGTERM: %q", ev)
	}
	if r.alive("temporal") {
		t.Fatal("Temporal stub still running")
	}
	if !strings.Contains(r.out.String(), "Stopped.") {
		t.Fatalf("output:\n%s", r.out)
	}
}

// A child that dies is noticed: the others stop and make run exits 1,
// naming it. TELEGRAM_BOT_TOKEN_FILE is accepted in place of the token.
func TestChildExitStopsAll(t *testing.T) {
	r := startRun(t, "TELEGRAM_BOT_TOKEN_FILE=/run/secrets/telegram_bot_token")
	if err := os.WriteFile(filepath.Join(r.dir, "healthy"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r.waitEvent("statusbot started MONGODB_URI=mongodb://127.0.0.1:1/")
	if err := syscall.Kill(r.pid("temporal"), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(); code != 1 {
		t.Fatalf("exit %d:\n%s", code, r.out)
	}
	if !strings.Contains(r.out.String(), "Temporal dev server exited: signal: killed; stopping the others") {
		t.Fatalf("output:\n%s", r.out)
	}
	for _, name := range []string{"devdb", "statusbot"} {
		if r.alive(name) {
			t.Errorf("%s still running", name)
		}
	}
}

// The Atlas line of .env.example reaches the bot whole, FerretDB is not
// started, and the terminal says so without the credentials.
func TestAtlasURIFromEnvFile(t *testing.T) {
	r := startRun(t, "TELEGRAM_BOT_TOKEN=123:AAx", "MONGODB_URI="+atlas)
	if err := os.WriteFile(filepath.Join(r.dir, "healthy"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r.waitEvent("statusbot started MONGODB_URI=" + atlas + "\n")
	if err := r.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := r.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, r.out)
	}
	out := r.out.String()
	if strings.Contains(r.events(), "devdb") {
		t.Fatal("FerretDB started")
	}
	if !strings.Contains(out, "MongoDB: MongoDB at mongodb+srv://cluster0.example.mongodb.net/ (MONGODB_URI is set; the local FerretDB is not started)") ||
		strings.Contains(out, "PASSWORD") {
		t.Fatalf("output:\n%s", out)
	}
	if r.alive("temporal") || r.alive("statusbot") {
		t.Fatal("a child still runs")
	}
}

// A taken port stops make run before anything starts, naming the port's
// use and holder (another Temporal on 7233 was joined before).
func TestBusyPortRefused(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, busy, _ := strings.Cut(l.Addr().String(), ":")
	r := startRun(t, "TELEGRAM_BOT_TOKEN=123:AAx", "TEMPORAL_PORT="+busy)
	if code := r.wait(); code != 2 {
		t.Fatalf("exit %d:\n%s", code, r.out)
	}
	want := fmt.Sprintf("Temporal frontend 127.0.0.1:%s is in use by pid %d (runlocal.test)", busy, os.Getpid())
	if !strings.Contains(r.out.String(), want) {
		t.Fatalf("want %q in:\n%s", want, r.out)
	}
	if ev := r.events(); ev != "" {
		t.Fatalf("started: %q", ev)
	}
}

// syncBuffer is a bytes.Buffer safe for the writer goroutines of exec.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
