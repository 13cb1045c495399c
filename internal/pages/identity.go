package pages

import (
	"fmt"
	"slices"
)

// A page's identity (docs/pages.md, "A page's identity"): a page is the URL
// the operator configured. Its record, kept by the store, has an ID given
// once (the name it was first listed under, or that name with a number
// when the ID is taken) that names its documents, events and followers for
// good; its name is a label the operator may change. Resolve is the rule
// that matches the configured list with the records, as a plain function.

// Record is what the store keeps of a page it has seen listed.
type Record struct {
	// ID names the page's documents and events (its key), for good.
	ID string
	// Name is the name it was last listed under.
	Name string
	// URL is the URL it was last configured with.
	URL string
}

// Change is one change of the list against the records.
type Change struct {
	// ID is the record's ID.
	ID string
	// Name and URL are the page's now; FromName and FromURL before (empty
	// when the change is not of them).
	Name, URL, FromName, FromURL string
}

// Resolution says which record each listed page is, and what changed.
type Resolution struct {
	// IDs maps each listed page's name to its record's ID.
	IDs map[string]string
	// Renamed: same URL, another name. Everything carries over.
	Renamed []Change
	// Repointed: a name listed before with another URL, whose old URL is
	// no longer listed. The name's followers keep following it, but the
	// page is new: its checkpoint is dropped and it baselines silently.
	Repointed []Change
	// Added: a page never listed (its ID is new).
	Added []Change
	// Removed: records that no listed page is.
	Removed []Record
}

// Resolve matches the list with the records: a listed page is the record of
// its URL (a rename when the name differs); else the record last listed
// under its name, when that record's URL is listed by no page (the name
// was pointed at another URL); else a new record, whose ID is its name or,
// when a record has that ID, the name with "-2", "-3"... Records no listed
// page took are removed.
func Resolve(list []Page, recs []Record) Resolution {
	res := Resolution{IDs: make(map[string]string, len(list))}
	used := make(map[string]bool, len(recs))
	byID := make(map[string]Record, len(recs))
	for _, r := range recs {
		byID[r.ID] = r
	}
	listedURL := func(u string) bool {
		return slices.ContainsFunc(list, func(p Page) bool { return SameURL(p.URL, u) })
	}
	// claim gives p the first record not taken that ok accepts.
	claim := func(p Page, ok func(Record) bool) (Record, bool) {
		i := slices.IndexFunc(recs, func(r Record) bool { return !used[r.ID] && ok(r) })
		if i < 0 {
			return Record{}, false
		}
		used[recs[i].ID] = true
		res.IDs[p.Name] = recs[i].ID
		return recs[i], true
	}
	var pending, added []Page
	for _, p := range list {
		r, ok := claim(p, func(r Record) bool { return SameURL(r.URL, p.URL) })
		switch {
		case !ok:
			pending = append(pending, p)
		case r.Name != p.Name:
			res.Renamed = append(res.Renamed, Change{ID: r.ID, Name: p.Name, URL: p.URL, FromName: r.Name})
		}
	}
	for _, p := range pending {
		r, ok := claim(p, func(r Record) bool { return r.Name == p.Name && !listedURL(r.URL) })
		if !ok {
			added = append(added, p)
			continue
		}
		res.Repointed = append(res.Repointed, Change{ID: r.ID, Name: p.Name, URL: p.URL, FromURL: r.URL})
	}
	for _, p := range added {
		id := freeID(p.Name, func(id string) bool {
			_, rec := byID[id]
			return rec || slices.Contains(mapValues(res.IDs), id)
		})
		res.IDs[p.Name] = id
		res.Added = append(res.Added, Change{ID: id, Name: p.Name, URL: p.URL})
	}
	for _, r := range recs {
		if !used[r.ID] {
			res.Removed = append(res.Removed, r)
		}
	}
	return res
}

// freeID is name, or name cut and numbered ("name-2"), that taken refuses.
func freeID(name string, taken func(string) bool) string {
	if !taken(name) {
		return name
	}
	for n := 2; ; n++ {
		suffix := fmt.Sprintf("-%d", n)
		base := name
		if len(base)+len(suffix) > MaxNameLen {
			base = base[:MaxNameLen-len(suffix)]
		}
		for len(base) > 0 && base[len(base)-1] == '-' {
			base = base[:len(base)-1]
		}
		if id := base + suffix; !taken(id) {
			return id
		}
	}
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
