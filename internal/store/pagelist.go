package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

// The list of pages one worker started with is recorded with a version
// (in the pages collection, "#list"), so that workers started with
// different STATUS_PAGES are told apart instead of fighting: a list never
// recorded is adopted as the next version (an operator's change); a list
// the record has superseded is an older worker's, which says so (start-up
// log, /readyz) and changes no page record and no Schedule.

const listRecordID = "#list"

// maxSuperseded bounds the lists remembered as superseded.
const maxSuperseded = 50

type listRecord struct {
	ID         string    `bson:"_id"`
	Version    int64     `bson:"version"`
	Digest     string    `bson:"digest"`
	List       string    `bson:"list"` // pages.Format: names and URLs, as configured
	By         string    `bson:"by"`
	At         time.Time `bson:"at"`
	Superseded []string  `bson:"superseded,omitempty"`
}

// ListState is how a worker's list compares with the recorded one.
type ListState struct {
	// Version is the recorded list's.
	Version int64
	// Adopted: this call recorded the list (new, or a new version).
	Adopted bool
	// Stale: the list is one the record superseded; nothing is written.
	Stale bool
	// By and At say who recorded the current version, and when.
	By string
	At time.Time
}

func listDigest(list []pages.Page) string {
	norm := make([]pages.Page, len(list))
	for i, p := range list {
		norm[i] = pages.Page{Name: p.Name, URL: pages.NormalURL(p.URL), Provider: p.Provider}
	}
	h := sha256.Sum256([]byte(pages.Format(norm)))
	return hex.EncodeToString(h[:12])
}

// recordList compares the list with the recorded one and records it when
// it is new (compare-and-set on the version).
func (s *Store) recordList(ctx context.Context, list []pages.Page, now time.Time) (ListState, error) {
	digest := listDigest(list)
	by, _ := os.Hostname()
	for range 5 {
		rec, err := findOne[listRecord](ctx, s.db.Collection(colPages), "read the recorded page list", bson.D{{Key: "_id", Value: listRecordID}})
		if err != nil {
			return ListState{}, err
		}
		if rec != nil && rec.Digest == digest {
			return ListState{Version: rec.Version, By: rec.By, At: rec.At}, nil
		}
		if rec != nil && slices.Contains(rec.Superseded, digest) {
			return ListState{Version: rec.Version, Stale: true, By: rec.By, At: rec.At}, nil
		}
		next := listRecord{ID: listRecordID, Version: 1, Digest: digest, List: pages.Format(list), By: by, At: now}
		if rec == nil {
			_, err = s.db.Collection(colPages).InsertOne(ctx, next)
			if mongo.IsDuplicateKeyError(err) {
				continue
			}
			if err != nil {
				return ListState{}, fmt.Errorf("mongodb: record the page list: %w", err)
			}
			return ListState{Version: 1, Adopted: true, By: by, At: now}, nil
		}
		next.Version = rec.Version + 1
		next.Superseded = append(slices.Clone(rec.Superseded), rec.Digest)
		if len(next.Superseded) > maxSuperseded {
			next.Superseded = next.Superseded[len(next.Superseded)-maxSuperseded:]
		}
		res, err := s.db.Collection(colPages).ReplaceOne(ctx, bson.D{{Key: "_id", Value: listRecordID}, {Key: "version", Value: rec.Version}}, next)
		if err != nil {
			return ListState{}, fmt.Errorf("mongodb: record the page list: %w", err)
		}
		if res.MatchedCount == 1 {
			return ListState{Version: next.Version, Adopted: true, By: by, At: now}, nil
		}
	}
	return ListState{}, fmt.Errorf("mongodb: record the page list: changed by others five times in a row")
}

// PagesAgree is nil while the list is the recorded one; else an error for
// /readyz saying which version is recorded (names and hosts only).
func (s *Store) PagesAgree(ctx context.Context, list []pages.Page) error {
	rec, err := findOne[listRecord](ctx, s.db.Collection(colPages), "read the recorded page list", bson.D{{Key: "_id", Value: listRecordID}})
	if err != nil || rec == nil || rec.Digest == listDigest(list) {
		return err
	}
	return fmt.Errorf("STATUS_PAGES differs from the page list recorded as version %d (by %s at %s): "+
		"this worker changes no Schedule and no page record; give every worker the same STATUS_PAGES",
		rec.Version, rec.By, rec.At.UTC().Format(time.RFC3339))
}
