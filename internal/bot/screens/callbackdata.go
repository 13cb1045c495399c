package screens

import (
	"strconv"
	"strings"
)

// The /settings keyboard. Every button's callback_data is
// "op[:arg...]:token" (at most 64 bytes): op says what to show or set,
// components are referred to by their index in the page's component list
// (with a token of that list, so a changed page is noticed), and token is
// a hash of the chat's settings when the keyboard was drawn, so a tap on
// buttons drawn before a change made elsewhere is not applied blindly.
// A keyboard shown in a private chat for a channel's settings starts
// with "@chat:" (the channel's ID in base 36): the chat it changes.

// MaxCallbackData is Telegram's limit for callback_data, in bytes.
const MaxCallbackData = 64

// Callback is a decoded callback_data.
type Callback struct {
	// Chat is the chat whose settings the button changes when it is not
	// the one the keyboard is shown in (0: that one).
	Chat int64
	Op   string
	Args []string
	Tok  string
}

// Encode is the button's callback_data.
func (c Callback) Encode() string {
	s := strings.Join(append(append([]string{c.Op}, c.Args...), c.Tok), ":")
	if c.Chat != 0 {
		s = "@" + strconv.FormatInt(c.Chat, 36) + ":" + s
	}
	return s
}

// ParseCallback decodes callback_data; ok is false for anything the bot
// did not make (the client sends what it was given, but check anyway).
func ParseCallback(data string) (Callback, bool) {
	if len(data) > MaxCallbackData {
		return Callback{}, false
	}
	f := strings.Split(data, ":")
	var chat int64
	if len(f) > 0 && strings.HasPrefix(f[0], "@") {
		id, err := strconv.ParseInt(f[0][1:], 36, 64)
		if err != nil || id == 0 || "@"+strconv.FormatInt(id, 36) != f[0] {
			return Callback{}, false
		}
		chat, f = id, f[1:]
	}
	if len(f) < 2 {
		return Callback{}, false
	}
	o, ok := ops[f[0]]
	if !ok || len(f) != o.args+2 {
		return Callback{}, false
	}
	return Callback{Chat: chat, Op: f[0], Args: f[1 : o.args+1], Tok: f[o.args+1]}, true
}

// Arg is argument i as a number in [0, n); ok false otherwise.
func (c Callback) Arg(i, n int) (int, bool) {
	if i >= len(c.Args) {
		return 0, false
	}
	v, err := strconv.Atoi(c.Args[i])
	if err != nil || v < 0 || v >= n || strconv.Itoa(v) != c.Args[i] {
		return 0, false
	}
	return v, true
}
