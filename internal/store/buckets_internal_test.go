package store

import (
	"strconv"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A page's keys (a few buckets of its level) are read at that level; keys
// from all over at the finest (about one key a read, never a scan of a
// coarse bucket); one key by itself.
func TestGroupKeys(t *testing.T) {
	var all []string
	for i := 0; i < 200_000; i++ {
		all = append(all, strconv.Itoa(100_000_000+i*48_611))
	}
	pageAt := func(level, buckets int) []string {
		var out []string
		for _, k := range all {
			if b := bucketOf(k, level); b < buckets {
				out = append(out, k)
			}
			if len(out) == 500 {
				break
			}
		}
		return out
	}
	cases := []struct {
		name       string
		keys       []string
		wantLevel  int
		maxQueries int
	}{
		{"a page at 1024", pageAt(1024, 3), 1024, 3},
		{"a page at 128", pageAt(128, 1), 128, 1},
		{"a page at 16", pageAt(16, 2), 16, 2},
		{"500 from all over", all[:500], 8192, 500},
		{"five from all over", []string{all[1], all[70_000], all[90_001], all[150_000], all[199_999]}, 8192, 5},
	}
	for _, c := range cases {
		level, groups := groupKeys(c.keys)
		if level != c.wantLevel || len(groups) > c.maxQueries {
			t.Errorf("%s: level %d with %d reads, want level %d with at most %d", c.name, level, len(groups), c.wantLevel, c.maxQueries)
		}
		n := 0
		for b, ks := range groups {
			for _, k := range ks {
				if bucketOf(k, level) != b {
					t.Errorf("%s: key %s in bucket %d, is in %d", c.name, k, b, bucketOf(k, level))
				}
			}
			n += len(ks)
		}
		if n != len(c.keys) {
			t.Errorf("%s: %d keys grouped, want %d", c.name, n, len(c.keys))
		}
	}
}

// The keys of a few pages (a ledger flush of two windows at a high rate)
// span more buckets than a page, each with many keys: they are read a
// bucket at a time, each read an equality on the bucket FerretDB hands its
// storage. On the old code they went into one $in with the story's key
// alone pushed down: every record of the story decoded, and a 100,000-chat
// fan-out at 1000 a second slowed from 555 to 146 messages a second by
// its fourth tenth. Keys from all over still take one $in.
func TestKeyFiltersReadSeveralPagesBucketByBucket(t *testing.T) {
	var all []string
	for i := 0; i < 100_000; i++ {
		all = append(all, strconv.Itoa(100_000_000+i*48_611))
	}
	var pages []string // two pages' worth of keys of 16 buckets at 1024
	for _, k := range all {
		if bucketOf(k, 1024) < 16 {
			pages = append(pages, k)
		}
	}
	if len(pages) < 1000 {
		t.Fatalf("%d keys in 16 buckets of 1024, want about 1,560", len(pages))
	}
	story := bson.D{{Key: "order_key", Value: "incident:x"}}
	fs := keyFilters(story, "sub", pages)
	if len(fs) < 16 || len(fs) > len(pages)/16 {
		t.Fatalf("%d reads for %d keys in 16 buckets, want one a bucket", len(fs), len(pages))
	}
	n := 0
	for _, f := range fs {
		if len(f) != 3 || f[0].Key != "order_key" || !strings.HasPrefix(f[1].Key, "b") {
			t.Fatalf("a read without its bucket's equality: %v", f)
		}
		in, _ := f[2].Value.(bson.D)
		keys, _ := in[0].Value.([]string)
		n += len(keys)
	}
	if n != len(pages) {
		t.Fatalf("%d keys read, want %d", n, len(pages))
	}
	if fs := keyFilters(story, "sub", all[:500]); len(fs) != 1 || len(fs[0]) != 2 {
		t.Fatalf("500 keys from all over: %d reads (%v), want one $in", len(fs), fs)
	}
}

func TestPagePos(t *testing.T) {
	k := "123456789"
	b := bucketOf(k, 128)
	cases := []struct {
		pos  pagePos
		want bool
	}{
		{pagePos{level: 128, bucket: b, after: k}, true},
		{pagePos{level: 128, bucket: b, after: "1234567890"}, true},
		{pagePos{level: 128, bucket: b, after: "12345678"}, false},
		{pagePos{level: 128, bucket: b + 1}, true},
		{pagePos{level: 128, bucket: b}, false},
		{pagePos{level: 1, bucket: 0, after: k}, true},
	}
	for _, c := range cases {
		if got := c.pos.covers(k); got != c.want {
			t.Errorf("%v covers %s: %v, want %v", c.pos, k, got, c.want)
		}
		back, err := parsePagePos(c.pos.String())
		if err != nil || back != c.pos {
			t.Errorf("%v: parsed back as %v (%v)", c.pos, back, err)
		}
	}
	for _, bad := range []string{"~", "~16/3", "~x/1/a", "~16/16/", "~0/0/", "~16/-1/a"} {
		if _, err := parsePagePos(bad); err == nil {
			t.Errorf("cursor %q: no error", bad)
		}
	}
}

func TestBucketsOfAgreesWithBucketOf(t *testing.T) {
	for _, k := range []string{"1", "-1001234567890", "42:7", ""} {
		b := BucketsOf(k)
		for level, got := range map[int]int{16: b.B16, 128: b.B128, 1024: b.B1024, 8192: b.B8192} {
			if bucketOf(k, level) != got {
				t.Errorf("%q at %d: %d, BucketsOf says %d", k, level, bucketOf(k, level), got)
			}
		}
	}
}
