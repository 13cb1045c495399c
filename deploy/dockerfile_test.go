package deploy_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

const stamped = "v9.8.7-test"

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// dockerfileBinary runs the Dockerfile's build step here, with the same
// flags and environment and VERSION=stamped, once per test binary.
func dockerfileBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "statusbot-docker-")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "statusbot")
		buildErr = buildLikeDockerfile(binary)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

func buildLikeDockerfile(out string) error {
	raw, err := os.ReadFile(filepath.Join(root, "Dockerfile"))
	if err != nil {
		return err
	}
	df := string(raw)
	m := regexp.MustCompile(`go build -trimpath -ldflags="([^"]*)" -o /out/statusbot (\./cmd/statusbot)`).FindStringSubmatch(df)
	if m == nil {
		return errors.New("the Dockerfile's go build line changed: update this test")
	}
	env := []string{"CGO_ENABLED=0", "GOWORK=off", "GOFLAGS=-buildvcs=false"}
	for _, e := range env {
		if !strings.Contains(df, e) {
			return fmt.Errorf("the Dockerfile no longer sets %s: update this test", e)
		}
	}
	build := exec.Command("go", "build", "-trimpath", "-ldflags="+strings.ReplaceAll(m[1], "${VERSION}", stamped), "-o", out, m[2])
	build.Dir = root
	build.Env = append(os.Environ(), env...)
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, b)
	}
	return nil
}

// The binary builds as the Dockerfile builds it, and `statusbot version`
// prints the version passed as the VERSION build argument.
func TestDockerfileBuildStampsTheVersion(t *testing.T) {
	b, err := exec.Command(dockerfileBinary(t), "version").CombinedOutput()
	require.NoError(t, err, "%s", b)
	require.Regexp(t, `^statusbot `+regexp.QuoteMeta(stamped)+` go1\.\d+`, string(b))
}

// A container started without a token stops at once with a message that
// says what to do, and exit status 2 (not a crash to restart).
func TestCheckConfigExplainsAnEmptyToken(t *testing.T) {
	out := dockerfileBinary(t)
	empty := filepath.Join(t.TempDir(), "telegram_bot_token")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o644))
	cmd := exec.Command(out, "check-config")
	cmd.Env = []string{"TELEGRAM_BOT_TOKEN_FILE=" + empty, "MONGODB_URI=mongodb://u:pa55word@mongo:27017/x"}
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 2, ee.ExitCode())
	require.Contains(t, string(b), "TELEGRAM_BOT_TOKEN_FILE: "+empty+" is empty")
	require.Contains(t, string(b), "@BotFather")
	require.NotContains(t, string(b), "pa55word")
}
