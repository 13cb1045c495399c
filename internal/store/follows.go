package store

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/openai-status-bot/statusbot/internal/pages"
)

// Which pages a chat follows (docs/pages.md). The subscription holds them in
// a multikey array, pages, as events name them: "" for the legacy page
// (pages.Followed). A page's fan-out reads its followers by the equality
// pages = <event page> beside the bucket's (indexes {pages, b<level>, _id}):
// FerretDB v1 pushes `{pages: v}` down as `_jsonb->'pages' @> v`, which
// PostgreSQL answers for an array holding v, from the GIN companion of the
// index (tools/devdb). A page's fan-out decodes its followers' buckets only,
// never the chats of other pages, and the legacy page's is today's read with
// one more equality that every legacy follower passes.
//
// Why not a page_follows collection: a fan-out would read the follows of a
// bucket and then the subscriptions of those keys (two round trips a page
// where there is one), and every follow and unfollow would write two
// collections that FerretDB cannot change together.
const fieldPages = "pages"

// SetDefaultPage sets the page new chats follow, as events name it ("" for
// the legacy page, the zero value). Set once, before the store is used.
func (s *Store) SetDefaultPage(eventPage string) { s.defaultPage = eventPage }

func (s *Store) newChatPage() string { return s.defaultPage }

// SetOffered sets the pages on offer, as events name them: a restore of
// kept settings (Restart) follows only those. Unset: every page kept.
// Set once, before the store is used.
func (s *Store) SetOffered(eventPages []string) { s.offered = eventPages }

// restorable is what a restored subscription follows, and its filter
// without the entries of the pages it can no longer follow.
func (s *Store) restorable(stored, filter []string) ([]string, []string) {
	if s.offered == nil {
		return pages.Followed(stored), filter
	}
	kept, dropped := pages.Restorable(stored, func(ep string) bool { return slices.Contains(s.offered, ep) }, s.defaultPage)
	for _, ep := range dropped {
		filter = pages.WithoutPage(filter, ep)
	}
	return kept, filter
}

// followerIndexes serve a page's fan-out at each bucket level and its
// reminders (reminders.go).
func followerIndexes() []mongo.IndexModel {
	var out []mongo.IndexModel
	for _, l := range bucketLevels {
		out = append(out, mongo.IndexModel{Keys: bson.D{{Key: fieldPages, Value: 1}, {Key: bucketField(l), Value: 1}, {Key: "_id", Value: 1}}})
	}
	return append(out, mongo.IndexModel{Keys: bson.D{{Key: fieldPages, Value: 1}, {Key: fieldReminderLead, Value: 1}, {Key: "_id", Value: 1}}})
}

// followersOf selects a page's followers.
func followersOf(eventPage string) bson.D {
	return bson.D{{Key: fieldPages, Value: eventPage}}
}

// ListFollowers pages the subscribers that follow the event page, as
// ListSubscribers pages them all: in bucket order from "" (the level chosen
// by the page's own followers), in key order from a key (a legacy delivery
// paging since before buckets). A delivery begun before pages carries on
// with its cursor among the legacy page's followers, in the same order.
func (s *Store) ListFollowers(ctx context.Context, eventPage, after string, limit int) ([]Subscriber, string, error) {
	if after == "" || isBucketCursor(after) {
		return s.pageByBucketsOf(ctx, followersOf(eventPage), after, limit)
	}
	return s.pageSubscribers(ctx, "list followers", followersOf(eventPage), after, limit)
}

// FollowPage adds the event page to what the subscription follows and
// returns the list; false when it followed it already. The bot handles one
// chat's commands one at a time, so reading and writing the list loses
// nothing (FerretDB loses concurrent $push to one document).
func (s *Store) FollowPage(ctx context.Context, key, eventPage string) ([]string, bool, error) {
	sub, err := s.Subscription(ctx, key)
	if err != nil {
		return nil, false, err
	}
	list, added := pages.Follow(sub.Pages, eventPage)
	if !added {
		return list, false, nil
	}
	return list, true, s.updateSub(ctx, key, bson.D{{Key: "$set", Value: bson.D{{Key: fieldPages, Value: list}}}})
}

// UnfollowPage removes the event page from what the subscription follows,
// with the page's entries of the component filter (they would filter
// nothing, and would come back to life if the chat followed it again). It
// returns the list and whether it changed; pages.ErrLastPage for the only
// page followed.
func (s *Store) UnfollowPage(ctx context.Context, key, eventPage string) ([]string, bool, error) {
	sub, err := s.Subscription(ctx, key)
	if err != nil {
		return nil, false, err
	}
	list, removed, err := pages.Unfollow(sub.Pages, eventPage)
	if err != nil || !removed {
		return list, false, err
	}
	set := bson.D{{Key: fieldPages, Value: list}}
	if rest := pages.WithoutPage(sub.Components, eventPage); len(rest) != len(sub.Components) {
		set = append(set, bson.E{Key: "components", Value: rest})
	}
	return list, true, s.updateSub(ctx, key, bson.D{{Key: "$set", Value: set}})
}

// fillFollows records the legacy page on subscriptions that follow no page
// (written before pages, or by a bot not yet upgraded): at start-up,
// idempotent, in batches of one update each.
func (s *Store) fillFollows(ctx context.Context) error {
	const batch = 1000
	missing := bson.D{{Key: fieldPages + ".0", Value: bson.D{{Key: "$exists", Value: false}}}}
	for {
		rows, err := findAll[bson.M](ctx, s.subs(), "find subscriptions without pages", missing,
			options.Find().SetLimit(batch).SetProjection(bson.D{{Key: "_id", Value: 1}}))
		if err != nil || len(rows) == 0 {
			return err
		}
		keys := make([]any, len(rows))
		for i, r := range rows {
			keys[i] = r["_id"]
		}
		filter := append(bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: keys}}}}, missing...)
		if _, err := s.subs().UpdateMany(ctx, filter, bson.D{{Key: "$set", Value: bson.D{{Key: fieldPages, Value: []string{""}}}}}); err != nil {
			return fmt.Errorf("mongodb: fill in followed pages: %w", err)
		}
		if len(rows) < batch {
			return nil
		}
	}
}

// ChangeFollow follows (on) or leaves the event page as the pages on offer
// now are (the bot's commands and Pages screen): pages removed from the
// offer leave the list with any change, and leaving the last page the bot
// still watches is pages.ErrLastPage. It returns the list and whether the
// page's follow changed.
func (s *Store) ChangeFollow(ctx context.Context, key, eventPage string, on bool, o pages.Offer) ([]string, bool, error) {
	sub, err := s.Subscription(ctx, key)
	if err != nil {
		return nil, false, err
	}
	var list []string
	var changed bool
	if on {
		if list, changed = pages.Follow(sub.Pages, eventPage); changed {
			list = o.Live(list)
		}
	} else if list, changed, err = o.UnfollowLive(sub.Pages, eventPage); err != nil {
		return list, false, err
	}
	if !changed {
		return list, false, nil
	}
	filter := sub.Components
	for _, ep := range pages.Followed(sub.Pages) {
		if !slices.Contains(list, ep) {
			filter = pages.WithoutPage(filter, ep)
		}
	}
	set := bson.D{{Key: fieldPages, Value: list}}
	if len(filter) != len(sub.Components) {
		set = append(set, bson.E{Key: "components", Value: filter})
	}
	return list, true, s.updateSub(ctx, key, bson.D{{Key: "$set", Value: set}})
}
