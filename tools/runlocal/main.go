// Command runlocal is `make run`: the Temporal dev server, FerretDB and
// `statusbot all`, with the settings of .env read as docker compose reads
// them. It says which Temporal and which MongoDB the bot uses and why,
// refuses to start when a port it needs is taken, watches every process
// and stops all of them when one exits, and stops cleanly on Ctrl-C or
// SIGTERM at any moment (a second one kills at once).
//
// tools/run-local.sh builds the binaries first, then runs this.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

const tokenHelp = `TELEGRAM_BOT_TOKEN is not set (nor TELEGRAM_BOT_TOKEN_FILE).

  1. In Telegram, talk to @BotFather, send /newbot and follow the steps.
  2. Copy the token it gives you (it looks like 123456789:AA...).
  3. cp .env.example .env   and set   TELEGRAM_BOT_TOKEN=<your token>   in .env
     (or TELEGRAM_BOT_TOKEN_FILE=<path of a file holding it>)
  4. make run`

func main() {
	envFile := flag.String("env", ".env", "settings file, read as docker compose reads .env")
	binDir := flag.String("bin", "bin", "directory holding temporal, devdb and statusbot")
	dataDir := flag.String("data", ".data", "directory for the local state and the logs")
	grace := flag.Duration("grace", 15*time.Second, "how long a process may take to stop before it is killed")
	preflight := flag.Bool("preflight", false, "only read the settings and check that a token is given (before the long first build)")
	flag.Parse()
	if *preflight {
		var said bytes.Buffer
		if _, err := readSettings(*envFile, &said); err != nil {
			os.Stderr.Write(said.Bytes())
			os.Exit(2)
		}
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	force := make(chan struct{})
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-signals
		fmt.Fprintf(os.Stderr, "\n%s: stopping everything (again to kill at once)\n", sig)
		cancel()
		<-signals
		close(force)
	}()
	sv := &supervisor{out: os.Stderr, grace: *grace, force: force}
	os.Exit(run(ctx, sv, *envFile, *binDir, *dataDir))
}

// run returns the exit code: 0 after Ctrl-C or SIGTERM, 1 when a process
// exited on its own or failed to start, 2 for a setting to fix first.
func run(ctx context.Context, sv *supervisor, envFile, binDir, dataDir string) int {
	out := sv.out
	s, err := readSettings(envFile, out)
	if err != nil {
		return 2
	}
	store, temporal := chooseStore(s), chooseTemporal(s)
	fmt.Fprintln(out, "make run: MongoDB:", store.why)
	fmt.Fprintln(out, "make run: Temporal:", temporal.why)

	temporalPort := orDefault(s, "TEMPORAL_PORT", "7233")
	uiPort := orDefault(s, "TEMPORAL_UI_PORT", "8233")
	devdbAddr := orDefault(s, "DEVDB_ADDR", "127.0.0.1:27017")
	healthAddr := orDefault(s, "HEALTH_ADDR", "127.0.0.1:8080")
	var ports []port
	if temporal.local {
		s.env["TEMPORAL_ADDRESS"] = "127.0.0.1:" + temporalPort
		ports = append(ports, port{"Temporal frontend", "127.0.0.1:" + temporalPort}, port{"Temporal Web UI", "127.0.0.1:" + uiPort})
	}
	uriFile := filepath.Join(dataDir, "mongodb.uri")
	if store.local {
		ports = append(ports, port{"FerretDB (MongoDB)", devdbAddr})
		// A placeholder for the configuration check; the real URI comes
		// from FerretDB once it listens.
		s.env["MONGODB_URI"] = "mongodb://" + devdbAddr + "/"
	}
	ports = append(ports, port{"bot health endpoint (HEALTH_ADDR)", healthAddr})
	if addr, present := s.env["METRICS_ADDR"]; !present || addr != "" {
		ports = append(ports, port{"bot metrics endpoint (METRICS_ADDR)", orDefault(s, "METRICS_ADDR", "127.0.0.1:9090")})
	}

	statusbot := filepath.Join(binDir, "statusbot")
	if msg, ok := checkConfig(statusbot, s.environ()); !ok {
		fmt.Fprint(out, msg)
		return 2
	}
	if err := busyPorts(ports); err != nil {
		fmt.Fprintln(out, "make run:", err)
		return 2
	}
	if err := os.MkdirAll(filepath.Join(dataDir, "ferretdb"), 0o755); err != nil {
		fmt.Fprintln(out, "make run:", err)
		return 1
	}

	temporalCLI := filepath.Join(binDir, "temporal")
	var children []child
	if temporal.local {
		children = append(children, child{
			name: "Temporal dev server",
			argv: []string{temporalCLI, "server", "start-dev", "--ip", "127.0.0.1", "--port", temporalPort, "--ui-port", uiPort,
				"--db-filename", filepath.Join(dataDir, "temporal.db"), "--log-level", "warn",
				// One send-queue partition, so TELEGRAM_RATE_LIMIT holds exactly
				// (deploy/temporal/dynamicconfig.yaml does the same).
				"--dynamic-config-value", "matching.numTaskqueueReadPartitions=1", "--dynamic-config-value", "matching.numTaskqueueWritePartitions=1",
				"--search-attribute", "EventKind=Keyword", "--search-attribute", "EventKey=Keyword", "--search-attribute", "IncidentID=Keyword",
				"--search-attribute", "ComponentIDs=KeywordList", "--search-attribute", "DeliveryState=Keyword",
				"--search-attribute", "PendingSubscribers=Int", "--search-attribute", "FailedSubscribers=Int"},
			log: filepath.Join(dataDir, "temporal.log"),
			ready: func(ctx context.Context) error {
				return pollUntil(ctx, 3*time.Minute, time.Second, "cluster health", func(ctx context.Context) bool {
					return exec.CommandContext(ctx, temporalCLI, "operator", "cluster", "health", "--address", "127.0.0.1:"+temporalPort).Run() == nil
				})
			},
		})
	}
	if store.local {
		_ = os.Remove(uriFile)
		children = append(children, child{
			name: "FerretDB",
			argv: []string{filepath.Join(binDir, "devdb"), "-dir", filepath.Join(dataDir, "ferretdb"), "-listen", devdbAddr, "-uri-file", uriFile},
			log:  filepath.Join(dataDir, "ferretdb.log"),
			ready: func(ctx context.Context) error {
				return pollUntil(ctx, time.Minute, 200*time.Millisecond, "FerretDB", func(context.Context) bool {
					uri, err := os.ReadFile(uriFile)
					if err != nil || len(bytes.TrimSpace(uri)) == 0 {
						return false
					}
					s.env["MONGODB_URI"] = strings.TrimSpace(string(uri))
					return true
				})
			},
		})
	}
	// The bot's environment is complete once FerretDB has told its URI.
	children = append(children, child{name: "statusbot all", argv: []string{statusbot, "all"}, env: s.environ})
	if temporal.local {
		fmt.Fprintf(out, "Temporal Web UI: http://localhost:%s   (logs in %s/)\n", uiPort, dataDir)
	}
	fmt.Fprintf(out, "Health: http://%s/healthz   Ctrl-C stops everything.\n", healthAddr)
	if err := sv.supervise(ctx, children); err != nil {
		return 1
	}
	return 0
}

// readSettings reads .env, prints what to know about it and checks that
// the bot has a token; errors have been printed.
func readSettings(envFile string, out io.Writer) (settings, error) {
	s, err := readEnvFile(envFile, os.Environ())
	if err != nil {
		fmt.Fprintln(out, "make run:", err)
		return s, err
	}
	for _, n := range s.notes {
		fmt.Fprintln(out, "make run:", n)
	}
	_, token := s.set("TELEGRAM_BOT_TOKEN")
	_, tokenFile := s.set("TELEGRAM_BOT_TOKEN_FILE")
	if !token && !tokenFile {
		fmt.Fprintln(out, tokenHelp)
		return s, errors.New("no token")
	}
	return s, nil
}

func orDefault(s settings, name, def string) string {
	if v, ok := s.set(name); ok {
		return v
	}
	return def
}

// checkConfig runs `statusbot check-config` with the bot's environment:
// a bad setting stops make run before anything starts.
func checkConfig(statusbot string, env []string) (string, bool) {
	cmd := exec.Command(statusbot, "check-config")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), false
	}
	return "", true
}
