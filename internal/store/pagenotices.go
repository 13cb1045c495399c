package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

// A change of the page list that chats are told of (docs/pages.md, "What
// chats are told"): a name pointed at another URL, a page removed. The
// process that records the change writes one notice (its _id follows from
// the page's key and the list's version, so every worker that starts with
// that list writes the same one); a workflow per notice
// (workflows.PageNoticeWorkflow) walks the page's followers, and each
// chat's claim, by notice and subscription key, says it was told: once,
// whichever worker tells it and however often it is restarted.

// colPageNotices holds the notices (_id: the notice's ID) and the claims of
// the chats told (_id: notice ID "|" subscription key).
const colPageNotices = "page_notices"

// Kinds of page notice.
const (
	PageRepointed = "repointed"
	PageRemoved   = "removed"
)

// PageNotice is one change chats are told of.
type PageNotice struct {
	ID   string `bson:"_id"`
	Kind string `bson:"kind"`
	// Page is the page's key (event.Event.Page; "" the legacy page).
	Page string `bson:"page"`
	// Name is the page's name; FromHost and Host the hosts of its URL
	// before and after (a repoint), or its URL's (a removal). Hosts only:
	// a URL's path or query may hold credentials.
	Name     string    `bson:"name"`
	FromHost string    `bson:"from_host,omitempty"`
	Host     string    `bson:"host,omitempty"`
	At       time.Time `bson:"at"`
	// Cards are a removed page's incidents open when it was removed
	// (scoped, as cards name them): a follower's pinned card of one is
	// unpinned when the follower is told. At most maxNoticeCards.
	Cards []string `bson:"cards,omitempty"`
	// Done: every follower was told; After is the followers' cursor
	// (ListFollowers) of the chats told so far.
	Done  bool   `bson:"done"`
	After string `bson:"after,omitempty"`
}

// PageNoticeID is the notice's ID: its kind, the page's key and the
// version of the list that made the change (no chat ID, no URL: it names
// the notice's workflow).
func PageNoticeID(kind, key, listVersion string) string {
	k := key
	if k == "" {
		k = "#legacy"
	}
	return kind + "/" + k + "/" + listVersion
}

// NoticeVersion is a short digest for PageNoticeID when no list version is
// at hand (a list never recorded).
func NoticeVersion(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func (s *Store) pageNotices() *mongo.Collection { return s.db.Collection(colPageNotices) }

// AddPageNotice records a notice; one recorded already (another worker, or
// a start-up cut short) stays as it is.
func (s *Store) AddPageNotice(ctx context.Context, n PageNotice) error {
	n.Done, n.After = false, ""
	if _, err := s.pageNotices().InsertOne(ctx, n); err != nil && !mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("mongodb: record a page notice: %w", err)
	}
	return nil
}

// PendingPageNotices are the notices not yet told to every follower.
func (s *Store) PendingPageNotices(ctx context.Context) ([]PageNotice, error) {
	return findAll[PageNotice](ctx, s.pageNotices(), "read the page notices", bson.D{{Key: "done", Value: false}},
		options.Find().SetSort(bson.D{{Key: "at", Value: 1}, {Key: "_id", Value: 1}}))
}

// PageNoticeByID reads a notice (nil: none).
func (s *Store) PageNoticeByID(ctx context.Context, id string) (*PageNotice, error) {
	return findOne[PageNotice](ctx, s.pageNotices(), "read a page notice", bson.D{{Key: "_id", Value: id}, {Key: "kind", Value: bson.D{{Key: "$exists", Value: true}}}})
}

// AdvancePageNotice records the followers' cursor after a batch told, and
// whether every follower was.
func (s *Store) AdvancePageNotice(ctx context.Context, id, after string, done bool) error {
	if _, err := s.pageNotices().UpdateOne(ctx, bson.D{{Key: "_id", Value: id}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "after", Value: after}, {Key: "done", Value: done}}}}); err != nil {
		return fmt.Errorf("mongodb: record a page notice's progress: %w", err)
	}
	return nil
}

// pageClaim says a chat is being told a notice (Sending) or was.
type pageClaim struct {
	ID      string    `bson:"_id"`
	Notice  string    `bson:"notice"`
	Sub     string    `bson:"sub"`
	Sending bool      `bson:"sending"`
	At      time.Time `bson:"at"`
}

// PageClaimStale is how long a claim being sent holds: far longer than
// one attempt of the telling activity, so a claim this old is of a worker
// that died mid-send.
const PageClaimStale = 2 * time.Minute

func pageClaimID(notice, sub string) string { return notice + "|" + sub }

// ClaimPageNotice claims telling the chat the notice: false when it was
// told, or another worker is telling it now. A claim left sending by a
// worker that died (older than PageClaimStale) is taken over: the chat may
// then hear it twice, never not at all.
func (s *Store) ClaimPageNotice(ctx context.Context, notice, sub string, now time.Time) (bool, error) {
	c := pageClaim{ID: pageClaimID(notice, sub), Notice: notice, Sub: sub, Sending: true, At: now}
	_, err := s.pageNotices().InsertOne(ctx, c)
	if err == nil {
		return true, nil
	}
	if !mongo.IsDuplicateKeyError(err) {
		return false, fmt.Errorf("mongodb: claim a page notice: %w", err)
	}
	res, err := s.pageNotices().UpdateOne(ctx, bson.D{{Key: "_id", Value: c.ID}, {Key: "sending", Value: true},
		{Key: "at", Value: bson.D{{Key: "$lt", Value: now.Add(-PageClaimStale)}}}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "at", Value: now}}}})
	if err != nil {
		return false, fmt.Errorf("mongodb: claim a page notice: %w", err)
	}
	return res.ModifiedCount == 1, nil
}

// SettlePageNotice ends a claim: told (or never to be: the chat is gone)
// keeps it for good; otherwise (nothing was sent: the chat's turn had not
// come, Telegram asked to wait) it is released for the next attempt.
func (s *Store) SettlePageNotice(ctx context.Context, notice, sub string, told bool) error {
	var err error
	if told {
		_, err = s.pageNotices().UpdateOne(ctx, bson.D{{Key: "_id", Value: pageClaimID(notice, sub)}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "sending", Value: false}}}})
	} else {
		_, err = s.pageNotices().DeleteOne(ctx, bson.D{{Key: "_id", Value: pageClaimID(notice, sub)}})
	}
	if err != nil {
		return fmt.Errorf("mongodb: settle a page notice: %w", err)
	}
	return nil
}

// PageNoticeTold reports whether the chat was told the notice.
func (s *Store) PageNoticeTold(ctx context.Context, notice, sub string) (bool, error) {
	c, err := findOne[pageClaim](ctx, s.pageNotices(), "read a page notice's claim", bson.D{{Key: "_id", Value: pageClaimID(notice, sub)}})
	return c != nil && !c.Sending, err
}

// movePageClaims carries a chat's claims to its supergroup's key, so that
// a notice whose walk reaches the supergroup later does not tell it again.
func (s *Store) movePageClaims(ctx context.Context, oldKey, newKey string, _ time.Time) error {
	claims, err := findAll[pageClaim](ctx, s.pageNotices(), "read a chat's page notices", bson.D{{Key: "sub", Value: oldKey}})
	if err != nil {
		return err
	}
	for _, c := range claims {
		moved := c
		moved.ID, moved.Sub = pageClaimID(c.Notice, newKey), newKey
		if _, err := s.pageNotices().InsertOne(ctx, moved); err != nil && !mongo.IsDuplicateKeyError(err) {
			return fmt.Errorf("mongodb: move a page notice's claim: %w", err)
		}
		if _, err := s.pageNotices().DeleteOne(ctx, bson.D{{Key: "_id", Value: c.ID}}); err != nil {
			return fmt.Errorf("mongodb: move a page notice's claim: %w", err)
		}
	}
	return nil
}

// maxNoticeCards bounds a notice's open incidents (a page lists its
// recent incidents, open ones are few).
const maxNoticeCards = 50

// OpenIncidents are the page's incidents its last snapshot shows open,
// as cards name them (pages.Scope by the key): read before a removed
// page's snapshot goes, for the notice.
func (s *Store) OpenIncidents(ctx context.Context, key string) ([]string, error) {
	snap, err := s.PageDocs(key).LatestSnapshot(ctx)
	if err != nil || snap == nil {
		return nil, err
	}
	var out []string
	for _, inc := range snap.Page.Incidents {
		if inc.ResolvedAt == nil && len(out) < maxNoticeCards {
			out = append(out, pages.Scope(key, inc.ID))
		}
	}
	return out, nil
}
