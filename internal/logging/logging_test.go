package logging_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/logging"
)

func TestSecretsNeverReachTheLog(t *testing.T) {
	const token = "123456:AAsecretHALFofTOKEN"
	const uri = "mongodb://admin:hunter22@db.example:27017/x"
	var buf bytes.Buffer
	log := logging.New(&buf, "debug", token, uri)
	log.Info("request to https://api.telegram.org/bot"+token+"/getMe failed", "uri", uri,
		"error", errors.New("Post \"https://api.telegram.org/bot"+token+"/sendMessage\": EOF"))
	log.With("half", "AAsecretHALFofTOKEN").Warn("x", "n", 3)
	out := buf.String()
	require.NotContains(t, out, "AAsecretHALFofTOKEN")
	require.NotContains(t, out, "hunter22")
	require.Contains(t, out, "<redacted>")
	require.Contains(t, out, "n=3")
}
