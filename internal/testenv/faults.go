package testenv

// Helpers for fault tests and benchmarks: servers a test owns (so that it
// can stop and restart them on the same port with the same data without
// disturbing the shared ones), a Stack built on them, and a proxy in front of
// the fake Telegram that can lose answers after Telegram accepted a message.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/logging"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/worker"
)

// FreeAddr returns a loopback host:port that was free a moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// OwnMongo is a FerretDB instance owned by one test: Stop and Start restart
// it on the same port with the same SQLite files.
type OwnMongo struct {
	URI  string
	bin  string
	dir  string
	addr string

	mu  sync.Mutex
	cmd *exec.Cmd
}

// StartOwnMongo starts a private FerretDB; it is stopped with the test.
func StartOwnMongo(t testing.TB) *OwnMongo {
	t.Helper()
	bin, ok := Binary("devdb", "DEVDB_BIN")
	if !ok {
		t.Skipf("FerretDB helper not found at %s: run `make tools` (or set DEVDB_BIN) to run this test", bin)
	}
	m := &OwnMongo{bin: bin, dir: t.TempDir(), addr: FreeAddr(t)}
	m.Start(t)
	t.Cleanup(func() { m.Stop(t) })
	return m
}

// Start (re)starts FerretDB on the instance's port and waits until it answers.
func (m *OwnMongo) Start(t testing.TB) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd != nil {
		return
	}
	logf, err := os.OpenFile(filepath.Join(m.dir, "devdb.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	uriFile := filepath.Join(m.dir, "uri")
	_ = os.Remove(uriFile)
	cmd := exec.Command(m.bin, "-dir", filepath.Join(m.dir, "data"), "-listen", m.addr, "-uri-file", uriFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.Stdout, cmd.Stderr = io.Discard, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	m.cmd = cmd
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, err := os.ReadFile(uriFile)
		if err == nil && strings.HasPrefix(strings.TrimSpace(string(b)), "mongodb://") {
			m.URI = strings.TrimSpace(string(b))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("own FerretDB did not start on %s within 60s", m.addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Wait until it accepts connections.
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", m.addr, time.Second)
		if err == nil {
			_ = c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("own FerretDB does not accept connections on %s", m.addr)
}

// Stop stops FerretDB gracefully (SIGTERM; it drains its connections for a
// few seconds) and waits for it to exit.
func (m *OwnMongo) Stop(t testing.TB) { m.stop(syscall.SIGTERM) }

// Kill stops FerretDB at once (SIGKILL), as a crash or a lost host would.
func (m *OwnMongo) Kill(t testing.TB) { m.stop(syscall.SIGKILL) }

func (m *OwnMongo) stop(sig syscall.Signal) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cmd == nil {
		return
	}
	_ = m.cmd.Process.Signal(sig)
	done := make(chan struct{})
	go func() { _, _ = m.cmd.Process.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		_ = m.cmd.Process.Kill()
		<-done
	}
	m.cmd = nil
}

// OwnTemporal is a Temporal dev server owned by one test, persisting to a
// SQLite file on a fixed port, so that Stop and Start restart it with its
// workflows, timers and task queues intact.
type OwnTemporal struct {
	Addr      string
	Namespace string
	bin       string
	dbFile    string
	extra     []string
	// partitions: the server's default task-queue partitions (four), not
	// SinglePartition.
	partitions bool

	mu  sync.Mutex
	srv *testsuite.DevServer
}

// StartOwnTemporal starts a private dev server; it is stopped with the test.
// extraArgs go to `temporal server start-dev` (e.g. --dynamic-config-value).
func StartOwnTemporal(t testing.TB, extraArgs ...string) *OwnTemporal {
	t.Helper()
	return startOwnTemporal(t, false, extraArgs)
}

// StartOwnTemporalAtDefaults is StartOwnTemporal with the server's default
// task-queue partitions (four), as a Temporal server nobody configured for
// the bot has, Temporal Cloud among them.
func StartOwnTemporalAtDefaults(t testing.TB) *OwnTemporal {
	t.Helper()
	return startOwnTemporal(t, true, nil)
}

func startOwnTemporal(t testing.TB, partitions bool, extraArgs []string) *OwnTemporal {
	t.Helper()
	bin, ok := Binary("temporal", "TEMPORAL_BIN")
	if !ok {
		t.Skipf("Temporal CLI not found at %s: run `make tools` (or set TEMPORAL_BIN) to run this test", bin)
	}
	o := &OwnTemporal{Addr: FreeAddr(t), Namespace: "faults", bin: bin, dbFile: filepath.Join(t.TempDir(), "temporal.db"), extra: extraArgs, partitions: partitions}
	o.Start(t)
	t.Cleanup(func() { o.Stop(t) })
	return o
}

// Start (re)starts the dev server and waits until it serves.
func (o *OwnTemporal) Start(t testing.TB) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.srv != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath:  o.bin,
		ClientOptions: &client.Options{HostPort: o.Addr, Namespace: o.Namespace},
		DBFilename:    o.dbFile,
		LogLevel:      "error",
		ExtraArgs:     o.args(),
		Stdout:        io.Discard,
		Stderr:        io.Discard,
	})
	if err != nil {
		t.Fatalf("start own Temporal dev server on %s: %v", o.Addr, err)
	}
	o.srv = srv
}

func (o *OwnTemporal) args() []string {
	args := []string{"--dynamic-config-value", "frontend.enableUpdateWorkflowExecution=true"}
	if !o.partitions {
		args = append(args, SinglePartition...)
	}
	return append(args, o.extra...)
}

// Stop stops the dev server (SIGINT, as a restart would) and waits.
func (o *OwnTemporal) Stop(t testing.TB) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.srv == nil {
		return
	}
	o.srv.Client().Close()
	if err := o.srv.Stop(); err != nil {
		t.Logf("own Temporal dev server stopped: %v", err)
	}
	o.srv = nil
}

// StackOptions overrides where NewStackWith points; empty fields take the
// shared servers.
type StackOptions struct {
	TemporalAddress   string
	TemporalNamespace string
	MongoURI          string
	HTTPTimeout       time.Duration
	// Provider: "" serves the Statuspage fake read as a Statuspage;
	// "incidentio" serves the incident.io fake (Stack.IO) read with
	// STATUSPAGE_PROVIDER=auto, as the real status.openai.com is;
	// "statuspage-auto" serves the Statuspage fake read with auto.
	Provider string
	// Pages, when set, are the pages the bot offers (STATUS_PAGES, in
	// their order) instead of the one page above.
	Pages *fakes.Pages
}

// NewStackWith is NewStack on servers the test may own (OwnTemporal, OwnMongo).
func NewStackWith(t testing.TB, pollInterval time.Duration, o StackOptions) *Stack {
	t.Helper()
	addr, ns := o.TemporalAddress, o.TemporalNamespace
	if addr == "" {
		addr = DevServer(t)
		nsMu.Lock()
		if nsNext >= namespacePool {
			nsMu.Unlock()
			t.Fatalf("testenv: more than %d stacks in one test binary; raise namespacePool", namespacePool)
		}
		ns = fmt.Sprintf("itest%d", nsNext)
		nsNext++
		nsMu.Unlock()
	}
	uri := o.MongoURI
	if uri == "" {
		uri = MongoURI(t)
	}
	timeout := o.HTTPTimeout
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	tg := fakes.NewTelegram(TestToken)
	t.Cleanup(tg.Close)
	page := fakes.NewStatuspage()
	t.Cleanup(page.Close)
	pageURL, provider := page.URL(), "statuspage"
	var io *fakes.IncidentIO
	switch o.Provider {
	case "incidentio":
		io = fakes.NewIncidentIO()
		t.Cleanup(io.Close)
		pageURL, provider = io.URL(), "auto"
	case "statuspage-auto":
		provider = "auto"
	}
	cfg := &config.Config{
		TelegramBotToken: TestToken, TelegramAPIURL: tg.URL(), StatuspageURL: pageURL, StatuspageProvider: provider,
		MongoDBURI: uri, MongoDBDatabase: DatabaseName(t),
		TemporalAddress: addr, TemporalNamespace: ns, TemporalTaskQueue: "statusbot-" + ns,
		PollInterval: pollInterval, HTTPTimeout: timeout, TelegramRateLimit: 25, BotReplyRate: 4,
		HealthAddr: "127.0.0.1:0", LogLevel: "warn",
	}
	if o.Pages != nil {
		cfg.StatusPages, cfg.StatuspageURL, cfg.StatuspageProvider = o.Pages.StatusPages(), pages.OpenAIURL, ""
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	log := logging.New(os.Stderr, "warn", TestToken)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := store.Open(ctx, uri, cfg.MongoDBDatabase)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close(5 * time.Second) })
	c, err := worker.Dial(cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	s := &Stack{Config: cfg, Store: st, Temporal: c, Telegram: tg, Page: page, IO: io, Log: log}
	t.Cleanup(func() { s.deleteSchedule() })
	return s
}

// LossyProxy sits between the worker and the fake Telegram. While a chat is
// marked with LoseAnswers, the request reaches Telegram (which accepts the
// message) but the answer never comes back: the client times out, and the
// send's outcome is unknown to the bot, as when a connection drops after
// Telegram processed it.
type LossyProxy struct {
	Server   *httptest.Server
	upstream string

	mu         sync.Mutex
	lose       map[int64]int // chat -> answers still to lose
	badGateway map[int64]int // chat -> requests still to answer 502
	lost       int
	calls      int
}

// NewLossyProxy forwards to upstream (the fake Telegram's URL).
func NewLossyProxy(t testing.TB, upstream string) *LossyProxy {
	t.Helper()
	p := &LossyProxy{upstream: strings.TrimRight(upstream, "/"), lose: map[int64]int{}, badGateway: map[int64]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Server.Close)
	return p
}

// URL is the value for TELEGRAM_API_URL.
func (p *LossyProxy) URL() string { return p.Server.URL }

// LoseAnswers makes the next n answers to sendMessage for chatID vanish.
func (p *LossyProxy) LoseAnswers(chatID int64, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lose[chatID] = n
}

// BadGateway makes the next n sendMessage requests for chatID answer 502
// with an HTML body, as a load balancer in front of the Bot API does; they
// never reach Telegram.
func (p *LossyProxy) BadGateway(chatID int64, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.badGateway[chatID] = n
}

// Lost is how many answers were lost so far (sends with unknown outcome).
func (p *LossyProxy) Lost() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lost
}

func (p *LossyProxy) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if strings.HasSuffix(r.URL.Path, "/sendMessage") {
		chat := chatIDOf(r.Header.Get("Content-Type"), body)
		p.mu.Lock()
		bad := p.badGateway[chat] > 0
		if bad {
			p.badGateway[chat]--
		}
		p.mu.Unlock()
		if bad {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = w.Write([]byte("<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"))
			return
		}
	}
	// The client's cancellation reaches Telegram, so that a request the
	// client gave up on is not processed later (the fake checks for that).
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)

	if strings.HasSuffix(r.URL.Path, "/sendMessage") && resp.StatusCode == http.StatusOK {
		chat := chatIDOf(r.Header.Get("Content-Type"), body)
		p.mu.Lock()
		p.calls++
		drop := p.lose[chat] > 0
		if drop {
			p.lose[chat]--
			p.lost++
		}
		p.mu.Unlock()
		if drop {
			<-r.Context().Done() // the client gives up: outcome unknown
			return
		}
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(answer)
}

// chatIDOf reads chat_id from a sendMessage body in any of the encodings
// the fake accepts.
func chatIDOf(contentType string, body []byte) int64 {
	r, _ := http.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	r.Header.Set("Content-Type", contentType)
	p, err := fakesParams(r)
	if err != nil {
		return 0
	}
	return p.Int64("chat_id")
}

// fakesParams decodes the request like the fake Telegram does.
func fakesParams(r *http.Request) (fakes.Params, error) {
	// The fake's parser is unexported; a throwaway fake with a handler
	// recording the parameters would be heavier than parsing here.
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "multipart/form-data"):
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			return nil, err
		}
		return fakes.Params{"chat_id": r.FormValue("chat_id")}, nil
	case strings.HasPrefix(ct, "application/x-www-form-urlencoded"):
		if err := r.ParseForm(); err != nil {
			return nil, err
		}
		return fakes.Params{"chat_id": r.PostForm.Get("chat_id")}, nil
	default:
		b, _ := io.ReadAll(r.Body)
		s := string(b)
		i := strings.Index(s, `"chat_id":`)
		if i < 0 {
			return fakes.Params{}, nil
		}
		s = strings.TrimLeft(s[i+len(`"chat_id":`):], ` "`)
		j := strings.IndexFunc(s, func(r rune) bool { return !(r == '-' || r >= '0' && r <= '9') })
		if j >= 0 {
			s = s[:j]
		}
		return fakes.Params{"chat_id": s}, nil
	}
}
