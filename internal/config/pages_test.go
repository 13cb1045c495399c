package config_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/pages"
)

// Without STATUS_PAGES the list is today's one page: an existing
// deployment changes nothing.
func TestPagesDefaultToTheOnePage(t *testing.T) {
	setRequired(t)
	c, err := config.Load()
	require.NoError(t, err)
	require.Equal(t, []pages.Page{{Name: "openai", URL: "https://status.openai.com", Provider: "auto"}}, c.Pages)
	require.Equal(t, "https://status.openai.com", c.StatuspageURL, "what the worker reads today")

	t.Setenv("STATUSPAGE_URL", "https://www.githubstatus.com")
	t.Setenv("STATUSPAGE_PROVIDER", "statuspage")
	c, err = config.Load()
	require.NoError(t, err)
	require.Equal(t, []pages.Page{{Name: "githubstatus", URL: "https://www.githubstatus.com", Provider: "statuspage"}}, c.Pages)

	t.Setenv("STATUS_PAGES", "")
	c, err = config.Load()
	require.NoError(t, err, "empty, as compose's ${STATUS_PAGES:-} gives it")
	require.Len(t, c.Pages, 1)
}

func TestStatusPages(t *testing.T) {
	setRequired(t)
	t.Setenv("STATUS_PAGES", "openai=https://status.openai.com, github=statuspage:https://www.githubstatus.com")
	c, err := config.Load()
	require.NoError(t, err)
	require.Equal(t, []pages.Page{
		{Name: "openai", URL: "https://status.openai.com", Provider: "auto"},
		{Name: "github", URL: "https://www.githubstatus.com", Provider: "statuspage"},
	}, c.Pages)
}

// A config built in code (as the tests' stacks build theirs) gets its
// Pages from Validate.
func TestValidateFillsPages(t *testing.T) {
	c := &config.Config{TelegramBotToken: token, TelegramAPIURL: "http://127.0.0.1:8081", MongoDBURI: "mongodb://db", StatuspageURL: "http://127.0.0.1:8082",
		MongoDBDatabase: "d", TemporalAddress: "a", TemporalNamespace: "n", TemporalTaskQueue: "q", HealthAddr: "h",
		PollInterval: 60e9, HTTPTimeout: 10e9, TelegramRateLimit: 20, BotReplyRate: 4, LogLevel: "info"}
	require.NoError(t, c.Validate())
	require.Equal(t, []pages.Page{{Name: "page", URL: "http://127.0.0.1:8082", Provider: "auto"}}, c.Pages)
}

func TestBadStatusPages(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"STATUS_PAGES": "github"}, "STATUS_PAGES entry 1: want name=URL"},
		{map[string]string{"STATUS_PAGES": "a=https://h,a=https://i"}, "STATUS_PAGES entry 2 (a): the name is already taken by entry 1"},
		{map[string]string{"STATUS_PAGES": "a=ftp://u:SECRET@h"}, `STATUS_PAGES entry 1 (a): the URL must be an http(s) URL such as https://host, got scheme "ftp"`},
		{map[string]string{"STATUS_PAGES": "a=https://h", "STATUSPAGE_URL": "https://u:SECRET@other"}, "set STATUS_PAGES or STATUSPAGE_URL, not both"},
		{map[string]string{"STATUS_PAGES": "a=https://h", "STATUSPAGE_PROVIDER": "statuspage"}, "STATUSPAGE_PROVIDER applies to STATUSPAGE_URL alone"},
		{map[string]string{"STATUSPAGE_URL": "h?token=SECRET"}, "STATUSPAGE_URL must be an http(s) URL"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			setRequired(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			c, err := config.Load()
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "SECRET")
			require.Nil(t, c.Pages)
		})
	}
}

// STATUSPAGE_URL's default is the page Resolve treats as untouched.
func TestStatuspageURLDefaultIsOpenAIURL(t *testing.T) {
	f, ok := reflect.TypeOf(config.Config{}).FieldByName("StatuspageURL")
	require.True(t, ok)
	require.Equal(t, pages.OpenAIURL, f.Tag.Get("default"))
}
