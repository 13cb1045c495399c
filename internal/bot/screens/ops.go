package screens

import (
	"github.com/openai-status-bot/statusbot/internal/event"
	offered "github.com/openai-status-bot/statusbot/internal/pages"
)

// The keyboards' operations, one row each: the letter a button's
// callback_data starts with, how many arguments it carries, whether a tap
// changes the settings (and how its arguments are checked), what of the
// status page its screen needs, and the screen a tap leads to. A new
// screen or setting is one row here, and its change in the commands'
// applyChange when it writes something SettingFor cannot say.
type op struct {
	args    int
	changes bool
	// valid checks a change's arguments (nil: SettingFor can make the
	// change).
	valid func(Callback) bool
	reads PageUse
	// screen is the screen a tap leads to (nil: the first screen).
	screen func(*KB, Callback) Screen
}

// PageUse is what of the status page a tap's screen needs.
type PageUse int

const (
	NoPage      PageUse = iota
	LivePage            // its components, as fresh as can be read (a live fetch, bounded)
	FilterNames         // only to name a chosen filter: the stored snapshot, whatever its age
)

// Ops opViewComponent and opAddComponent's letters, for the commands'
// buttons answering a name several components match.
const (
	OpViewComponent = "v" // /status: show its status
	OpAddComponent  = "a" // /subscribe component: add it to the filter
)

var ops = map[string]op{
	"m": {reads: FilterNames},
	"x": {reads: FilterNames},
	"k": {screen: kinds},
	"K": {args: 2, changes: true, valid: validKind, screen: kinds},
	"g": {args: 1, reads: LivePage, screen: func(k *KB, cb Callback) Screen { pg, _ := cb.Arg(0, 1000); return k.Groups(pg) }},
	"G": {args: 3, reads: LivePage, screen: func(k *KB, cb Callback) Screen {
		gi, _ := cb.Arg(0, len(k.idx.Groups))
		pg, _ := cb.Arg(1, 1000)
		return k.Group(gi, pg)
	}},
	"c": {args: 4, changes: true, valid: anyArgs, reads: LivePage, screen: func(k *KB, cb Callback) Screen {
		ci, _ := cb.Arg(0, len(k.idx.Comps))
		pg, _ := cb.Arg(2, 1000)
		gi, _ := k.idx.GroupOf(ci)
		return k.Group(gi, pg)
	}},
	"C":             {changes: true, valid: anyArgs, reads: LivePage, screen: func(k *KB, _ Callback) Screen { return k.Groups(0) }},
	"s":             {screen: severity},
	"S":             {args: 1, changes: true, screen: severity},
	"q":             {screen: quiet},
	"Q":             {args: 1, changes: true, screen: quiet},
	"r":             {args: 1, changes: true, screen: quiet},
	"H":             {args: 1, changes: true, screen: quiet},
	"z":             {screen: zones},
	"Z":             {args: 1, changes: true, screen: zones},
	"d":             {screen: delivery},
	"o":             {args: 1, changes: true, screen: delivery},
	"p":             {args: 1, changes: true, screen: delivery},
	"R":             {args: 1, changes: true, screen: delivery},
	"e":             {args: 1, changes: true, screen: delivery},
	"E":             {args: 1, changes: true, screen: delivery},
	"l":             {screen: languages},
	"L":             {args: 1, changes: true, screen: languages},
	"pg":            {screen: pagesScreen},
	"F":             {args: 2, changes: true, valid: validPageKey, screen: pagesScreen},
	"P":             {args: 2, changes: true, valid: validPage, screen: pagesScreen}, // drawn before "F": refused, redrawn
	OpViewComponent: {args: 1, reads: LivePage},
	OpAddComponent:  {args: 1, reads: LivePage},
}

func kinds(k *KB, _ Callback) Screen     { return k.Kinds() }
func severity(k *KB, _ Callback) Screen  { return k.Severity() }
func quiet(k *KB, _ Callback) Screen     { return k.Quiet() }
func zones(k *KB, _ Callback) Screen     { return k.Zones() }
func delivery(k *KB, _ Callback) Screen  { return k.Delivery() }
func languages(k *KB, _ Callback) Screen { return k.Languages() }

func pagesScreen(k *KB, _ Callback) Screen {
	if k.ShowsPages() {
		return k.Pages()
	}
	return k.Main()
}

func anyArgs(Callback) bool { return true } // checked against the page (ValidComponentRef)

func validKind(cb Callback) bool {
	_, ok1 := cb.Arg(0, len(event.Kinds))
	_, ok2 := cb.Arg(1, 2)
	return ok1 && ok2
}

func validPageKey(cb Callback) bool {
	_, ok := cb.Arg(1, 2)
	k := cb.Args[0]
	return ok && (k == legacyKeyArg || offered.NameError(k) == "")
}

func validPage(cb Callback) bool {
	_, ok1 := cb.Arg(0, 100)
	_, ok2 := cb.Arg(1, 2)
	return ok1 && ok2
}

// Reads is what of the status page the tap's screen needs.
func (c Callback) Reads() PageUse { return ops[c.Op].reads }

// Changes reports whether the op changes settings (rather than showing a
// screen).
func (c Callback) Changes() bool { return ops[c.Op].changes }

// ValidChange checks a change button's arguments (components are
// checked against the page by ValidComponentRef).
func ValidChange(cb Callback) bool {
	if v := ops[cb.Op].valid; v != nil {
		return v(cb)
	}
	_, err := SettingFor(cb)
	return err == nil
}

// ScreenFor is the screen a tap leads to (or stays on).
func ScreenFor(k *KB, cb Callback) Screen {
	if s := ops[cb.Op].screen; s != nil {
		return s(k, cb)
	}
	return k.Main()
}
