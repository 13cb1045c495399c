package screens

import (
	"context"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/bot/bottest"
	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

func TestCallbackDataWithin64Bytes(t *testing.T) {
	io := fakes.NewIncidentIO()
	defer io.Close()
	pg, _, err := statuspage.NewIncidentIO(io.URL(), 5*time.Second).Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	idx := IndexPage(pg)
	if len(idx.Comps) != 34 || len(idx.Groups) != 5 {
		t.Fatalf("%d components in %d groups", len(idx.Comps), len(idx.Groups))
	}
	all := make([]string, len(idx.Comps))
	for i, c := range idx.Comps {
		all[i] = c.ID
	}
	subs := []*store.Subscriber{
		{Key: "1"},
		{Key: "-1001234567890:123456", Kinds: []event.Kind{event.KindIncident}, Components: all[:17],
			Settings: store.Settings{Mode: store.ModeCards, PinCards: true, MinSeverity: store.SeverityOutage, BelowSilent: true,
				QuietStart: "22:00", QuietEnd: "07:00", TimeZone: "America/Los_Angeles", ReminderMinutes: 120}},
		{Key: "2", Components: all},
	}
	seen := map[int]bool{}
	longest, buttons := 0, 0
	var kbs []*KB
	for _, sub := range subs {
		// In a private chat for a channel, every button carries the
		// channel's ID too: the longest there is.
		kbs = append(kbs, New(sub, idx), New(sub, idx).For(-1009999999999999, "A channel", "-1009999999999999"))
	}
	// Every language's screens: well-formed HTML, within the limits.
	for _, l := range i18n.Languages {
		kbs = append(kbs, New(subs[1], idx).For(-1009999999999999, "A channel", "-1009999999999999").Speaking(i18n.Of(l.Tag)))
	}
	for _, k := range kbs {
		screens := []Screen{k.Main(), k.Kinds(), k.Severity(), k.Quiet(), k.Zones(), k.Delivery(), k.Languages()}
		for p := 0; p < pages(len(idx.Groups), groupsPerScreen); p++ {
			screens = append(screens, k.Groups(p))
		}
		for gi, g := range idx.Groups {
			for p := 0; p < pages(len(g.Members), compsPerScreen); p++ {
				screens = append(screens, k.Group(gi, p))
			}
		}
		for _, s := range screens {
			bottest.CheckHTML(t, s.Text)
			for _, row := range s.Rows {
				for _, b := range row {
					buttons++
					longest = max(longest, len(b.CallbackData))
					if len(b.CallbackData) > MaxCallbackData {
						t.Fatalf("%d bytes: %q", len(b.CallbackData), b.CallbackData)
					}
					cb, ok := ParseCallback(b.CallbackData)
					if !ok || cb.Tok != k.Tok {
						t.Fatalf("undecodable %q", b.CallbackData)
					}
					if cb.Op == "G" || cb.Op == "c" {
						if !ValidComponentRef(cb, idx) {
							t.Fatalf("bad component reference %q", b.CallbackData)
						}
					}
					if cb.Op == "c" {
						ci, _ := cb.Arg(0, len(idx.Comps))
						seen[ci] = true
					}
					if cb.Changes() && cb.Op != "K" && cb.Op != "c" && cb.Op != "C" {
						if _, err := SettingFor(cb); err != nil {
							t.Fatalf("%q: %v", b.CallbackData, err)
						}
					}
				}
			}
		}
	}
	t.Logf("%d buttons, longest callback_data %d bytes", buttons, longest)
	if len(seen) != 34 {
		t.Fatalf("%d of 34 components reachable", len(seen))
	}
	// The worst case: the longest token and the highest indices.
	worst := Callback{Chat: -1009999999999999, Op: "c", Args: []string{"999", "1", "999", "zzzzzzz"}, Tok: "zzzzzzz"}.Encode()
	if len(worst) > MaxCallbackData {
		t.Fatalf("worst case %d bytes", len(worst))
	}
}

func FuzzParseCallback(f *testing.F) {
	for _, s := range []string{"m:abc", "c:3:1:0:xyz:abc", "G:1:0:xyz:abc", "Q:x:abc", "K:0:1:t", "Z:12:t", ":", "c:-1:1:0::", "@-9uy3hbwbnk:S:1:abc", "@0:m:x", "@:m:x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		cb, ok := ParseCallback(data)
		if !ok {
			return
		}
		if len(data) > MaxCallbackData || cb.Encode() != data {
			t.Fatalf("accepted %q, re-encodes to %q", data, cb.Encode())
		}
		if cb.Changes() {
			_, _ = SettingFor(cb) // never panics on what was accepted
		}
	})
}
