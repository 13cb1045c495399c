package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/testenv"
)

// Each step of a story is a new version of the chats' records, written
// without an update (FerretDB scans the collection for each), and the
// older is deleted: one record per chat and story, the newest step.
func TestRecordToldKeepsOneRecordPerChatAndStory(t *testing.T) {
	st, db := testenv.StoreAndDatabase(t)
	ctx := context.Background()
	at := time.Now().UTC().Truncate(time.Millisecond)
	const story = "component:api"
	subs := []string{"1", "2", "3"}
	before := st.RoundTripsBy()
	require.NoError(t, st.RecordTold(ctx, store.Step{OrderKey: story, Event: "e1"}, subs, at))
	require.NoError(t, st.RecordTold(ctx, store.Step{OrderKey: story, Event: "e2", Seq: 1, Ends: true}, subs[:2], at.Add(time.Second)))
	after := st.RoundTripsBy()
	for name, n := range after {
		if name == "update told" || name == "findAndModify told" {
			require.Equal(t, before[name], n, "no update of a record")
		}
	}
	n, err := db.Collection("told").CountDocuments(ctx, bson.D{{Key: "order_key", Value: story}})
	require.NoError(t, err)
	require.Equal(t, int64(3), n, "one record per chat")
	told, err := st.ToldOf(ctx, story, subs)
	require.NoError(t, err)
	require.Equal(t, "e2", told["1"].LastEvent)
	require.False(t, told["1"].Open, "the story ended for chat 1")
	require.Equal(t, "e1", told["3"].LastEvent)
	require.True(t, told["3"].Open)
}
