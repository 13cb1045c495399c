package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/compose-spec/compose-go/v2/dotenv"
)

// settings is what the bot processes get: the environment of make run,
// with .env read as docker compose reads it.
type settings struct {
	env   map[string]string
	notes []string // what an operator should know about how .env was read
}

// readEnvFile parses path with compose-go's dotenv, the parser of `docker
// compose` itself: quotes, `$` expansion, `#` comments and `export` mean
// what they mean there, and a value such as an Atlas URI with `&` stays
// whole (a shell `source` cuts it). As with compose, a variable already in
// the environment wins over .env; the note names it. A missing file is
// not an error.
func readEnvFile(path string, environ []string) (settings, error) {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	s := settings{env: env}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		s.notes = append(s.notes, fmt.Sprintf("no %s: settings from the environment and the defaults", path))
		return s, nil
	}
	if err != nil {
		return s, err
	}
	// A byte-order mark, as Notepad and some editors save UTF-8: compose
	// skips it; the parser would take it for part of the first name.
	if b, ok := bytes.CutPrefix(raw, []byte("\uFEFF")); ok {
		raw = b
		s.notes = append(s.notes, fmt.Sprintf("%s starts with a UTF-8 byte-order mark: skipped, as docker compose does", path))
	}
	if n := bytes.Count(raw, []byte("\r\n")); n > 0 {
		s.notes = append(s.notes, fmt.Sprintf("%s has Windows line endings (CRLF) on %d lines: read as docker compose reads them, the carriage returns dropped", path, n))
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	vars, err := dotenv.UnmarshalBytesWithLookup(raw, lookup)
	if err != nil {
		// The parser's messages quote the line, which may hold a secret.
		return s, fmt.Errorf("%s: %s", path, lineOnly(err))
	}
	var overridden []string
	for k, v := range vars {
		if _, inEnv := env[k]; inEnv {
			overridden = append(overridden, k)
			continue
		}
		env[k] = v
	}
	sort.Strings(overridden)
	if len(overridden) > 0 {
		s.notes = append(s.notes, fmt.Sprintf("set in the environment, so %s's value is not used (as with docker compose): %s", path, strings.Join(overridden, ", ")))
	}
	s.notes = append(s.notes, fmt.Sprintf("%s: %d settings read", path, len(vars)))
	return s, nil
}

// lineOnly keeps the parser's error up to the quoted text.
func lineOnly(err error) string {
	msg := err.Error()
	if i := strings.IndexAny(msg, "'\""); i > 0 {
		msg = strings.TrimRight(msg[:i], " :") + " (text not shown)"
	}
	return msg
}

// set is the variable's value when present and not empty.
func (s settings) set(name string) (string, bool) {
	v, ok := s.env[name]
	return v, ok && v != ""
}

// environ is the environment for a child process.
func (s settings) environ() []string {
	out := make([]string, 0, len(s.env))
	for k, v := range s.env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// storePlan says which MongoDB the bot uses and why.
type storePlan struct {
	local bool   // start FerretDB (tools/devdb)
	why   string // one line for the terminal, no secret in it
}

func chooseStore(s settings) storePlan {
	if uri, ok := s.set("MONGODB_URI"); ok {
		return storePlan{why: "MongoDB at " + redactURI(uri) + " (MONGODB_URI is set; the local FerretDB is not started)"}
	}
	if path, ok := s.set("MONGODB_URI_FILE"); ok {
		return storePlan{why: "MongoDB from the URI in " + path + " (MONGODB_URI_FILE is set; the local FerretDB is not started)"}
	}
	why := "the local FerretDB (MONGODB_URI is not set)"
	if _, present := s.env["MONGODB_URI"]; present {
		why = "the local FerretDB (MONGODB_URI is empty)"
	}
	return storePlan{local: true, why: why}
}

// temporalPlan says which Temporal the bot uses and why.
type temporalPlan struct {
	local bool
	why   string
}

func chooseTemporal(s settings) temporalPlan {
	if addr, ok := s.set("TEMPORAL_ADDRESS"); ok {
		return temporalPlan{why: "Temporal at " + addr + " (TEMPORAL_ADDRESS is set; the local dev server is not started)"}
	}
	return temporalPlan{local: true, why: "the local Temporal dev server (TEMPORAL_ADDRESS is not set)"}
}

// redactURI keeps scheme, host and path: user names and passwords stay out
// of the terminal.
func redactURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Host == "" {
		return "the URI in MONGODB_URI (not shown: it does not parse)"
	}
	return u.Scheme + "://" + u.Host + u.Path
}
