package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/config"
)

// A URI the driver cannot read is refused at start-up with the driver's
// reason and a hint, never with its user name or password.
func TestMongoURIThatCannotBeReadSaysWhy(t *testing.T) {
	for _, tc := range []struct{ uri, want, secret string }{
		{"mongodb://statusbot:pa/Zq9secret@mongo:27017/openai-status-bot", "MONGODB_URI cannot be read: unescaped slash in password: percent-encode", "Zq9secret"},
		{"mongodb://statusbot:pa%zzword@mongo:27017/openai-status-bot", `invalid password: invalid URL escape (a "%" not followed by two hex digits)`, "%zz"},
		{"mongodb://statusbot:pa:Zq9secret@mongo/openai-status-bot", "unescaped colon in password", "Zq9secret"},
		{"mongodb+srv://statusbot:pass@word@cluster0.example.mongodb.net/", "unescaped @ sign in user info", "word@"},
		{"mongodb://mongo:27017?w=majority", "must have a / before the query ?", ""},
		{"mongodb://mongo:27017/db?w=majority&connectTimeoutMS=soon", "connectTimeoutMS", ""},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			setRequired(t)
			t.Setenv("MONGODB_URI", tc.uri)
			_, err := config.Load()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			if tc.secret != "" {
				require.NotContains(t, err.Error(), tc.secret)
			}
		})
	}
}

// net/url's rules are not the driver's: a password with an unescaped #
// is read by the driver (and connects), and its database is named.
func TestMongoURIDatabase(t *testing.T) {
	db, problem := config.MongoURIDatabase("mongodb://old:pa#ss@old-host:27017/statusbot?authSource=admin")
	require.Empty(t, problem)
	require.Equal(t, "statusbot", db)
	db, problem = config.MongoURIDatabase("mongodb+srv://old:pa55@cluster0.example.mongodb.net/?w=majority")
	require.Empty(t, problem)
	require.Empty(t, db)
}

// A mongodb+srv name that does not resolve: the resolver's answer, which
// names the host only, is shown, with what to check.
func TestMongoURIErrorShowsTheResolverAnswer(t *testing.T) {
	uri := "mongodb+srv://statusbot:s3cretPW@cluster0.abcde.mongodb.net/openai-status-bot"
	err := errors.New("error parsing uri: lookup _mongodb._tcp.cluster0.abcde.mongodb.net on 10.0.0.2:53: no such host")
	msg := config.MongoURIError(err, uri)
	require.True(t, strings.HasPrefix(msg, "lookup _mongodb._tcp.cluster0.abcde.mongodb.net on 10.0.0.2:53: no such host: the mongodb+srv host name does not resolve"), msg)
	// Credentials are cut out wherever a message would carry them.
	msg = config.MongoURIError(errors.New("auth failed for statusbot:s3cretPW"), uri)
	require.NotContains(t, msg, "s3cretPW")
	require.NotContains(t, msg, "statusbot:")
}
