package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Issue 30, item 6: every collection of the store says how a chat's
// records in it follow a group to its supergroup (moved by key, moved by
// chat ID, or why none are a chat's). A collection added without saying
// so fails here. On the old code there was no such rule: held notices,
// fates and kept settings stayed at the old key.
func TestEveryCollectionSaysHowAChatMoves(t *testing.T) {
	colls := storeCollections(t)
	require.NotEmpty(t, colls)
	for _, name := range colls {
		rule, ok := chatRecords[name]
		require.True(t, ok, "collection %q: add it to chatRecords (chatmove.go) with how a chat's records in it move to its supergroup, or why none are a chat's", name)
		n := 0
		for _, set := range []bool{rule.byKey != nil, rule.byChat != nil, rule.why != ""} {
			if set {
				n++
			}
		}
		require.Equal(t, 1, n, "collection %q: one of byKey, byChat, why", name)
	}
	for name := range chatRecords {
		require.Contains(t, colls, name, "chatRecords names a collection the store does not have")
	}
}

// storeCollections reads the collection names the package's sources
// declare: every string constant named col<Something>.
func storeCollections(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		file, err := parser.ParseFile(fset, f, src, 0)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			vs, ok := n.(*ast.ValueSpec)
			if !ok {
				return true
			}
			for i, id := range vs.Names {
				if !strings.HasPrefix(id.Name, "col") || len(id.Name) < 4 || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING && id.Name[3] >= 'A' && id.Name[3] <= 'Z' {
					v, err := strconv.Unquote(lit.Value)
					require.NoError(t, err)
					out = append(out, v)
				}
			}
			return true
		})
	}
	sort.Strings(out)
	return out
}
