package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// schemaJob runs deploy/temporal/setup-schema.sh against a stub
// temporal-sql-tool of release, whose databases are at the versions given
// ("temporal=1.18 temporal_release=1.30.9"; absent: no schema). It returns
// the job's output followed by the tool's calls.
func schemaJob(t *testing.T, release, versions, pw string) (string, error) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	bin, dir := t.TempDir(), t.TempDir()
	log := filepath.Join(dir, "calls")
	// As the real tool: --version names the release; asked to update a
	// database down to 0.0 it fails naming the version it is at.
	stub := `#!/bin/sh
if [ "$1" = --version ]; then echo "temporal-sql-tool version ` + release + `"; exit 0; fi
echo "$(basename "$0") $* [pw=$SQL_PASSWORD]" >>` + log + `
db=; prev=
for a in "$@"; do [ "$prev" = --db ] && db=$a; prev=$a; done
case "$*" in *"update-schema"*"--version 0.0"*)
  for kv in ` + versions + `; do
    if [ "${kv%%=*}" = "$db" ]; then
      echo "error listing schema dir:start version '${kv#*=}' must be less than end version '0.0'" >&2
      exit 1
    fi
  done
  echo "error reading current schema version" >&2; exit 1;;
esac
`
	require.NoError(t, os.WriteFile(filepath.Join(bin, "temporal-sql-tool"), []byte(stub), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "nc"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	pwFile := filepath.Join(dir, "temporal_db_password")
	require.NoError(t, os.WriteFile(pwFile, []byte(pw), 0o644))
	cmd := exec.Command(sh, filepath.Join(root, "deploy/temporal/setup-schema.sh"))
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"),
		"POSTGRES_SEEDS=postgresql", "POSTGRES_USER=temporal", "POSTGRES_PASSWORD_FILE="+pwFile)
	out, err := cmd.CombinedOutput()
	calls, _ := os.ReadFile(log)
	return string(out) + string(calls), err
}

// The schema job creates and upgrades both databases with the password from
// the secret file, handed to temporal-sql-tool in SQL_PASSWORD (never on a
// command line), and refuses an empty password file.
func TestSchemaJobUsesThePasswordFile(t *testing.T) {
	out, err := schemaJob(t, composeTemporalRelease(t), "", "s3cret\n")
	require.NoError(t, err, out)
	for _, want := range []string{
		"--db temporal create [pw=s3cret]",
		"--db temporal setup-schema -v 0.0 [pw=s3cret]",
		"--db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned [pw",
		"--db temporal_visibility create",
		"--db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned [pw",
		"--db temporal_release create",
	} {
		require.Contains(t, out, want)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "temporal-sql-tool") {
			require.NotContains(t, strings.SplitN(line, "[pw=", 2)[0], "s3cret", "the password stays off the command line")
		}
	}

	out, err = schemaJob(t, composeTemporalRelease(t), "", "")
	require.Error(t, err)
	require.Contains(t, out, "is empty")
}

// Temporal supports one minor version at a time, from the latest patch of
// the current one: the job refuses any other jump before it changes
// anything, naming the steps; it knows the cluster's release from its
// record, or (a cluster set up before the record) from the schema version.
func TestSchemaJobRefusesUnsupportedUpgrades(t *testing.T) {
	for _, tc := range []struct {
		name, release, versions string
		want                    string // in the output
		refused                 bool
	}{
		{"new cluster", "1.32.2", "", "a new cluster: Temporal 1.32.2's schema", false},
		{"next minor from its latest patch", "1.32.2", "temporal=1.19 temporal_visibility=1.14 temporal_release=1.31.5", "Temporal 1.31.5 (recorded) to 1.32.2: supported", false},
		{"a patch", "1.30.9", "temporal=1.18 temporal_visibility=1.13 temporal_release=1.30.1", "Temporal 1.30.1 (recorded) to 1.30.9: supported", false},
		{"a re-run", "1.32.2", "temporal=1.19 temporal_visibility=1.14 temporal_release=1.32.2", "Temporal 1.32.2 (recorded) to 1.32.2: supported", false},
		{"two minors, recorded", "1.32.2", "temporal=1.18 temporal_visibility=1.13 temporal_release=1.30.9",
			"refusing to upgrade Temporal 1.30.9 (recorded) to 1.32.2: that skips a minor version", true},
		{"not from the latest patch", "1.32.2", "temporal=1.19 temporal_visibility=1.14 temporal_release=1.31.2",
			"1.31.2 is not the latest patch of 1.31.\nsetup-schema: Temporal supports one minor version at a time, from the latest patch of the current one.\nsetup-schema: nothing was changed. Upgrade in steps: 1.31.5 -> 1.32.2,", true},
		{"a downgrade", "1.31.5", "temporal=1.19 temporal_visibility=1.14 temporal_release=1.32.2", "Temporal has no downgrades", true},
		{"two minors, by the schema (1.30.1 to 1.32)", "1.32.2", "temporal=1.18 temporal_visibility=1.13",
			"the cluster runs 1.30 or older, so this skips a minor version.", true},
		{"the previous minor, by the schema", "1.32.2", "temporal=1.19 temporal_visibility=1.14", "schema 1.19 (no release recorded yet): 1.31's or 1.32's", false},
		{"the first step of the way", "1.30.9", "temporal=1.18 temporal_visibility=1.13", "1.29's schema is not known here: cannot check the jump", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := schemaJob(t, tc.release, tc.versions, "pw")
			t.Log(out)
			require.Contains(t, out, tc.want)
			if !tc.refused {
				require.NoError(t, err)
				require.Contains(t, out, "setup-schema: done: Temporal "+tc.release+" recorded")
				return
			}
			require.Error(t, err)
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "temporal-sql-tool") {
					require.Contains(t, line, "update-schema -d", "a refused upgrade changes nothing")
					require.Contains(t, line, "--version 0.0", "a refused upgrade changes nothing")
				}
			}
		})
	}
	out, _ := schemaJob(t, "1.32.2", "temporal=1.18 temporal_visibility=1.13", "pw")
	require.Contains(t, out, "Upgrade in steps: 1.30.9 -> 1.31.5 -> 1.32.2 (from an older minor, each minor's latest patch first),")
	out, _ = schemaJob(t, "1.32.2", "temporal=1.19 temporal_visibility=1.14 temporal_release=1.30.1", "pw")
	require.Contains(t, out, "Upgrade in steps: 1.30.9 -> 1.31.5 -> 1.32.2,")
}

// The job's table knows compose.yml's Temporal release and the minor
// version before it (its latest patch is the first step of an upgrade).
func TestSchemaJobKnowsThePinnedRelease(t *testing.T) {
	release := composeTemporalRelease(t)
	table := map[string]string{} // minor -> entry
	for _, e := range schemaJobReleases(t) {
		v := strings.SplitN(e, ":", 2)[0]
		table[v[:strings.LastIndex(v, ".")]] = e
	}
	minor := release[:strings.LastIndex(release, ".")]
	require.True(t, strings.HasPrefix(table[minor], release+":"), "setup-schema.sh RELEASES must list %s (compose.yml's pin)", release)
	parts := strings.Split(minor, ".")
	require.Len(t, parts, 2)
	n, err := strconv.Atoi(parts[1])
	require.NoError(t, err)
	previous := parts[0] + "." + strconv.Itoa(n-1)
	require.NotEmpty(t, table[previous], "setup-schema.sh RELEASES must list %s, the minor before compose.yml's pin", previous)
}

// schemaJobReleases are the entries of setup-schema.sh's RELEASES table
// ("1.31.5:1.19:1.14": a minor's latest patch and its schema versions).
func schemaJobReleases(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "deploy/temporal/setup-schema.sh"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^RELEASES="([^"]+)"`).FindSubmatch(raw)
	require.NotNil(t, m, "RELEASES in setup-schema.sh")
	return strings.Fields(string(m[1]))
}

// composeTemporalRelease is the release compose.yml pins for
// temporalio/server and temporalio/admin-tools (one release for both).
func composeTemporalRelease(t *testing.T) string {
	t.Helper()
	release := ""
	for name, s := range loadCompose(t).Services {
		for _, image := range []string{"temporalio/server:", "temporalio/admin-tools:"} {
			if tag, ok := strings.CutPrefix(s.Image, image); ok {
				tag, _, _ = strings.Cut(tag, "@")
				if release == "" {
					release = tag
				}
				require.Equal(t, release, tag, "%s: server and admin-tools run one release", name)
			}
		}
	}
	require.NotEmpty(t, release)
	return release
}

// make test-production builds what compose.yml runs: the pinned Temporal
// release (tools/temporalserver), the previous minor's latest patch that
// it upgrades from (tools/temporalserver-previous, the job's table entry)
// and the pinned Web UI (tools/uiserver), and the Makefile names the same;
// its PostgreSQL server is the release compose.yml runs.
func TestProductionToolsBuildThePins(t *testing.T) {
	release := composeTemporalRelease(t)
	parts := strings.Split(release, ".")
	n, err := strconv.Atoi(parts[1])
	require.NoError(t, err)
	previous := ""
	for _, e := range schemaJobReleases(t) {
		if v := strings.SplitN(e, ":", 2)[0]; strings.HasPrefix(v, parts[0]+"."+strconv.Itoa(n-1)+".") {
			previous = v
		}
	}
	require.NotEmpty(t, previous)
	ui, postgres := "", ""
	for _, s := range loadCompose(t).Services {
		if tag, ok := strings.CutPrefix(s.Image, "temporalio/ui:"); ok {
			ui, _, _ = strings.Cut(tag, "@")
		}
		if tag, ok := strings.CutPrefix(s.Image, "postgres:"); ok {
			postgres, _, _ = strings.Cut(tag, "@")
		}
	}
	require.NotEmpty(t, ui, "compose.yml runs temporalio/ui")
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	require.Regexp(t, `(?m)^PG_SERVER_VERSION := `+regexp.QuoteMeta(postgres)+`$`, string(makefile),
		"make test-production must run compose.yml's PostgreSQL, postgres:%s", postgres)
	for _, c := range []struct{ module, path, version, variable string }{
		{"tools/temporalserver", "go.temporal.io/server", release, "TEMPORAL_SERVER_VERSION"},
		{"tools/temporalserver-previous", "go.temporal.io/server", previous, "TEMPORAL_PREVIOUS_VERSION"},
		{"tools/uiserver", "github.com/temporalio/ui-server/v2", ui, "UI_SERVER_VERSION"},
	} {
		mod, err := os.ReadFile(filepath.Join(root, c.module, "go.mod"))
		require.NoError(t, err)
		require.Regexp(t, `(?m)^\s*(require\s+)?`+regexp.QuoteMeta(c.path)+` v`+regexp.QuoteMeta(c.version)+`\s*$`, string(mod),
			"%s/go.mod must require %s v%s", c.module, c.path, c.version)
		require.Regexp(t, `(?m)^`+c.variable+` := v`+regexp.QuoteMeta(c.version)+`$`, string(makefile), "Makefile %s", c.variable)
	}
}
