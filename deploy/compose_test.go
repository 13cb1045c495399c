// Package deploy_test checks compose.yml and the Dockerfile without a Docker
// engine: compose.yml is loaded and validated against the Compose
// specification by compose-go (the loader `docker compose` itself uses), then
// its invariants are asserted.
package deploy_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/workflows"
)

const root = ".."

// loadCompose loads compose.yml as `docker compose --profile tools config`
// would, with env as the only environment (no .env).
func loadCompose(t *testing.T, env ...string) *types.Project {
	t.Helper()
	opts, err := cli.NewProjectOptions([]string{filepath.Join(root, "compose.yml")},
		cli.WithWorkingDirectory(root), cli.WithEnv(env), cli.WithProfiles([]string{"tools"}))
	require.NoError(t, err)
	p, err := opts.LoadProject(context.Background())
	require.NoError(t, err, "compose.yml must load and validate against the Compose specification")
	return p
}

func TestComposeValidatesWithoutAnyVariable(t *testing.T) {
	p := loadCompose(t)
	require.ElementsMatch(t, []string{"postgresql", "temporal-schema", "temporal", "temporal-namespace", "temporal-ui",
		"temporal-cli", "mongo", "statusbot-config", "worker", "bot"}, p.ServiceNames())
}

// Images: supported ones, pinned to an exact version; the bot's own is built.
func TestComposeImagesArePinned(t *testing.T) {
	exact := regexp.MustCompile(`^[a-z0-9./-]+:\d+\.\d+(\.\d+)?(-[a-z0-9]+)?(@sha256:[0-9a-f]{64})?$`)
	for name, s := range loadCompose(t).Services {
		require.NotContains(t, s.Image, "auto-setup", "%s: temporalio/auto-setup is deprecated", name)
		if s.Build != nil {
			require.True(t, strings.HasPrefix(s.Image, "statusbot:"), "%s builds the bot's image", name)
			continue
		}
		require.Regexp(t, exact, s.Image, "%s: pin an exact version", name)
	}
}

// No env_file: every container gets the variables it lists and no other.
// Secrets travel as files only.
func TestComposeSecretsAreFilesAndEnvironmentIsExplicit(t *testing.T) {
	p := loadCompose(t)
	secretVars := regexp.MustCompile(`^(TELEGRAM_BOT_TOKEN|MONGODB_URI|POSTGRES_PASSWORD|POSTGRES_PWD|SQL_PASSWORD|MONGO_INITDB_ROOT_PASSWORD|TEMPORAL_DB_PASSWORD)$`)
	for name, s := range p.Services {
		require.Empty(t, s.EnvFiles, "%s: no env_file (it hands every variable to the container)", name)
		mounted := map[string]bool{}
		for _, sec := range s.Secrets {
			mounted[sec.Source] = true
		}
		for k, v := range s.Environment {
			require.NotRegexp(t, secretVars, k, "%s: %s would put a secret in the environment; use %s_FILE", name, k, k)
			if strings.HasSuffix(k, "_FILE") {
				require.NotNil(t, v)
				sec, ok := strings.CutPrefix(*v, "/run/secrets/")
				require.True(t, ok, "%s: %s must name a compose secret", name, k)
				require.True(t, mounted[sec], "%s: %s names secret %s, which the service does not mount", name, k, sec)
			}
		}
	}
	for name, sec := range p.Secrets {
		require.NotEmpty(t, sec.File, "secret %s comes from a file", name)
		require.True(t, strings.HasPrefix(sec.File, filepath.Join(absRoot(t), "secrets")), "secret %s lives in ./secrets", name)
	}
	gitignore, err := os.ReadFile(filepath.Join(root, ".gitignore"))
	require.NoError(t, err)
	require.Contains(t, string(gitignore), "/secrets/", "secrets/ must stay out of git")
	dockerignore, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	require.NoError(t, err)
	require.Contains(t, string(dockerignore), "secrets", "secrets/ must stay out of the build context")
}

func absRoot(t *testing.T) string {
	a, err := filepath.Abs(root)
	require.NoError(t, err)
	return a
}

// Networks: every service says which it joins; MongoDB and PostgreSQL are
// never on a network the web-facing UI is on, nor on one with a route out.
func TestComposeNetworksIsolateDataStores(t *testing.T) {
	p := loadCompose(t)
	for name, s := range p.Services {
		require.True(t, len(s.Networks) > 0 || s.NetworkMode == "none", "%s: list its networks", name)
		require.NotContains(t, s.Networks, "default", "%s: no default network", name)
	}
	ui := p.Services["temporal-ui"]
	for n := range ui.Networks {
		for _, store := range []string{"mongo", "postgresql"} {
			require.NotContains(t, p.Services[store].Networks, n, "%s shares network %s with the Web UI", store, n)
		}
	}
	for _, store := range []string{"mongo", "postgresql"} {
		for n := range p.Services[store].Networks {
			require.True(t, p.Networks[n].Internal, "%s: network %s must be internal", store, n)
		}
	}
	for name, s := range p.Services {
		for _, port := range s.Ports {
			require.Equal(t, "127.0.0.1", port.HostIP, "%s: publish on loopback only", name)
		}
	}
}

// Start order: schema before server, namespace before worker; the command
// bot needs MongoDB only, so commands keep working while Temporal is down.
func TestComposeDependsOnlyOnWhatIsUsed(t *testing.T) {
	p := loadCompose(t)
	dep := func(svc, on string) string {
		d, ok := p.Services[svc].DependsOn[on]
		if !ok {
			return ""
		}
		return d.Condition
	}
	require.Equal(t, types.ServiceConditionCompletedSuccessfully, dep("temporal", "temporal-schema"))
	require.Equal(t, types.ServiceConditionHealthy, dep("temporal-schema", "postgresql"))
	require.Equal(t, types.ServiceConditionHealthy, dep("temporal-namespace", "temporal"))
	require.Equal(t, types.ServiceConditionCompletedSuccessfully, dep("worker", "temporal-namespace"))
	for _, svc := range []string{"worker", "bot"} {
		require.Equal(t, types.ServiceConditionCompletedSuccessfully, dep(svc, "statusbot-config"),
			"%s: a bad configuration stops `up` once instead of restart-looping", svc)
		require.Equal(t, types.ServiceConditionHealthy, dep(svc, "mongo"))
	}
	bot := p.Services["bot"]
	require.ElementsMatch(t, []string{"statusbot-config", "mongo"}, keys(bot.DependsOn))
	for k := range bot.Environment {
		require.False(t, strings.HasPrefix(k, "TEMPORAL_"), "the bot does not talk to Temporal: %s", k)
	}
	require.NotContains(t, bot.Networks, "temporal")
}

func keys[M ~map[string]V, V any](m M) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// Health checks: every long-running service has one, and none runs the
// `temporal` CLI inside the server image (1.30+ has none).
func TestComposeHealthChecks(t *testing.T) {
	for name, s := range loadCompose(t).Services {
		oneShot := s.Restart == "no" || len(s.Profiles) > 0
		if oneShot {
			continue
		}
		require.NotNil(t, s.HealthCheck, "%s needs a health check", name)
		require.NotEmpty(t, s.HealthCheck.Test, name)
		if strings.HasPrefix(s.Image, "temporalio/server") {
			require.NotContains(t, strings.Join(s.HealthCheck.Test, " "), "temporal ", "no temporal CLI in the server image")
		}
		if name == "mongo" {
			require.NotContains(t, strings.Join(s.HealthCheck.Test, " "), "mongosh", "a probe lighter than Node")
		}
	}
}

// Mounted scripts and files exist; scripts are executable by sh.
func TestComposeMountsExist(t *testing.T) {
	for name, s := range loadCompose(t).Services {
		for _, v := range s.Volumes {
			if v.Type != types.VolumeTypeBind {
				continue
			}
			_, err := os.Stat(v.Source)
			require.NoError(t, err, "%s mounts %s", name, v.Source)
			require.True(t, v.ReadOnly, "%s: bind mounts are read-only", name)
		}
	}
}

// Defaults written in compose.yml (${VAR:-default}) equal the binary's.
func TestComposeDefaultsMatchTheBinary(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "compose.yml"))
	require.NoError(t, err)
	defaults := map[string]string{}
	ct := reflect.TypeOf(config.Config{})
	for i := range ct.NumField() {
		f := ct.Field(i)
		if d, ok := f.Tag.Lookup("default"); ok {
			defaults[f.Tag.Get("envconfig")] = d
		}
	}
	seen := 0
	for _, m := range regexp.MustCompile(`\$\{([A-Z_]+):-([^}]*)\}`).FindAllStringSubmatch(string(raw), -1) {
		if want, ok := defaults[m[1]]; ok {
			require.Equal(t, want, m[2], "compose.yml's default for %s", m[1])
			seen++
		}
	}
	require.Greater(t, seen, 5)
}

// The namespace job creates exactly the search attributes the workflows use.
func TestNamespaceJobCreatesTheSearchAttributes(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "deploy/temporal/setup-namespace.sh"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?s)SEARCH_ATTRIBUTES="([^"]*)"`).FindStringSubmatch(string(raw))
	require.NotNil(t, m)
	got := strings.Fields(m[1])
	var want []string
	for name, typ := range workflows.SearchAttributes() {
		// The API's short names are the CLI's --type values (Keyword, KeywordList, Int).
		want = append(want, name+":"+typ.String())
	}
	sort.Strings(got)
	sort.Strings(want)
	require.Equal(t, want, got)
}

// The dynamic config holds no setting meant for tests only.
func TestDynamicConfigIsProductionSafe(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "deploy/temporal/dynamicconfig.yaml"))
	require.NoError(t, err)
	require.NotContains(t, string(raw), "forceSearchAttributesCacheRefreshOnRead")
	require.Contains(t, string(raw), "taskQueueName: "+workflows.SendTaskQueue("openai-status-bot"))
}

func TestDockerfilePinsBaseImages(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	require.NoError(t, err)
	s := string(raw)
	require.Regexp(t, `(?m)^ARG GO_VERSION=\d+\.\d+\.\d+$`, s)
	require.Contains(t, s, "golang:${GO_VERSION}-trixie")
	require.Contains(t, s, "gcr.io/distroless/static-debian13:nonroot")
	require.NotContains(t, s, "debian12")
	require.True(t, slices.Contains(strings.Fields(s), "65532:65532"), "runs as distroless nonroot")
}

// `make docker` builds through compose with the version it stamps as the
// tag, so it and `up --build` never disagree (make docker stamped the git
// version into statusbot:local, which `up --build` stamped "dev").
func TestMakeDockerBuildsAsComposeDoes(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	require.Regexp(t, `(?m)^\tSTATUSBOT_VERSION=\$\(VERSION\) docker compose build worker$`, string(mk))
	require.NotContains(t, string(mk), "docker build ")
	p := loadCompose(t, "STATUSBOT_VERSION=v1.2.3")
	for name, s := range p.Services {
		if s.Build != nil {
			require.Equal(t, "statusbot:v1.2.3", s.Image, name)
			require.Equal(t, "v1.2.3", *s.Build.Args["VERSION"], "%s: the stamped version is the tag", name)
		}
	}
}

// The Dockerfile names no external frontend image (`# syntax=`, unpinned
// before): Docker 28's built-in one runs it; anything named is pinned.
func TestDockerfileFrontendIsPinnedOrBuiltIn(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	require.NoError(t, err)
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(strings.ReplaceAll(line, " ", ""), "#syntax=") {
			require.Regexp(t, `docker/dockerfile:\d+\.\d+\.\d+(@sha256:[0-9a-f]{64})?$`, line)
		}
	}
}

// Only the bot's processes (Telegram, the status page) and the Web UI's
// published port have a network with a route out; the Temporal server
// had one through the UI's network.
func TestComposeOnlyTheBotReachesOut(t *testing.T) {
	p := loadCompose(t)
	outward := map[string][]string{}
	for name, s := range p.Services {
		for n := range s.Networks {
			if !p.Networks[n].Internal {
				outward[name] = append(outward[name], n)
			}
		}
	}
	require.Equal(t, map[string][]string{"worker": {"egress"}, "bot": {"egress"}, "temporal-ui": {"temporal-ui"}}, outward)
	require.Empty(t, p.Services["temporal"].Ports, "a published port needs a non-internal network")
	ui := p.Services["temporal-ui"]
	for n := range ui.Networks {
		for name, s := range p.Services {
			if _, shared := s.Networks[n]; shared && name != "temporal-ui" {
				require.Equal(t, "temporal", name, "the Web UI shares network %s with %s", n, name)
			}
		}
	}
}

// Every service that runs has CPU and memory limits; the data stores get
// time for a clean shutdown; the server exports its metrics.
func TestComposeLimitsAndShutdown(t *testing.T) {
	p := loadCompose(t)
	for name, s := range p.Services {
		if len(s.Profiles) > 0 {
			continue
		}
		require.Greater(t, s.CPUS, float32(0), "%s: cpus", name)
		require.Greater(t, int64(s.MemLimit), int64(0), "%s: mem_limit", name)
	}
	for _, name := range []string{"postgresql", "mongo", "temporal"} {
		g := p.Services[name].StopGracePeriod
		require.NotNil(t, g, "%s: stop_grace_period", name)
		require.GreaterOrEqual(t, time.Duration(*g), 30*time.Second, name)
	}
	// The bot's shutdown takes up to 35 s (handlers 20 s, 5 s more once cut
	// short, 10 s to save the offset: internal/bot); it had 15 s.
	g := p.Services["bot"].StopGracePeriod
	require.NotNil(t, g, "bot: stop_grace_period")
	require.Greater(t, time.Duration(*g), 35*time.Second, "bot: stop_grace_period under its shutdown path")
	require.NotNil(t, p.Services["temporal"].Environment["PROMETHEUS_ENDPOINT"])
}

// The compose overrides docs/deploy.md offers load on top of compose.yml
// and do what they say.
func TestDeployDocOverrides(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "docs/deploy.md"))
	require.NoError(t, err)
	blocks := regexp.MustCompile("(?s)```yaml\n(services:.*?)```").FindAllStringSubmatch(string(raw), -1)
	load := func(override string) *types.Project {
		t.Helper()
		f := filepath.Join(absRoot(t), "compose.test-override.yml")
		require.NoError(t, os.WriteFile(f, []byte(override), 0o644))
		defer os.Remove(f)
		opts, err := cli.NewProjectOptions([]string{filepath.Join(root, "compose.yml"), f},
			cli.WithWorkingDirectory(root), cli.WithEnv([]string{"TEMPORAL_ADDRESS=ns.acct.tmprl.cloud:7233"}))
		require.NoError(t, err)
		p, err := opts.LoadProject(context.Background())
		require.NoError(t, err, "%s", override)
		return p
	}
	var cloud, prometheus bool
	for _, b := range blocks {
		p := load(b[1])
		if strings.Contains(b[1], "TEMPORAL_API_KEY_FILE") {
			cloud = true
			// !reset dropped every entry after it; !override keeps both.
			require.ElementsMatch(t, []string{"statusbot-config", "mongo"}, keys(p.Services["worker"].DependsOn))
			require.Equal(t, types.ServiceConditionCompletedSuccessfully, p.Services["worker"].DependsOn["statusbot-config"].Condition)
			require.Equal(t, types.ServiceConditionHealthy, p.Services["worker"].DependsOn["mongo"].Condition)
			require.Equal(t, "ns.acct.tmprl.cloud:7233", *p.Services["worker"].Environment["TEMPORAL_ADDRESS"])
			// A plain `up` starts none of the bundled Temporal (it did).
			for _, bundled := range []string{"postgresql", "temporal-schema", "temporal", "temporal-namespace", "temporal-ui"} {
				_, started := p.Services[bundled]
				require.False(t, started, "with Temporal Cloud, `docker compose up` starts the bundled %s", bundled)
			}
			require.Contains(t, p.ServiceNames(), "bot")
			require.Contains(t, p.ServiceNames(), "mongo")
		}
		if prom, ok := p.Services["prometheus"]; ok {
			prometheus = true
			for n := range prom.Networks {
				for _, store := range []string{"mongo", "temporal-db"} {
					require.NotEqual(t, store, n, "Prometheus joins the data stores' network")
				}
			}
			for _, target := range []string{"worker", "bot", "temporal"} {
				shared := false
				for n := range prom.Networks {
					_, ok := p.Services[target].Networks[n]
					shared = shared || ok
				}
				require.True(t, shared, "Prometheus cannot reach %s", target)
			}
		}
	}
	require.True(t, cloud && prometheus, "docs/deploy.md lost an override: %d blocks", len(blocks))
}
