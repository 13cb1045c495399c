package deploy_test

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The set-up scripts pass shellcheck (POSIX sh for the admin-tools and
// server images, which are Alpine: busybox sh, no bash).
func TestScriptsPassShellcheck(t *testing.T) {
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("shellcheck not installed (apt-get install shellcheck)")
	}
	scripts, err := filepath.Glob(filepath.Join(root, "deploy", "temporal", "*.sh"))
	require.NoError(t, err)
	require.Len(t, scripts, 3)
	out, err := exec.Command(sc, append([]string{"--shell=sh"}, scripts...)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(sc, filepath.Join(root, "deploy", "init-secrets.sh")).CombinedOutput()
	require.NoError(t, err, "%s", out)
}
