package config

import (
	"net/url"
	"regexp"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
)

// MongoURIProblem says what is wrong with a MongoDB URI's form, without
// showing its user name or password; "" when it reads. It reads the URI
// as the driver does (net/url's rules are not MongoDB's: a password with
// an unescaped character is a different error there, or none), but with
// no DNS: a mongodb+srv name is looked up on connect (MongoURIError then
// shows the resolver's answer).
func MongoURIProblem(uri string) string {
	offline := uri
	if rest, ok := strings.CutPrefix(uri, "mongodb+srv://"); ok {
		offline = "mongodb://" + rest
	}
	if _, err := connstring.Parse(offline); err != nil {
		return MongoURIError(err, uri)
	}
	return ""
}

// MongoURIDatabase is the database a MongoDB URI names ("" for none), or
// its MongoURIProblem.
func MongoURIDatabase(uri string) (db, problem string) {
	offline := uri
	if rest, ok := strings.CutPrefix(uri, "mongodb+srv://"); ok {
		offline = "mongodb://" + rest
	}
	cs, err := connstring.Parse(offline)
	if err != nil {
		return "", MongoURIError(err, uri)
	}
	return cs.Database, ""
}

// escapeInError is what url.PathUnescape quotes from the user name or
// password: part of the secret.
var escapeInError = regexp.MustCompile(`invalid URL escape "[^"]*"`)

// MongoURIError is the driver's error about uri (a parse error, a
// mongodb+srv name that does not resolve) with the URI's user name and
// password taken out, and a hint for the usual causes. The driver's
// messages name hosts and options, not credentials, but a bad escape is
// quoted from the password, and the user name and password are cut out
// wherever they appear.
func MongoURIError(err error, uri string) string {
	msg := strings.TrimPrefix(err.Error(), "error parsing uri: ")
	msg = escapeInError.ReplaceAllString(msg, `invalid URL escape (a "%" not followed by two hex digits)`)
	for _, secret := range credentials(uri) {
		msg = strings.ReplaceAll(msg, secret, "***")
	}
	switch {
	case strings.Contains(msg, "password") || strings.Contains(msg, "username") || strings.Contains(msg, "user info"):
		msg += ": percent-encode the characters @ : / ? # [ ] % in the user name and password (a @ in the password is %40)"
	case strings.Contains(msg, "lookup "):
		msg += ": the mongodb+srv host name does not resolve here (check the cluster's name, as Atlas shows it under Connect, and this host's DNS)"
	}
	return msg
}

// credentials are the user name and password of uri, as written and
// decoded, longest first, for cutting out of messages. Very short ones
// are left: cutting every "a" would garble the message and hide little.
func credentials(uri string) []string {
	rest := uri
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return nil
	}
	var out []string
	info := rest[:at]
	parts := []string{info}
	if u, p, ok := strings.Cut(info, ":"); ok {
		parts = append(parts, u, p)
	}
	for _, p := range parts {
		if dec, err := url.PathUnescape(p); err == nil && dec != p {
			parts = append(parts, dec)
		}
	}
	for _, p := range parts {
		if len(p) >= 3 {
			out = append(out, p)
		}
	}
	// Longest first: the whole user info before its parts.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}
