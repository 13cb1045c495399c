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

// MaxCallbackData is Telegram's limit for callback_data, in bytes.
const MaxCallbackData = 64

// Callback is a decoded callback_data.
type Callback struct {
	Op   string
	Args []string
	Tok  string
}

func (c Callback) Encode() string {
	return strings.Join(append(append([]string{c.Op}, c.Args...), c.Tok), ":")
}

// argc is how many arguments each op takes.
var argc = map[string]int{
	"m": 0, "k": 0, "g": 1, "G": 3, "s": 0, "q": 0, "z": 0, "d": 0, "x": 0,
	"v": 1, "a": 1,
	"K": 2, "c": 4, "C": 0, "S": 1, "Q": 1, "r": 1, "Z": 1, "o": 1, "p": 1, "e": 1, "E": 1,
}

// ParseCallback decodes callback_data; ok is false for anything the bot
// did not make (the client sends what it was given, but check anyway).
func ParseCallback(data string) (Callback, bool) {
	if len(data) > MaxCallbackData {
		return Callback{}, false
	}
	f := strings.Split(data, ":")
	if len(f) < 2 {
		return Callback{}, false
	}
	n, ok := argc[f[0]]
	if !ok || len(f) != n+2 {
		return Callback{}, false
	}
	return Callback{Op: f[0], Args: f[1 : n+1], Tok: f[n+1]}, true
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

// Changes reports whether the op changes settings (rather than showing a
// screen).
func (c Callback) Changes() bool { return changeOps[c.Op] }

var changeOps = map[string]bool{"K": true, "c": true, "C": true, "S": true, "Q": true, "r": true, "Z": true, "o": true, "p": true, "e": true, "E": true}
