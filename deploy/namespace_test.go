package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeTemporal is a `temporal` CLI stand-in that keeps the namespace and the
// search attributes in files and logs every call.
const fakeTemporal = `#!/bin/sh
state=$FAKE_STATE
echo "$*" >>"$state/calls"
case "$1 $2 $3" in
"operator cluster health") exit 0 ;;
"operator namespace describe")
  [ -f "$state/namespace" ] || exit 1
  printf '{\n  "config": {\n    "workflowExecutionRetentionTtl": "%ss"\n  }\n}\n' "$(cat "$state/namespace")" ;;
"operator namespace create"|"operator namespace update")
  while [ $# -gt 0 ]; do
    if [ "$1" = --retention ]; then
      case $2 in *h) echo $((${2%h} * 3600)) >"$state/namespace" ;; *d) echo $((${2%d} * 86400)) >"$state/namespace" ;; esac
    fi
    shift
  done ;;
"operator search-attribute list") cat "$state/attributes" 2>/dev/null; exit 0 ;;
"operator search-attribute create")
  while [ $# -gt 0 ]; do
    case "$1" in
    --name) name=$2 ;;
    --type) type=$2 ;;
    esac
    shift
  done
  echo "$name  $type" >>"$state/attributes" ;;
*) echo "unexpected: $*" >&2; exit 1 ;;
esac
`

// The namespace job creates the namespace (with its retention) and every
// search attribute once; run again, it changes nothing.
func TestNamespaceJobIsIdempotent(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	bin, state := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "temporal"), []byte(fakeTemporal), 0o755))
	retention := "72h"
	run := func() string {
		require.NoError(t, os.WriteFile(filepath.Join(state, "calls"), nil, 0o644))
		cmd := exec.Command(sh, filepath.Join(root, "deploy/temporal/setup-namespace.sh"))
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FAKE_STATE="+state,
			"TEMPORAL_ADDRESS=temporal:7233", "TEMPORAL_NAMESPACE=bots", "NAMESPACE_RETENTION="+retention)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		calls, err := os.ReadFile(filepath.Join(state, "calls"))
		require.NoError(t, err)
		return string(calls)
	}
	first := run()
	require.Contains(t, first, "operator namespace create --namespace bots --retention 72h")
	require.Equal(t, 7, strings.Count(first, "operator search-attribute create"))
	require.Contains(t, first, "--name ComponentIDs --type KeywordList")

	second := run()
	require.NotContains(t, second, "create", "a second run changes nothing")
	require.NotContains(t, second, "namespace update", "a second run changes nothing")

	// A later TEMPORAL_RETENTION is applied (it was read at creation only).
	retention = "30d"
	third := run()
	require.Contains(t, third, "operator namespace update --namespace bots --retention 30d")
	got, err := os.ReadFile(filepath.Join(state, "namespace"))
	require.NoError(t, err)
	require.Equal(t, "2592000\n", string(got))
	require.NotContains(t, run(), "namespace update")
}

// A create that fails while the server's services are still joining is
// retried (it was tried once, and the job failed `up`).
func TestNamespaceJobRetriesTheCreate(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	bin, state := t.TempDir(), t.TempDir()
	flaky := strings.Replace(fakeTemporal, `"operator namespace create"|"operator namespace update")`,
		`"operator namespace create") echo x >>"$state/creates"; [ "$(wc -l <"$state/creates")" -ge 3 ] && echo 604800 >"$state/namespace" ;;
"operator namespace update")`, 1)
	require.NotEqual(t, fakeTemporal, flaky)
	require.NoError(t, os.WriteFile(filepath.Join(bin, "temporal"), []byte(flaky), 0o755))
	cmd := exec.Command(sh, filepath.Join(root, "deploy/temporal/setup-namespace.sh"))
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "FAKE_STATE="+state,
		"TEMPORAL_ADDRESS=temporal:7233", "TEMPORAL_NAMESPACE=bots")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	creates, err := os.ReadFile(filepath.Join(state, "creates"))
	require.NoError(t, err)
	require.Equal(t, 3, strings.Count(string(creates), "x"))
}
