//go:build production

// The production path of compose.yml, run for real without Docker: a
// stack set up on the previous minor's Temporal server (latest patch),
// with data in it, upgraded to the pinned one as `git pull && docker
// compose up -d` does (both built from source: tools/temporalserver-previous
// and tools/temporalserver), PostgreSQL from Debian's packages, the set-up
// jobs and the server with compose's environment, configuration and
// dynamic config, `statusbot worker` and `statusbot bot` against it with
// FerretDB and the fakes, and the pinned Web UI (tools/uiserver). `make
// test-production` builds the tools and runs this; see docs/deploy.md.
package deploy_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/testenv"
	"github.com/openai-status-bot/statusbot/workflows"
)

const prodToken = "123456:AAproductionPATHtoken"

// production holds the pieces of one run.
type production struct {
	dir      string // secrets, shims, the server's working directory
	shims    string // on PATH: the names the images give the tools
	pgBin    string // the client tools: psql, pg_dump, pg_restore
	pgServer string // initdb, pg_ctl, postgres
	pgDir    string
	pgPort   string
	pgPwFile string
	pinned   release           // compose.yml's
	previous release           // the minor before it, latest patch
	schema   string            // the schema/postgresql/v12 of the release in use
	ports    map[string]string // the server's ports (free ones: the machine is shared)
	temporal string            // the frontend, host:port
}

// release is one Temporal release's server, temporal-sql-tool and schema
// directory: what its temporalio/server and admin-tools images hold.
type release struct {
	version, server, sqlTool, schema string
}

func TestProductionPath(t *testing.T) {
	start := time.Now()
	p := newProduction(t)
	p.logVersions(t)
	p.startPostgres(t)

	// A stack on the previous minor's latest patch, with data in it: the
	// bot's schedules, its polls and a delivery.
	p.use(t, p.previous)
	out := p.job(t, "setup-schema.sh", p.schemaEnv(t))
	t.Logf("setup-schema on Temporal %s (a new cluster, DEBUG lines left out):\n%s", p.previous.version, withoutDebug(out))
	require.Contains(t, out, "setup-schema: a new cluster")
	require.Contains(t, out, "setup-schema: done: Temporal "+p.previous.version+" recorded in database temporal_release")
	server := p.startServer(t, "deploy/temporal/dynamicconfig.yaml")
	defer func() { stop(server) }()
	out = p.job(t, "setup-namespace.sh", p.namespaceEnv(t))
	t.Logf("setup-namespace (first run):\n%s", out)
	require.Contains(t, out, "setup-namespace: creating namespace default")

	page := fakes.NewIncidentIO()
	defer page.Close()
	tg := fakes.NewTelegram(prodToken)
	defer tg.Close()
	fakes.NewUpdates(tg, 1)
	st, db := testenv.StoreAndDatabase(t)
	const chat = 424242
	_, err := st.Subscribe(context.Background(), chat, 0, time.Now())
	require.NoError(t, err)

	env := p.botEnv(t, db.Name(), page.URL(), tg.URL())
	workerLog, workerMetrics := &testenv.LogBuffer{}, testenv.FreeAddr(t)
	worker := p.startBot(t, "worker", append(env, "METRICS_ADDR="+workerMetrics), workerLog)
	botLog := &testenv.LogBuffer{}
	bot := p.startBot(t, "bot", append(env, "METRICS_ADDR="+testenv.FreeAddr(t)), botLog)
	defer stop(bot)

	testenv.WaitFor(t, 2*time.Minute, "the worker's baseline poll", func() bool {
		snap, err := st.LatestSnapshot(context.Background())
		return err == nil && snap != nil
	})
	page.SetComponent(fakes.IOComponentCLI, "CLI", "partial_outage")
	p.waitForNotice(t, tg, chat, start, "CLI", "Partial Outage")
	var delivered string // a delivery's workflow ID
	testenv.WaitFor(t, time.Minute, "the delivery, closed, in visibility", func() bool {
		out := p.cliMay("workflow", "list", "--namespace", "default", "--query", `EventKind = "component" AND DeliveryState = "done"`, "-o", "json")
		m := regexp.MustCompile(`"workflowId":\s*"([^"]+)"`).FindStringSubmatch(out)
		if m != nil {
			delivered = m[1]
		}
		return m != nil
	})
	schedules := p.scheduleIDs(t)
	require.NotEmpty(t, schedules, "the worker created no schedule on %s", p.previous.version)
	onPrevious, err := strconv.Atoi(strings.TrimSpace(p.psql(t, "temporal", "SELECT count(*) FROM executions")))
	require.NoError(t, err)
	t.Logf("on Temporal %s: delivery %s, schedules %v, %d workflow executions", p.previous.version, delivered, schedules, onPrevious)

	// The upgrade, as `docker compose up -d` after a `git pull` that moved
	// the pin runs it: the pin's schema job while the old server still
	// runs, then the pin's server in its place, on the same ports; the
	// worker and the bot keep running and reconnect.
	p.use(t, p.pinned)
	out = p.job(t, "setup-schema.sh", p.schemaEnv(t))
	t.Logf("setup-schema on Temporal %s, upgrading (DEBUG lines left out):\n%s", p.pinned.version, withoutDebug(out))
	require.Contains(t, out, "setup-schema: Temporal "+p.previous.version+" (recorded) to "+p.pinned.version+": supported")
	require.Contains(t, out, "setup-schema: done: Temporal "+p.pinned.version+" recorded in database temporal_release")
	firstSchema := p.schemaState(t)
	p.refusesASkippedMinor(t)
	p.setsUpANewClusterLikeTheUpgradedOne(t)
	stop(server)
	server = p.startServer(t, "deploy/temporal/dynamicconfig.yaml")
	out = p.job(t, "setup-namespace.sh", p.namespaceEnv(t))
	t.Logf("setup-namespace after the upgrade:\n%s", out)
	require.Contains(t, out, "namespace default exists")

	// The bot still delivers, from the schedules made before the upgrade,
	// and the earlier data is still there.
	page.SetComponent(fakes.IOComponentImages, "Images", "major_outage")
	p.waitForNotice(t, tg, chat, start, "Images", "Major Outage")
	require.Equal(t, schedules, p.scheduleIDs(t), "the schedules changed across the upgrade")
	out = p.cli(t, "workflow", "describe", "--namespace", "default", "--workflow-id", delivered)
	require.Regexp(t, `Status\s+COMPLETED`, out, "the delivery made on %s, described on %s:\n%s", p.previous.version, p.pinned.version, out)
	onPinned, err := strconv.Atoi(strings.TrimSpace(p.psql(t, "temporal", "SELECT count(*) FROM executions")))
	require.NoError(t, err)
	require.Greater(t, onPinned, onPrevious, "no new workflow executions, or some lost, across the upgrade")
	t.Logf("upgraded %s -> %s with the bot running: delivery %s still described, schedules %v, %d workflow executions (%d before)",
		p.previous.version, p.pinned.version, delivered, schedules, onPinned, onPrevious)

	// The search attributes the namespace job created, and in use.
	out = p.cli(t, "operator", "search-attribute", "list", "--namespace", "default")
	for name := range workflows.SearchAttributes() {
		require.Contains(t, out, name)
	}
	testenv.WaitFor(t, time.Minute, "the deliveries found by their search attributes", func() bool {
		out := p.cliMay("workflow", "list", "--namespace", "default", "--query", `EventKind = "component" AND DeliveryState = "done"`)
		return strings.Count(out, "DeliveryWorkflow") >= 2
	})
	p.checkWebUI(t, delivered)
	t.Logf("deliveries by search attribute:\n%s", p.cliMay("workflow", "list", "--namespace", "default", "--query", `EventKind = "component"`))

	// Metrics: the worker's and the server's (PROMETHEUS_ENDPOINT).
	body := get(t, "http://"+workerMetrics+"/metrics")
	require.Contains(t, body, "statusbot_last_successful_poll_timestamp_seconds")
	require.Contains(t, body, "temporal_request")
	body = get(t, "http://"+p.ports["PROMETHEUS_ENDPOINT"]+"/metrics")
	require.Regexp(t, regexp.MustCompile(`(?m)^persistence_requests`), body)
	require.NotContains(t, workerLog.String()+botLog.String(), prodToken)

	// A second run of the set-up jobs changes nothing, on a cluster set up
	// before the job recorded its release too (as compose.yml's 1.32.1
	// left it): the schema version vouches for it.
	p.psql(t, "postgres", "DROP DATABASE temporal_release")
	out = p.job(t, "setup-schema.sh", p.schemaEnv(t))
	t.Logf("setup-schema (second run, no release recorded, DEBUG lines left out):\n%s", withoutDebug(out))
	require.Contains(t, out, "(no release recorded yet)")
	require.Equal(t, firstSchema, p.schemaState(t), "the second schema run changed the schema")
	out = p.job(t, "setup-schema.sh", p.schemaEnv(t))
	require.Regexp(t, `Temporal (1\.\d+\.\d+) \(recorded\) to 1\.\d+\.\d+: supported`, out)
	before := p.cli(t, "operator", "namespace", "describe", "--namespace", "default", "-o", "json")
	out = p.job(t, "setup-namespace.sh", p.namespaceEnv(t))
	t.Logf("setup-namespace (second run):\n%s", out)
	require.Contains(t, out, "namespace default exists")
	require.NotContains(t, out, "adding search attribute")
	require.Equal(t, before, p.cli(t, "operator", "namespace", "describe", "--namespace", "default", "-o", "json"))
	// A later TEMPORAL_RETENTION is applied on the next `up` (it was read
	// when the namespace was created only).
	out = p.job(t, "setup-namespace.sh", append(p.namespaceEnv(t), "NAMESPACE_RETENTION=72h"))
	t.Logf("setup-namespace (TEMPORAL_RETENTION changed to 72h):\n%s", out)
	require.Contains(t, out, "retention of default: 604800 s, now 72h (259200 s)")
	require.Contains(t, p.cli(t, "operator", "namespace", "describe", "--namespace", "default", "-o", "json"), `"workflowExecutionRetentionTtl": "259200s"`)

	// One partition, as deploy/temporal/dynamicconfig.yaml sets: the worker
	// says so. Four: a worker on a queue the dynamic config does not name
	// (TEMPORAL_TASK_QUEUE changed, the file not) warns.
	testenv.WaitFor(t, 2*time.Minute, "the worker's partition check", func() bool {
		return strings.Contains(workerLog.String(), "the send queue has one partition")
	})
	require.NotContains(t, workerLog.String(), "more than one partition")
	for _, line := range strings.Split(workerLog.String(), "\n") {
		if strings.Contains(line, "the send queue has one partition") {
			t.Logf("worker with one send-queue partition says:\n%s", line)
		}
	}
	stop(worker)
	renamedLog := &testenv.LogBuffer{}
	renamed := p.startBot(t, "worker", append(env, "METRICS_ADDR="+testenv.FreeAddr(t), "TEMPORAL_TASK_QUEUE=statusbot-renamed"), renamedLog)
	defer stop(renamed)
	testenv.WaitFor(t, 3*time.Minute, "the worker's warning about partitions", func() bool {
		return strings.Contains(renamedLog.String(), "more than one partition")
	})
	for _, line := range strings.Split(renamedLog.String(), "\n") {
		if strings.Contains(line, "more than one partition") {
			t.Logf("worker with four partitions says:\n%s", line)
		}
	}

	stop(renamed)
	stop(bot)
	stop(server)
	p.backupAndRestore(t)
	out = p.job(t, "setup-schema.sh", p.schemaEnv(t))
	require.Contains(t, out, "setup-schema: done")
	t.Logf("production path: %s", time.Since(start).Round(time.Second))
}

// backupAndRestore is the backup and restore of docs/deploy.md: pg_dump
// -Fc per database, restored into a fresh cluster's state (the image
// pre-creates an empty `temporal`) with --create --clean and errors
// stopping it. pg_dump refuses a server of a newer major than its own: on
// PostgreSQL 16 with Debian 12's client tools (15) it is not run here, and
// `make test-production PG_SERVER_DIR=` runs it on 15 (.ci/run does both).
func (p *production) backupAndRestore(t *testing.T) {
	t.Helper()
	if server, dump := p.majors(t); dump < server {
		t.Logf("backup and restore NOT RUN on PostgreSQL %d: pg_dump here is %d, and pg_dump refuses a newer server (run with PG_SERVER_DIR= for PostgreSQL %d)", server, dump, dump)
		return
	}
	// The backup and restore of docs/deploy.md: pg_dump -Fc per database,
	// restored into a fresh cluster's state (the image pre-creates an
	// empty `temporal`) with --create --clean and errors stopping it.
	executions := p.psql(t, "temporal", "SELECT count(*) FROM executions")
	before := p.schemaState(t)
	for _, db := range []string{"temporal", "temporal_visibility"} {
		dump := filepath.Join(p.dir, db+".dump")
		cmd := exec.Command(filepath.Join(p.pgBin, "pg_dump"), "-h", "127.0.0.1", "-p", p.pgPort, "-U", "temporal", "-Fc", "-f", dump, db)
		cmd.Env = p.pgEnv()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	p.psql(t, "postgres", "DROP DATABASE temporal")
	p.psql(t, "postgres", "DROP DATABASE temporal_visibility")
	p.psql(t, "postgres", "CREATE DATABASE temporal")
	for _, db := range []string{"temporal", "temporal_visibility"} {
		dump, err := os.Open(filepath.Join(p.dir, db+".dump"))
		require.NoError(t, err)
		cmd := exec.Command(filepath.Join(p.pgBin, "pg_restore"), "-h", "127.0.0.1", "-p", p.pgPort, "-U", "temporal",
			"-d", "postgres", "--create", "--clean", "--if-exists", "--exit-on-error")
		cmd.Env, cmd.Stdin = p.pgEnv(), dump
		out, err := cmd.CombinedOutput()
		dump.Close()
		require.NoError(t, err, "restore %s: %s", db, out)
	}
	require.Equal(t, before, p.schemaState(t), "the restored schema differs")
	require.Equal(t, executions, p.psql(t, "temporal", "SELECT count(*) FROM executions"))
	t.Logf("backup and restore of both databases: %s workflow executions back", strings.TrimSpace(executions))
}

// refusesASkippedMinor sets a cluster up on the schema of a release two
// minor versions older (TEMPORAL_SKIPPED_SCHEMA_DIR, in databases of its
// own), as a stack still on it would be, and runs the schema job of the
// pin on it: refused, with the steps, and nothing changed.
func (p *production) refusesASkippedMinor(t *testing.T) {
	t.Helper()
	old := os.Getenv("TEMPORAL_SKIPPED_SCHEMA_DIR")
	require.NotEmpty(t, old, "TEMPORAL_SKIPPED_SCHEMA_DIR: run this through `make test-production`")
	pw, err := os.ReadFile(p.pgPwFile)
	require.NoError(t, err)
	for db, dir := range map[string]string{"skipped": "temporal", "skipped_visibility": "visibility"} {
		for _, args := range [][]string{{"create"}, {"setup-schema", "-v", "0.0"}, {"update-schema", "-d", filepath.Join(old, dir, "versioned")}} {
			cmd := exec.Command(filepath.Join(p.shims, "temporal-sql-tool"), append([]string{"--plugin", "postgres12", "--ep", "127.0.0.1",
				"-p", p.pgPort, "-u", "temporal", "--db", db}, args...)...)
			cmd.Env = append(os.Environ(), "SQL_PASSWORD="+strings.TrimSpace(string(pw)))
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
		}
	}
	before := p.psql(t, "skipped", "SELECT curr_version FROM schema_version") + p.psql(t, "skipped_visibility", "SELECT curr_version FROM schema_version")
	cmd := exec.Command("sh", filepath.Join(root, "deploy", "temporal", "setup-schema.sh"))
	cmd.Env = append(p.schemaEnv(t), "DBNAME=skipped", "VISIBILITY_DBNAME=skipped_visibility", "RELEASE_DBNAME=skipped_release")
	out, err := cmd.CombinedOutput()
	t.Logf("setup-schema on a cluster two minor versions older (schema %s):\n%s", strings.Join(strings.Fields(before), ", "), withoutDebug(string(out)))
	require.Error(t, err, "the schema job upgraded across two minor versions")
	require.Contains(t, string(out), "so this skips a minor version")
	require.Contains(t, string(out), "nothing was changed. Upgrade in steps: ")
	require.Equal(t, before, p.psql(t, "skipped", "SELECT curr_version FROM schema_version")+p.psql(t, "skipped_visibility", "SELECT curr_version FROM schema_version"))
	require.Equal(t, "0\n", p.psql(t, "postgres", "SELECT count(*) FROM pg_database WHERE datname = 'skipped_release'"), "a refused job recorded a release")
}

func newProduction(t *testing.T) *production {
	t.Helper()
	need := func(env string) string {
		v := os.Getenv(env)
		if v == "" {
			t.Fatalf("%s is not set: run this through `make test-production`", env)
		}
		return v
	}
	// Not t.TempDir: PostgreSQL runs as its own user and must reach it.
	dir, err := os.MkdirTemp("", "statusbot-production-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	p := &production{dir: dir, shims: filepath.Join(dir, "bin"), pgBin: need("PG_BIN"), pgServer: need("PG_BIN"), ports: map[string]string{},
		pinned:   release{server: need("TEMPORAL_SERVER_BIN"), sqlTool: need("TEMPORAL_SQL_TOOL_BIN"), schema: need("TEMPORAL_SCHEMA_DIR")},
		previous: release{server: need("TEMPORAL_PREVIOUS_SERVER_BIN"), sqlTool: need("TEMPORAL_PREVIOUS_SQL_TOOL_BIN"), schema: need("TEMPORAL_PREVIOUS_SCHEMA_DIR")}}
	require.NoError(t, os.Mkdir(p.shims, 0o755))
	// PG_SERVER_DIR: a PostgreSQL server tree (bin, lib, share) of another
	// major than the client tools', copied where the postgres user reads it.
	if tree := os.Getenv("PG_SERVER_DIR"); tree != "" {
		out, err := exec.Command("cp", "-a", tree, filepath.Join(dir, "postgresql")).CombinedOutput()
		require.NoError(t, err, "%s", out)
		p.pgServer = filepath.Join(dir, "postgresql", "bin")
	}
	for _, r := range []*release{&p.pinned, &p.previous} {
		r.version = sqlToolRelease(t, r.sqlTool)
	}
	require.NotEqual(t, p.pinned.version, p.previous.version, "the previous release is the pin")
	cli, ok := testenv.Binary("temporal", "TEMPORAL_BIN")
	require.True(t, ok, "the temporal CLI: run `make tools`")
	abs, err := filepath.Abs(cli)
	require.NoError(t, err)
	require.NoError(t, os.Symlink(abs, filepath.Join(p.shims, "temporal")))
	// The admin-tools image has nc; this machine may not.
	writeExec(t, filepath.Join(p.shims, "nc"), "#!/bin/bash\n# nc -z -w SECONDS HOST PORT\nexec timeout \"$3\" bash -c \"</dev/tcp/$4/$5\" 2>/dev/null\n")
	// The server image's entrypoint (docker/scripts/sh/entrypoint.sh of
	// the release) resolves BIND_ON_IP from the container's hostname when
	// unset, then runs `temporal-server start`; BIND_ON_IP is set here.
	writeExec(t, filepath.Join(dir, "image-entrypoint.sh"), "#!/bin/sh\nexec temporal-server start\n")
	p.pgPwFile = filepath.Join(dir, "temporal_db_password")
	require.NoError(t, os.WriteFile(p.pgPwFile, []byte("pg-"+strconv.Itoa(os.Getpid())+"-secret\n"), 0o644))
	return p
}

// sqlToolRelease is the release a temporal-sql-tool names, as the schema
// job reads it: "temporal-sql-tool version 1.32.2".
func sqlToolRelease(t *testing.T, tool string) string {
	t.Helper()
	out, err := exec.Command(tool, "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := regexp.MustCompile(`version (\d+\.\d+\.\d+)`).FindSubmatch(out)
	require.NotNil(t, m, "%s --version: %s", tool, out)
	return string(m[1])
}

// use puts a release's server and temporal-sql-tool on PATH under the names
// the images give them, as a compose.yml pinning that release runs them.
func (p *production) use(t *testing.T, r release) {
	t.Helper()
	for name, target := range map[string]string{"temporal-server": r.server, "temporal-sql-tool": r.sqlTool} {
		abs, err := filepath.Abs(target)
		require.NoError(t, err)
		link := filepath.Join(p.shims, name)
		require.NoError(t, os.RemoveAll(link))
		require.NoError(t, os.Symlink(abs, link))
	}
	p.schema = r.schema
	require.Equal(t, r.version, sqlToolRelease(t, filepath.Join(p.shims, "temporal-sql-tool")))
}

func writeExec(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(body), 0o755))
}

// composeEnv is a service's environment as compose.yml gives it (the
// project loaded with compose-go and no .env), with the values that only
// make sense inside compose's networks replaced.
func composeEnv(t *testing.T, service string, replace map[string]string) []string {
	t.Helper()
	s, ok := loadCompose(t).Services[service]
	require.True(t, ok, service)
	var env []string
	for k, v := range s.Environment {
		if r, ok := replace[k]; ok {
			env = append(env, k+"="+r)
			delete(replace, k)
			continue
		}
		require.NotNil(t, v, "%s: %s has no value", service, k)
		env = append(env, k+"="+*v)
	}
	for k, v := range replace {
		env = append(env, k+"="+v)
	}
	return env
}

// composeMount is where compose mounts a file of this repository into a
// service's container.
func composeMount(t *testing.T, service, source string) string {
	t.Helper()
	abs := filepath.Join(absRoot(t), source)
	for _, v := range loadCompose(t).Services[service].Volumes {
		if v.Source == abs {
			return v.Target
		}
	}
	t.Fatalf("%s does not mount %s", service, source)
	return ""
}

func (p *production) path() string { return "PATH=" + p.shims + ":" + os.Getenv("PATH") }

func (p *production) logVersions(t *testing.T) {
	for _, c := range [][]string{
		{p.previous.server, "--version"},
		{p.previous.sqlTool, "--version"},
		{p.pinned.server, "--version"},
		{p.pinned.sqlTool, "--version"},
		{filepath.Join(p.shims, "temporal"), "--version"},
		{filepath.Join(p.pgServer, "postgres"), "--version"},
		{filepath.Join(p.pgBin, "psql"), "--version"},
		{filepath.Join(p.pgBin, "pg_dump"), "--version"},
	} {
		out, err := exec.Command(c[0], c[1:]...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		t.Logf("version: %s: %s", c[0], strings.TrimSpace(string(out)))
	}
}

// asPostgres runs a PostgreSQL program as the postgres user when this is
// root (PostgreSQL refuses to run as root).
func (p *production) asPostgres(args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
	}
	return exec.Command(args[0], args[1:]...)
}

// startPostgres is what the postgres image does on a fresh volume: a
// cluster whose superuser is POSTGRES_USER with the secret file's
// password, and a database of the same name.
func (p *production) startPostgres(t *testing.T) {
	t.Helper()
	p.pgDir = filepath.Join(p.dir, "pgdata")
	require.NoError(t, os.Mkdir(p.pgDir, 0o700))
	if os.Geteuid() == 0 {
		out, err := exec.Command("chown", "-R", "postgres:", p.pgDir).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	_, port, _ := net.SplitHostPort(testenv.FreeAddr(t))
	p.pgPort = port
	out, err := p.asPostgres(filepath.Join(p.pgServer, "initdb"), "-D", p.pgDir, "-U", "temporal", "--pwfile", p.pgPwFile,
		"--auth-host=scram-sha-256", "--auth-local=trust").CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = p.asPostgres(filepath.Join(p.pgServer, "pg_ctl"), "-D", p.pgDir, "-l", filepath.Join(p.pgDir, "log"), "-w",
		"-o", "-p "+port+" -k "+p.pgDir+" -c listen_addresses=127.0.0.1", "start").CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() {
		_ = p.asPostgres(filepath.Join(p.pgServer, "pg_ctl"), "-D", p.pgDir, "-m", "fast", "-w", "stop").Run()
	})
	p.psql(t, "postgres", "CREATE DATABASE temporal")
}

func (p *production) pgEnv() []string {
	pw, _ := os.ReadFile(p.pgPwFile)
	return append(os.Environ(), "PGPASSWORD="+strings.TrimSpace(string(pw)))
}

func (p *production) psql(t *testing.T, db, sql string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(p.pgBin, "psql"), "-h", "127.0.0.1", "-p", p.pgPort, "-U", "temporal", "-d", db,
		"-v", "ON_ERROR_STOP=1", "-At", "-c", sql)
	cmd.Env = p.pgEnv()
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// schemaState is both databases' schema and recorded versions.
func (p *production) schemaState(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, db := range []string{"temporal", "temporal_visibility"} {
		b.WriteString(p.schemaDump(t, db))
		b.WriteString(p.psql(t, db, "SELECT * FROM schema_version"))
		b.WriteString(p.psql(t, db, "SELECT * FROM schema_update_history ORDER BY 1, 2, 3, 4"))
	}
	return b.String()
}

// schemaDump is a database's schema, read from the catalog (pg_dump
// refuses a server of a newer major than its own): every column with its
// type, default and generation, index, constraint, view, function and
// sequence of the public schema.
func (p *production) schemaDump(t *testing.T, db string) string {
	t.Helper()
	return p.psql(t, db, `SELECT line FROM (
  SELECT format('column %s.%s %s %s null=%s generated=%s', table_name, column_name, data_type,
    coalesce(column_default, '-'), is_nullable, coalesce(generation_expression, '-')) AS line
    FROM information_schema.columns WHERE table_schema = 'public'
  UNION ALL SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = 'public'
  UNION ALL SELECT format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid))
    FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL SELECT format('view %s %s', viewname, definition) FROM pg_views WHERE schemaname = 'public'
  UNION ALL SELECT format('function %s %s', oid::regprocedure, md5(prosrc)) FROM pg_proc WHERE pronamespace = 'public'::regnamespace
  UNION ALL SELECT 'sequence ' || sequence_name FROM information_schema.sequences WHERE sequence_schema = 'public'
) s ORDER BY line`)
}

// majors are the PostgreSQL server's major version and pg_dump's.
func (p *production) majors(t *testing.T) (server, dump int) {
	t.Helper()
	num, err := strconv.Atoi(strings.TrimSpace(p.psql(t, "postgres", "SHOW server_version_num")))
	require.NoError(t, err)
	out, err := exec.Command(filepath.Join(p.pgBin, "pg_dump"), "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := regexp.MustCompile(`(\d+)\.\d+`).FindSubmatch(out)
	require.NotNil(t, m, "pg_dump --version: %s", out)
	dump, err = strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	return num / 10000, dump
}

// setsUpANewClusterLikeTheUpgradedOne runs the pin's schema job on empty
// databases of their own, as a first `docker compose up` does: a new
// cluster, with the very schema the upgrade left (the previous minor's
// schema plus the pin's missing steps).
func (p *production) setsUpANewClusterLikeTheUpgradedOne(t *testing.T) {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join(root, "deploy", "temporal", "setup-schema.sh"))
	cmd.Env = append(p.schemaEnv(t), "DBNAME=fresh", "VISIBILITY_DBNAME=fresh_visibility", "RELEASE_DBNAME=fresh_release")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "setup-schema: a new cluster: Temporal "+p.pinned.version+"'s schema")
	require.Contains(t, string(out), "setup-schema: done: Temporal "+p.pinned.version+" recorded in database fresh_release")
	for fresh, upgraded := range map[string]string{"fresh": "temporal", "fresh_visibility": "temporal_visibility"} {
		require.Equal(t, p.psql(t, upgraded, "SELECT curr_version FROM schema_version"), p.psql(t, fresh, "SELECT curr_version FROM schema_version"), fresh)
		require.Equal(t, p.schemaDump(t, upgraded), p.schemaDump(t, fresh), "a new cluster's %s differs from the upgraded %s", fresh, upgraded)
	}
	t.Logf("a new cluster on %s has the schema of the one upgraded from %s (temporal %s, visibility %s)", p.pinned.version, p.previous.version,
		strings.TrimSpace(p.psql(t, "fresh", "SELECT curr_version FROM schema_version")), strings.TrimSpace(p.psql(t, "fresh_visibility", "SELECT curr_version FROM schema_version")))
}

// checkWebUI runs the pinned Web UI (the ui-server that the temporalio/ui
// image runs, built from the same release: tools/uiserver) as the image
// does, `ui-server --env docker start` with its config/docker.yaml and
// compose's temporal-ui environment, against the server: its health route,
// the page compose's health check fetches, and the namespace's workflows
// through its API, the delivery among them.
func (p *production) checkWebUI(t *testing.T, delivery string) {
	t.Helper()
	bin, config := os.Getenv("TEMPORAL_UI_SERVER_BIN"), os.Getenv("TEMPORAL_UI_CONFIG")
	require.True(t, bin != "" && config != "", "TEMPORAL_UI_SERVER_BIN, TEMPORAL_UI_CONFIG: run this through `make test-production`")
	work := filepath.Join(p.dir, "ui-server")
	require.NoError(t, os.MkdirAll(filepath.Join(work, "config"), 0o755))
	raw, err := os.ReadFile(config)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, "config", "docker.yaml"), raw, 0o644))
	_, port, _ := net.SplitHostPort(testenv.FreeAddr(t))
	cmd := exec.Command(bin, "--env", "docker", "start")
	cmd.Dir = work
	cmd.Env = append(composeEnv(t, "temporal-ui", map[string]string{"TEMPORAL_ADDRESS": p.temporal}), "TEMPORAL_UI_PORT="+port, p.path(), "HOME="+p.dir)
	log := &testenv.LogBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	defer stop(cmd)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("ui-server log (tail):\n%s", tail(log.String(), 30))
		}
	})
	base := "http://127.0.0.1:" + port
	testenv.WaitFor(t, time.Minute, "the Web UI's health route", func() bool {
		resp, err := http.Get(base + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	require.Contains(t, get(t, base+"/"), "<html")
	var list string
	testenv.WaitFor(t, time.Minute, "the delivery in the Web UI's workflow list", func() bool {
		resp, err := http.Get(base + "/api/v1/namespaces/default/workflows?query=" + url.QueryEscape(`EventKind = "component"`))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		list = string(body)
		return resp.StatusCode == http.StatusOK && strings.Contains(list, delivery)
	})
	m := regexp.MustCompile(`"Version":"([^"]+)"`).FindStringSubmatch(get(t, base+"/api/v1/settings"))
	require.NotNil(t, m, "the Web UI's settings name no version")
	if want := os.Getenv("TEMPORAL_UI_VERSION"); want != "" {
		require.Equal(t, strings.TrimPrefix(want, "v"), m[1])
	}
	t.Logf("Web UI %s on Temporal %s: /healthz OK, / serves the app, its workflow list holds delivery %s", m[1], p.pinned.version, delivery)
}

// waitForNotice waits for a message to the chat holding every word.
func (p *production) waitForNotice(t *testing.T, tg *fakes.Telegram, chat int64, start time.Time, words ...string) {
	t.Helper()
	testenv.WaitFor(t, 3*time.Minute, "the notice of "+strings.Join(words, " ")+" in Telegram", func() bool {
	messages:
		for _, m := range tg.MessagesTo(chat, 0) {
			for _, w := range words {
				if !strings.Contains(m.Text, w) {
					continue messages
				}
			}
			t.Logf("notice delivered to chat %d after %s:\n%s", chat, time.Since(start).Round(time.Second), m.Text)
			return true
		}
		return false
	})
}

// scheduleIDs are the namespace's schedules, sorted.
func (p *production) scheduleIDs(t *testing.T) []string {
	t.Helper()
	var ids []string
	for _, m := range regexp.MustCompile(`"scheduleId":\s*"([^"]+)"`).FindAllStringSubmatch(p.cli(t, "schedule", "list", "--namespace", "default", "-o", "json"), -1) {
		ids = append(ids, m[1])
	}
	slices.Sort(ids)
	return ids
}

// job runs a compose one-shot job's script as compose runs it (sh).
func (p *production) job(t *testing.T, script string, env []string) string {
	t.Helper()
	cmd := exec.Command("sh", filepath.Join(root, "deploy", "temporal", script))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// schemaEnv is compose's temporal-schema environment (SCHEMA_DIR: the
// release's schema/ instead of the image's copy).
func (p *production) schemaEnv(t *testing.T) []string {
	return append(composeEnv(t, "temporal-schema", map[string]string{"POSTGRES_SEEDS": "127.0.0.1", "DB_PORT": p.pgPort,
		"POSTGRES_PASSWORD_FILE": p.pgPwFile, "SCHEMA_DIR": p.schema}), p.path())
}

func (p *production) namespaceEnv(t *testing.T) []string {
	return append(composeEnv(t, "temporal-namespace", map[string]string{"TEMPORAL_ADDRESS": p.temporal}), p.path(), "HOME="+p.dir)
}

// startServer runs deploy/temporal/server-entrypoint.sh with compose's
// environment for the temporal service, in a working directory laid out
// as the image's /etc/temporal (the dynamic config at the path compose
// mounts it). The ports are free ones: the machine is shared.
func (p *production) startServer(t *testing.T, dynamicConfig string) *exec.Cmd {
	t.Helper()
	work := filepath.Join(p.dir, "etc-temporal")
	target, err := filepath.Rel("/etc/temporal", composeMount(t, "temporal", dynamicConfig))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(work, filepath.Dir(target)), 0o755))
	dc, err := os.ReadFile(filepath.Join(root, dynamicConfig))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(work, target), dc, 0o644))
	// A server started again (the upgrade) takes the same ports, as the
	// container does: the worker and the bot keep their address.
	if p.temporal == "" {
		for _, name := range []string{"FRONTEND_GRPC_PORT", "FRONTEND_HTTP_PORT", "FRONTEND_MEMBERSHIP_PORT", "HISTORY_GRPC_PORT",
			"HISTORY_MEMBERSHIP_PORT", "MATCHING_GRPC_PORT", "MATCHING_MEMBERSHIP_PORT", "WORKER_GRPC_PORT", "WORKER_MEMBERSHIP_PORT"} {
			p.ports[name] = lowFreePort(t)
		}
		p.ports["PROMETHEUS_ENDPOINT"] = testenv.FreeAddr(t)
		p.temporal = "127.0.0.1:" + p.ports["FRONTEND_GRPC_PORT"]
	}
	version := sqlToolRelease(t, filepath.Join(p.shims, "temporal-sql-tool"))
	replace := map[string]string{"DB_PORT": p.pgPort, "POSTGRES_SEEDS": "127.0.0.1", "POSTGRES_PASSWORD_FILE": p.pgPwFile,
		"BIND_ON_IP": "127.0.0.1", "TEMPORAL_ENTRYPOINT": filepath.Join(p.dir, "image-entrypoint.sh"), "LOG_LEVEL": "warn"}
	for k, v := range p.ports {
		replace[k] = v
	}
	env := append(composeEnv(t, "temporal", replace), p.path())
	cmd := exec.Command("sh", filepath.Join(absRoot(t), "deploy", "temporal", "server-entrypoint.sh"))
	cmd.Dir, cmd.Env = work, env
	logFile, err := os.Create(filepath.Join(p.dir, "temporal-server-"+version+".log"))
	require.NoError(t, err)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stop(cmd)
		if t.Failed() {
			raw, _ := os.ReadFile(logFile.Name())
			t.Logf("temporal-server %s log (tail):\n%s", version, tail(string(raw), 40))
		}
	})
	return cmd
}

// botEnv is compose's x-statusbot-env, secrets as files.
func (p *production) botEnv(t *testing.T, database, pageURL, telegramURL string) []string {
	t.Helper()
	token, uri := filepath.Join(p.dir, "telegram_bot_token"), filepath.Join(p.dir, "mongodb_uri")
	require.NoError(t, os.WriteFile(token, []byte(prodToken+"\n"), 0o600))
	require.NoError(t, os.WriteFile(uri, []byte(testenv.MongoURI(t)+"\n"), 0o600))
	return append(composeEnv(t, "worker", map[string]string{
		"TELEGRAM_BOT_TOKEN_FILE": token, "MONGODB_URI_FILE": uri, "MONGODB_DATABASE": database,
		"TELEGRAM_API_URL": telegramURL, "STATUSPAGE_URL": pageURL, "POLL_INTERVAL": "5s", "HTTP_TIMEOUT": "5s",
		"TEMPORAL_ADDRESS": p.temporal, "HEALTH_ADDR": "", "METRICS_ADDR": ""}), p.path(), "HOME="+p.dir)
}

func (p *production) startBot(t *testing.T, command string, env []string, log io.Writer) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(testenv.StatusbotBinary(t), command)
	cmd.Env, cmd.Stdout, cmd.Stderr = append(env, "HEALTH_ADDR="+testenv.FreeAddr(t)), log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		stop(cmd)
		if t.Failed() {
			t.Logf("statusbot %s log (tail):\n%s", command, tail(fmt.Sprint(log), 30))
		}
	})
	return cmd
}

func (p *production) cli(t *testing.T, args ...string) string {
	t.Helper()
	out, err := p.runCLI(args...)
	require.NoError(t, err, "%s", out)
	return string(out)
}

func (p *production) cliMay(args ...string) string {
	out, _ := p.runCLI(args...)
	return string(out)
}

func (p *production) runCLI(args ...string) ([]byte, error) {
	return retryThrottled(func() ([]byte, error) {
		return exec.Command(filepath.Join(p.shims, "temporal"), append(args, "--address", p.temporal)...).CombinedOutput()
	}, time.Sleep)
}

// retryThrottled runs a CLI call again when the server refused it for its
// rate limits (ResourceExhausted, "rate limit exceeded": seen once in
// make test-production as the worker started), up to five tries a second
// or more apart; any other outcome is the call's.
func retryThrottled(run func() ([]byte, error), sleep func(time.Duration)) ([]byte, error) {
	for try := 1; ; try++ {
		out, err := run()
		if err == nil || try == 5 || !throttled(out) {
			return out, err
		}
		sleep(time.Duration(try) * time.Second)
	}
}

func throttled(out []byte) bool {
	s := strings.ToLower(string(out))
	return strings.Contains(s, "rate limit exceeded") || strings.Contains(s, "resourceexhausted") || strings.Contains(s, "resource exhausted")
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, url)
	return string(body)
}

// stop ends a process with SIGTERM, then SIGKILL after 20s.
func stop(cmd *exec.Cmd) {
	if cmd.Process == nil || cmd.ProcessState != nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func withoutDebug(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		if !strings.Contains(line, "DEBUG") {
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}

// lowFreePort is a free port below 32768: the server records membership
// ports in a smallint column.
var lowPortsGiven = map[int]bool{}

func lowFreePort(t *testing.T) string {
	t.Helper()
	for port := 20000 + rand.IntN(10000); port < 32768; port++ {
		if lowPortsGiven[port] {
			continue
		}
		lowPortsGiven[port] = true
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			_ = l.Close()
			return strconv.Itoa(port)
		}
	}
	t.Fatal("no free port below 32768")
	return ""
}

// A CLI call the server throttled is tried again; one that failed for any
// other reason, or succeeded, is not, and the tries end.
func TestCLICallsThrottledAreTriedAgain(t *testing.T) {
	refused := []byte("Error: unable to list workflows: namespace rate limit exceeded")
	for _, tc := range []struct {
		name  string
		outs  []string // each try's output; "" succeeds
		tries int
		ok    bool
	}{
		{"throttled, then through", []string{string(refused), string(refused), ""}, 3, true},
		{"another failure", []string{"Error: workflow not found"}, 1, false},
		{"through at once", []string{""}, 1, true},
		{"throttled every time", []string{string(refused), string(refused), string(refused), string(refused), string(refused), string(refused)}, 5, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tries, slept := 0, time.Duration(0)
			out, err := retryThrottled(func() ([]byte, error) {
				o := tc.outs[tries]
				tries++
				if o == "" {
					return []byte("ok"), nil
				}
				return []byte(o), errors.New("exit status 1")
			}, func(d time.Duration) { slept += d })
			require.Equal(t, tc.tries, tries)
			require.Equal(t, tc.ok, err == nil, "%s", out)
			if tries > 1 {
				require.GreaterOrEqual(t, slept, time.Duration(tries-1)*time.Second)
			}
		})
	}
}
