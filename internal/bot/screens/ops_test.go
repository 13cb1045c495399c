package screens

import (
	"strings"
	"testing"
)

// Every operation of the table parses back from the callback_data it
// encodes, with the number of arguments its row says, and says what it
// changes and reads as its row does: ParseCallback, Changes, Reads and
// ScreenFor all read the one table.
func TestOpsTable(t *testing.T) {
	for letter, o := range ops {
		args := make([]string, o.args)
		for i := range args {
			args[i] = "0"
		}
		data := Callback{Op: letter, Args: args, Tok: "tok"}.Encode()
		cb, ok := ParseCallback(data)
		if !ok || cb.Op != letter || len(cb.Args) != o.args || cb.Tok != "tok" {
			t.Errorf("%s: %q parsed as %+v, %v", letter, data, cb, ok)
			continue
		}
		if cb.Changes() != o.changes || cb.Reads() != o.reads {
			t.Errorf("%s: changes %v reads %v", letter, cb.Changes(), cb.Reads())
		}
		if _, ok := ParseCallback(letter + strings.Repeat(":0", o.args+1) + ":tok"); ok {
			t.Errorf("%s: one argument too many parsed", letter)
		}
	}
	if _, ok := ParseCallback("nope:tok"); ok {
		t.Error("an op not in the table parsed")
	}
}
