package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeEnv(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const atlas = "mongodb+srv://USER:PASSWORD@cluster0.example.mongodb.net/?retryWrites=true&w=majority"

// .env means what it means to docker compose: a shell `source` cut the
// Atlas URI at '&' and left MONGODB_URI empty.
func TestReadEnvFileLikeCompose(t *testing.T) {
	path := writeEnv(t, strings.Join([]string{
		"# comment",
		"MONGODB_URI=" + atlas,
		"SINGLE='a$b#c'",
		`DOUBLE="${HOME}/x"`,
		"SPACED=value # trailing comment",
		"HASH=a#b",
		"export EXPORTED=1",
		"DEFAULTED=${UNSET:-fallback}",
		"EMPTY=",
		"FROM_SHELL=from-file",
	}, "\n"))
	s, err := readEnvFile(path, []string{"HOME=/home/op", "FROM_SHELL=from-shell"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"MONGODB_URI": atlas, "SINGLE": "a$b#c", "DOUBLE": "/home/op/x", "SPACED": "value",
		"HASH": "a#b", "EXPORTED": "1", "DEFAULTED": "fallback", "EMPTY": "", "FROM_SHELL": "from-shell",
	}
	for k, v := range want {
		if got, ok := s.env[k]; !ok || got != v {
			t.Errorf("%s = %q (present %v), want %q", k, got, ok, v)
		}
	}
	if _, ok := s.env["w"]; ok {
		t.Error("w set: the URI was cut at '&'")
	}
	if !strings.Contains(strings.Join(s.notes, "\n"), "not used (as with docker compose): FROM_SHELL") {
		t.Errorf("override not named: %q", s.notes)
	}
}

// Windows line endings are named, and no value keeps a carriage return.
func TestReadEnvFileNamesCRLF(t *testing.T) {
	s, err := readEnvFile(writeEnv(t, "TELEGRAM_BOT_TOKEN=123:AAx\r\nLOG_LEVEL=debug\r\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.env["TELEGRAM_BOT_TOKEN"] != "123:AAx" || s.env["LOG_LEVEL"] != "debug" {
		t.Fatalf("values: %q", s.env)
	}
	if !strings.Contains(strings.Join(s.notes, "\n"), "Windows line endings (CRLF) on 2 lines") {
		t.Fatalf("CRLF not named: %q", s.notes)
	}
}

// A .env saved with a UTF-8 byte-order mark (Notepad) is read as compose
// reads it: the first setting keeps its name.
func TestReadEnvFileSkipsByteOrderMark(t *testing.T) {
	s, err := readEnvFile(writeEnv(t, "\uFEFFTELEGRAM_BOT_TOKEN=123:AAx\r\nLOG_LEVEL=debug\r\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.env["TELEGRAM_BOT_TOKEN"] != "123:AAx" || s.env["LOG_LEVEL"] != "debug" {
		t.Fatalf("values: %q", s.env)
	}
	if !strings.Contains(strings.Join(s.notes, "\n"), "byte-order mark: skipped") {
		t.Fatalf("BOM not named: %q", s.notes)
	}
}

// A line the parser rejects is named without its text (it may be a secret).
func TestReadEnvFileErrorHidesText(t *testing.T) {
	_, err := readEnvFile(writeEnv(t, "TELEGRAM_BOT_TOKEN=\"123:AAsecret\n"), nil)
	if err == nil {
		t.Fatal("no error for an unterminated quote")
	}
	if strings.Contains(err.Error(), "AAsecret") {
		t.Fatalf("secret shown: %v", err)
	}
}

func TestReadEnvFileMissing(t *testing.T) {
	s, err := readEnvFile(filepath.Join(t.TempDir(), ".env"), []string{"A=1"})
	if err != nil || s.env["A"] != "1" {
		t.Fatalf("%v %q", err, s.env)
	}
}

func TestChooseStore(t *testing.T) {
	for _, tc := range []struct {
		name  string
		env   map[string]string
		local bool
		why   string
	}{
		{"unset", map[string]string{}, true, "local FerretDB (MONGODB_URI is not set)"},
		{"empty", map[string]string{"MONGODB_URI": ""}, true, "local FerretDB (MONGODB_URI is empty)"},
		{"atlas", map[string]string{"MONGODB_URI": atlas}, false, "MongoDB at mongodb+srv://cluster0.example.mongodb.net/ (MONGODB_URI is set; the local FerretDB is not started)"},
		{"file", map[string]string{"MONGODB_URI_FILE": "secrets/mongodb_uri"}, false, "from the URI in secrets/mongodb_uri"},
		{"garbage", map[string]string{"MONGODB_URI": "::user:pw"}, false, "not shown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := chooseStore(settings{env: tc.env})
			if p.local != tc.local || !strings.Contains(p.why, tc.why) {
				t.Fatalf("%+v", p)
			}
			if strings.Contains(p.why, "PASSWORD") || strings.Contains(p.why, "pw") {
				t.Fatalf("credentials shown: %s", p.why)
			}
		})
	}
}

func TestChooseTemporal(t *testing.T) {
	if p := chooseTemporal(settings{env: map[string]string{}}); !p.local {
		t.Fatal(p)
	}
	if p := chooseTemporal(settings{env: map[string]string{"TEMPORAL_ADDRESS": "tc.example:7233"}}); p.local || !strings.Contains(p.why, "tc.example:7233") {
		t.Fatal(p)
	}
}
