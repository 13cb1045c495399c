package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The schema job creates and upgrades both databases with the password from
// the secret file, handed to temporal-sql-tool in SQL_PASSWORD (never on a
// command line), and refuses an empty password file.
func TestSchemaJobUsesThePasswordFile(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	bin, dir := t.TempDir(), t.TempDir()
	log := filepath.Join(dir, "calls")
	stub := "#!/bin/sh\necho \"$(basename \"$0\") $* [pw=$SQL_PASSWORD]\" >>" + log + "\n"
	for _, name := range []string{"temporal-sql-tool", "nc"} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(stub), 0o755))
	}
	pwFile := filepath.Join(dir, "temporal_db_password")
	run := func(pw string) (string, error) {
		require.NoError(t, os.WriteFile(pwFile, []byte(pw), 0o644))
		require.NoError(t, os.WriteFile(log, nil, 0o644))
		cmd := exec.Command(sh, filepath.Join(root, "deploy/temporal/setup-schema.sh"))
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"),
			"POSTGRES_SEEDS=postgresql", "POSTGRES_USER=temporal", "POSTGRES_PASSWORD_FILE="+pwFile)
		out, err := cmd.CombinedOutput()
		calls, rerr := os.ReadFile(log)
		require.NoError(t, rerr)
		return string(out) + string(calls), err
	}
	out, err := run("s3cret\n")
	require.NoError(t, err, out)
	for _, want := range []string{
		"--db temporal create [pw=s3cret]",
		"--db temporal setup-schema -v 0.0 [pw=s3cret]",
		"--db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned",
		"--db temporal_visibility create",
		"--db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned",
	} {
		require.Contains(t, out, want)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "temporal-sql-tool") {
			require.NotContains(t, strings.SplitN(line, "[pw=", 2)[0], "s3cret", "the password stays off the command line")
		}
	}

	out, err = run("")
	require.Error(t, err)
	require.Contains(t, out, "is empty")
}
