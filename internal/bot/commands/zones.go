package commands

import (
	_ "embed"
	"strings"
	"sync"
)

// zones.txt lists the IANA zone names of Go's tzdata (generated from
// $(go env GOROOT)/lib/time/zoneinfo.zip): typed names are looked up in
// it without regard to case, since "us/eastern" or "europe/isle_of_man"
// cannot be fixed by capitalising words.
//
//go:embed zones.txt
var zoneList string

var zoneIndex = sync.OnceValue(func() map[string]string {
	idx := map[string]string{}
	for _, z := range strings.Fields(zoneList) {
		idx[strings.ToLower(z)] = z
	}
	return idx
})

// zoneAbbreviations are abbreviations people type for a region's time.
// tzdata's EST, MST and HST are fixed offsets without daylight saving,
// which is rarely what "EST" means (New York is on EDT half the year);
// the others are not zones at all. Each means its region's zone, whose
// daylight saving follows the calendar.
var zoneAbbreviations = map[string]string{
	"est": "America/New_York", "edt": "America/New_York", "et": "America/New_York",
	"cst": "America/Chicago", "cdt": "America/Chicago", "ct": "America/Chicago",
	"mst": "America/Denver", "mdt": "America/Denver", "mt": "America/Denver",
	"pst": "America/Los_Angeles", "pdt": "America/Los_Angeles", "pt": "America/Los_Angeles",
	"akst": "America/Anchorage", "akdt": "America/Anchorage",
	"hst": "Pacific/Honolulu",
	"bst": "Europe/London", "cest": "Europe/Berlin",
	"aest": "Australia/Sydney", "aedt": "Australia/Sydney",
	"jst": "Asia/Tokyo", "kst": "Asia/Seoul",
}

// ResolveZone turns a typed zone into its IANA name. abbrev is set when
// an abbreviation was read as its region's zone; ok is false for a name
// tzdata does not know (the caller says so).
func ResolveZone(typed string) (name string, abbrev bool, ok bool) {
	low := strings.ToLower(strings.TrimSpace(typed))
	switch low {
	case "utc", "gmt", "z", "zulu", "etc/utc", "etc/gmt", "utc+0", "gmt+0":
		return "UTC", false, true
	}
	if z, found := zoneAbbreviations[low]; found {
		return z, true, true
	}
	if z, found := zoneIndex()[low]; found {
		return z, false, true
	}
	return strings.TrimSpace(typed), false, false
}
