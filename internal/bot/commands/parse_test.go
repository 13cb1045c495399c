package commands

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openai-status-bot/statusbot/internal/bot/bottest"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/message"
)

func TestParseCommand(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct {
		text string
		want Command
		ok   bool
	}{
		{"/start", Command{Name: "start"}, true},
		{"/START", Command{Name: "start"}, true},
		{"/Status  API  ", Command{Name: "status", Args: "API"}, true},
		{"/status@OurBot api", Command{Name: "status", Mention: "OurBot", Args: "api"}, true},
		{"/status\tchat\n gpt", Command{Name: "status", Args: "chat gpt"}, true},
		{"/subscribe component  remove   API", Command{Name: "subscribe", Args: "component remove API"}, true},
		{"/history 3", Command{Name: "history", Args: "3"}, true},
		{"/start@", Command{}, false},
		{"/start@bad-name", Command{}, false},
		{"/", Command{}, false},
		{"/ start", Command{}, false},
		{"start", Command{}, false},
		{"hello /start", Command{}, false},
		{"", Command{}, false},
		{"/стоп", Command{}, false},
		{"/usr/bin", Command{}, false},
		{"/" + strings.Repeat("x", 33), Command{}, false},
		{"/" + strings.Repeat("x", 32), Command{Name: strings.Repeat("x", 32)}, true},
		{"/status " + long, Command{Name: "status", Args: long[:maxArgsLen]}, true},
		{"/status \xff\xfe", Command{Name: "status", Args: "\uFFFD"}, true},
		{"/status a\x00b", Command{Name: "status", Args: "a b"}, true},
		// Telegram highlights the command before punctuation.
		{"/help.", Command{Name: "help"}, true},
		{"/status,", Command{Name: "status"}, true},
		{"/status, API", Command{Name: "status", Args: "API"}, true},
		{"/status,API", Command{Name: "status", Args: "API"}, true},
		{"/start@OurBot!", Command{Name: "start", Mention: "OurBot"}, true},
		{"/help?!", Command{Name: "help"}, true},
		{"/.", Command{}, false},
		{"/history 3.", Command{Name: "history", Args: "3."}, true},
	}
	for _, tt := range tests {
		got, ok := ParseCommand(tt.text)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseCommand(%q) = %+v, %v; want %+v, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCommandFor(t *testing.T) {
	for _, tt := range []struct {
		mention string
		want    bool
	}{{"", true}, {"OurBot", true}, {"ourbot", true}, {"OtherBot", false}} {
		if got := (Command{Name: "x", Mention: tt.mention}).For("ourbot"); got != tt.want {
			t.Errorf("mention %q: %v", tt.mention, got)
		}
	}
}

func TestParseHistoryCount(t *testing.T) {
	for args, want := range map[string]int{
		"": 5, "3": 3, "1": 1, "10": 10, "11": 10, "0": 5, "-2": 5, "abc": 5, "2.5": 5,
		"99999999999999999999": 10, "7 more": 7, "+4": 4, "3.": 3, "3,": 3,
	} {
		if got := parseHistoryCount(args); got != want {
			t.Errorf("parseHistoryCount(%q) = %d, want %d", args, got, want)
		}
	}
}

func TestParseSubscribe(t *testing.T) {
	all := []event.Kind{event.KindIncident, event.KindComponent, event.KindMaintenance}
	tests := []struct {
		args string
		want SubRequest
	}{
		{"", SubRequest{Op: SubShow}},
		{"incident", SubRequest{Op: SubKinds, Kinds: []event.Kind{event.KindIncident}}},
		{"Component only", SubRequest{Op: SubKinds, Kinds: []event.Kind{event.KindComponent}}},
		{"component", SubRequest{Op: SubInvalid, Err: "Which component? /subscribe component <name> adds one to the filter (names as /components shows them). To receive only component-change notices, say /subscribe component only."}},
		{"maintenance", SubRequest{Op: SubKinds, Kinds: []event.Kind{event.KindMaintenance}}},
		{"all", SubRequest{Op: SubKinds, Kinds: all}},
		{"ALL", SubRequest{Op: SubKinds, Kinds: all}},
		{"maintenance incident", SubRequest{Op: SubKinds, Kinds: []event.Kind{event.KindIncident, event.KindMaintenance}}},
		{"incidents,maintenances", SubRequest{Op: SubKinds, Kinds: []event.Kind{event.KindIncident, event.KindMaintenance}}},
		{"incident incident", SubRequest{Op: SubKinds, Kinds: []event.Kind{event.KindIncident}}},
		{"component incident", SubRequest{Op: SubKinds, Kinds: []event.Kind{event.KindIncident, event.KindComponent}}},
		{"incident all", SubRequest{Op: SubKinds, Kinds: all}},
		{"component API", SubRequest{Op: SubAddComponent, Query: "API"}},
		{"component ChatGPT Enterprise", SubRequest{Op: SubAddComponent, Query: "ChatGPT Enterprise"}},
		{"component \"Sora\"", SubRequest{Op: SubAddComponent, Query: "Sora"}},
		{"component add Sora", SubRequest{Op: SubAddComponent, Query: "Sora"}},
		{"components api", SubRequest{Op: SubAddComponent, Query: "api"}},
		{"component all", SubRequest{Op: SubClearComponents}},
		{"component ALL", SubRequest{Op: SubClearComponents}},
		{"component remove API", SubRequest{Op: SubRemoveComponent, Query: "API"}},
		{"component Remove chat gpt", SubRequest{Op: SubRemoveComponent, Query: "chat gpt"}},
		{"component rm x1", SubRequest{Op: SubRemoveComponent, Query: "x1"}},
		{"component remove", SubRequest{Op: SubInvalid, Err: "Say which component to remove: /subscribe component remove <name or ID>."}},
		{"component remove \"\"", SubRequest{Op: SubInvalid, Err: "Say which component to remove: /subscribe component remove <name or ID>."}},
		{"foo", SubRequest{Op: SubInvalid, Err: "Unknown notification type “foo”. Types are incident, component, maintenance or all."}},
		{"incident foo", SubRequest{Op: SubInvalid, Err: "Unknown notification type “foo”. Types are incident, component, maintenance or all."}},
		{",", SubRequest{Op: SubInvalid, Err: "Say which notification types: incident, component, maintenance or all."}},
		{" , + ,", SubRequest{Op: SubInvalid, Err: "Say which notification types: incident, component, maintenance or all."}},
		{strings.Repeat("z", 100), SubRequest{Op: SubInvalid, Err: "Unknown notification type “" + strings.Repeat("z", 63) + "…”. Types are incident, component, maintenance or all."}},
	}
	for _, tt := range tests {
		if got := ParseSubscribe(tt.args); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseSubscribe(%q) = %+v, want %+v", tt.args, got, tt.want)
		}
	}
}

func TestTrimQuotesAndEcho(t *testing.T) {
	for in, want := range map[string]string{`"API"`: "API", "«Sora»": "Sora", "“x”": "x", `"`: `"`, "'a'": "a", " b ": "b", `"a`: `"a`} {
		if got := trimQuotes(in); got != want {
			t.Errorf("trimQuotes(%q) = %q, want %q", in, got, want)
		}
	}
	if got := echo(strings.Repeat("é", 70)); utf8.RuneCountInString(got) != maxEchoLen || !strings.HasSuffix(got, "…") {
		t.Errorf("echo cut to %q", got)
	}
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"/start", "/status@bot API", "/subscribe component remove x", "/history 9999999999999999999999",
		"/x@", "/\xff", "/subscribe \"", "/subscribe component «»", "/a b\x00c\u2028d", "/subscribe incident,,maintenance+all"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		c, ok := ParseCommand(text)
		if !ok {
			return
		}
		if c.Name == "" || len(c.Name) > maxCommandLen || c.Name != strings.ToLower(c.Name) {
			t.Fatalf("bad name %q", c.Name)
		}
		if !utf8.ValidString(c.Args) || utf8.RuneCountInString(c.Args) > maxArgsLen || strings.TrimSpace(c.Args) != c.Args {
			t.Fatalf("bad args %q", c.Args)
		}
		if strings.ContainsAny(c.Args, "\n\r\t\x00") {
			t.Fatalf("control characters kept: %q", c.Args)
		}
		r := ParseSubscribe(c.Args)
		switch r.Op {
		case SubInvalid:
			if r.Err == "" {
				t.Fatal("invalid without a reason")
			}
		case SubKinds:
			if len(r.Kinds) == 0 {
				// "/subscribe ," must not silently unsubscribe from every type.
				t.Fatalf("no kinds from %q", c.Args)
			}
		case SubAddComponent, SubRemoveComponent:
			if r.Query == "" && r.Op == SubRemoveComponent {
				t.Fatal("remove without a query")
			}
		}
		_ = parseHistoryCount(c.Args)
	})
}

func FuzzReplies(f *testing.F) {
	for _, s := range []string{"API", "<b>", "&amp;", "chat", "\xff", strings.Repeat("<>&\"", 80), "sora1", "“”"} {
		f.Add(s)
	}
	page := bottest.Page("https://status.openai.com")
	comps := screens.Components(page)
	f.Fuzz(func(t *testing.T, arg string) {
		c, ok := ParseCommand("/status " + arg)
		if !ok {
			t.Fatal("a /status command must parse")
		}
		res := ResolveComponent(comps, c.Args)
		var out []string
		switch {
		case res.Match != nil:
			out = append(out, componentStatus(*res.Match))
		case len(res.Ambiguous) > 0:
			out = append(out, ambiguousReply(c.Args, res.Ambiguous, screens.ComponentNames(res.Ambiguous), true))
		default:
			out = append(out, notFoundReply(c.Args))
		}
		r := ParseSubscribe(c.Args)
		if r.Op == SubInvalid {
			out = append(out, message.Escape(r.Err)+"\n\n"+SubscribeHelp())
		}
		for _, s := range out {
			bottest.CheckHTML(t, s)
		}
	})
}
