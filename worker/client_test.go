package worker

import (
	"crypto/tls"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/config"
)

// Without any TEMPORAL_TLS_* or API key the client dials in plain text, as
// against the bundled server; an API key (Temporal Cloud) turns TLS on and
// sends the key; mTLS settings come from the SDK's standard variables.
func TestClientOptionsFollowTheSDKEnvironmentConfiguration(t *testing.T) {
	t.Setenv("TEMPORAL_CONFIG_FILE", t.TempDir()+"/none.toml")
	t.Setenv("TEMPORAL_ADDRESS", "ignored:7233")
	cfg := &config.Config{TemporalAddress: "temporal:7233", TemporalNamespace: "bots"}
	opts, err := ClientOptions(cfg)
	require.NoError(t, err)
	require.Equal(t, "temporal:7233", opts.HostPort, "cfg wins: it holds the validated value")
	require.Equal(t, "bots", opts.Namespace)
	require.Nil(t, opts.ConnectionOptions.TLS)
	require.Nil(t, opts.Credentials)

	cfg.TemporalAPIKey = "cloud-api-key"
	opts, err = ClientOptions(cfg)
	require.NoError(t, err)
	require.NotNil(t, opts.Credentials)
	require.Equal(t, &tls.Config{}, opts.ConnectionOptions.TLS)

	cfg.TemporalAPIKey = ""
	t.Setenv("TEMPORAL_TLS_SERVER_NAME", "ns.a1b2c.tmprl.cloud")
	opts, err = ClientOptions(cfg)
	require.NoError(t, err)
	require.NotNil(t, opts.ConnectionOptions.TLS)
	require.Equal(t, "ns.a1b2c.tmprl.cloud", opts.ConnectionOptions.TLS.ServerName)

	t.Setenv("TEMPORAL_TLS_CLIENT_CERT_PATH", "/nonexistent/client.pem")
	t.Setenv("TEMPORAL_TLS_CLIENT_KEY_PATH", "/nonexistent/client.key")
	_, err = ClientOptions(cfg)
	require.ErrorContains(t, err, "temporal: client configuration")
}
