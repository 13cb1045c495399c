package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// What one reminder's recipients cost at 20,000 subscribers, 50 of them
// reminded 15 minutes ahead (the rest on the default 60), pages of 500:
// the reminder's own listing, and the pass over every subscriber it
// replaces. Reported per reminder: pages, subscribers read, round trips.
//
//	go test ./internal/store/ -run '^$' -bench BenchmarkReminderRecipients -benchtime 1x
func BenchmarkReminderRecipients(b *testing.B) {
	const n, wanting, pageSize = 20_000, 50, 500
	ctx := context.Background()
	st, db := testenv.StoreAndDatabase(b)
	for i := 0; i < n; i += 1000 {
		docs := make([]any, 0, 1000)
		for chat := i; chat < i+1000; chat++ {
			lead := 60
			if chat%(n/wanting) == 7 {
				lead = 15
			}
			docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprint(chat)}, {Key: "chat_id", Value: int64(chat)},
				{Key: "kinds", Value: event.DefaultKinds}, {Key: "components", Value: bson.A{}}, {Key: "created_at", Value: time.Now()},
				{Key: "reminder_lead", Value: lead}, {Key: "pages", Value: bson.A{""}}})
		}
		if _, err := db.Collection("subscriptions").InsertMany(ctx, docs); err != nil {
			b.Fatal(err)
		}
	}
	r := event.Reminder{Lead: 15 * time.Minute, Until: 60 * time.Minute}
	pass := func(b *testing.B, list func(after string) ([]store.Subscriber, string, error)) {
		pages, read := 0, 0
		rt0 := st.RoundTrips()
		b.ResetTimer()
		for range b.N {
			for cursor := ""; ; {
				subs, next, err := list(cursor)
				if err != nil {
					b.Fatal(err)
				}
				pages++
				read += len(subs)
				if next == "" {
					break
				}
				cursor = next
			}
		}
		b.ReportMetric(float64(pages)/float64(b.N), "pages/reminder")
		b.ReportMetric(float64(read)/float64(b.N), "subscribers-read/reminder")
		b.ReportMetric(float64(st.RoundTrips()-rt0)/float64(b.N), "round-trips/reminder")
	}
	b.Run("reminder_listing", func(b *testing.B) {
		pass(b, func(after string) ([]store.Subscriber, string, error) {
			return st.ListReminderSubscribers(ctx, "", r, []string{"api"}, after, pageSize)
		})
	})
	b.Run("every_subscriber", func(b *testing.B) {
		pass(b, func(after string) ([]store.Subscriber, string, error) {
			return st.ListSubscribers(ctx, after, pageSize)
		})
	})
}
