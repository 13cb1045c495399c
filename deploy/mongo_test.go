package deploy_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The MongoDB init script, run under Node with a stand-in for mongosh's db:
// the bot's user comes from its own URI, with readWrite on its database only.
func TestMongoInitCreatesTheBotUserFromItsURI(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed; the script is exercised when the mongo container first starts")
	}
	script, err := filepath.Abs(filepath.Join(root, "deploy/mongo/create-app-user.js"))
	require.NoError(t, err)
	uri := filepath.Join(t.TempDir(), "mongodb_uri")
	require.NoError(t, os.WriteFile(uri, []byte("mongodb://statusbot:p%40ss%3Aword@mongo:27017/bots?authSource=bots\n"), 0o644))
	harness := `
const vm = require('vm'), fs = require('fs');
const calls = [];
const db = { getSiblingDB: (name) => ({ createUser: (u) => calls.push({ db: name, user: u }) }) };
vm.runInNewContext(fs.readFileSync(process.argv[1], 'utf8'), { require, process, db, print: () => {} });
console.log(JSON.stringify(calls));
`
	cmd := exec.Command(node, "-e", harness, script)
	cmd.Env = append(os.Environ(), "MONGODB_URI_FILE="+uri, "MONGODB_DATABASE=bots", "STATUSBOT_INIT_MARKER="+filepath.Join(t.TempDir(), "marker"))
	out, err := cmd.Output()
	require.NoError(t, err)
	var calls []struct {
		DB   string `json:"db"`
		User struct {
			User  string `json:"user"`
			Pwd   string `json:"pwd"`
			Roles []struct{ Role, DB string }
		} `json:"user"`
	}
	require.NoError(t, json.Unmarshal(out, &calls), string(out))
	require.Len(t, calls, 1)
	c := calls[0]
	require.Equal(t, "bots", c.DB, "the user lives in its authSource database")
	require.Equal(t, "statusbot", c.User.User)
	require.Equal(t, "p@ss:word", c.User.Pwd, "percent-encoding decoded as drivers do")
	require.Len(t, c.User.Roles, 1)
	require.Equal(t, "readWrite", c.User.Roles[0].Role)
	require.Equal(t, "bots", c.User.Roles[0].DB)
}

// Keeping the bundled mongo while the bot uses Atlas: the init script
// creates no user for the mongodb+srv URI and does not fail (it threw, and
// the mongo container never became healthy).
func TestMongoInitSkipsAnAtlasURI(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	script, err := filepath.Abs(filepath.Join(root, "deploy/mongo/create-app-user.js"))
	require.NoError(t, err)
	uri := filepath.Join(t.TempDir(), "mongodb_uri")
	require.NoError(t, os.WriteFile(uri, []byte("mongodb+srv://USER:PASSWORD@cluster0.example.mongodb.net/?retryWrites=true&w=majority\n"), 0o644))
	harness := `
const vm = require('vm'), fs = require('fs');
const calls = [], said = [];
const db = { getSiblingDB: (name) => ({ createUser: (u) => calls.push(name) }) };
vm.runInNewContext(fs.readFileSync(process.argv[1], 'utf8'), { require, process, db, print: (m) => said.push(m) });
console.log(JSON.stringify({ calls, said }));
`
	cmd := exec.Command(node, "-e", harness, script)
	cmd.Env = append(os.Environ(), "MONGODB_URI_FILE="+uri, "STATUSBOT_INIT_MARKER="+filepath.Join(t.TempDir(), "marker"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), `"calls":[]`)
	require.Contains(t, string(out), "no user created here")
	require.NotContains(t, string(out), "PASSWORD")
}

// An init script that fails leaves its marker, which compose's health
// check reads: the restarted mongod (the image runs init scripts on the
// first start only) would serve a database without the bot's user and
// was called healthy. One that succeeds removes it.
func TestMongoInitFailureStaysUnhealthy(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	script, err := filepath.Abs(filepath.Join(root, "deploy/mongo/create-app-user.js"))
	require.NoError(t, err)
	harness := `
const vm = require('vm'), fs = require('fs');
const db = { getSiblingDB: () => ({ createUser: () => {} }) };
vm.runInNewContext(fs.readFileSync(process.argv[1], 'utf8'), { require, process, db, print: () => {} });
`
	dir := t.TempDir()
	marker := filepath.Join(dir, "statusbot-init-incomplete")
	for _, tc := range []struct {
		uri    string
		failed bool
	}{
		{"mongodb://statusbot@mongo:27017/bots", true}, // no password
		{"mongodb://statusbot:pw@mongo:27017/bots", false},
	} {
		uri := filepath.Join(dir, "mongodb_uri")
		require.NoError(t, os.WriteFile(uri, []byte(tc.uri), 0o644))
		cmd := exec.Command(node, "-e", harness, script)
		cmd.Env = append(os.Environ(), "MONGODB_URI_FILE="+uri, "STATUSBOT_INIT_MARKER="+marker)
		out, err := cmd.CombinedOutput()
		_, statErr := os.Stat(marker)
		if tc.failed {
			require.Error(t, err, "%s", out)
			require.NoError(t, statErr, "the failed init left no marker")
		} else {
			require.NoError(t, err, "%s", out)
			require.True(t, os.IsNotExist(statErr), "the marker stays after a good init")
		}
	}
	// compose's health check reads the same marker.
	hc := loadCompose(t).Services["mongo"].HealthCheck
	require.NotNil(t, hc)
	require.Contains(t, strings.Join(hc.Test, " "), "test ! -e /data/db/statusbot-init-incomplete &&")
}
