package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
)

// PageNoticeWorkflowID is the one workflow of a page notice
// (store.PageNoticeID: kind, page key and list version; no chat ID, no URL).
func PageNoticeWorkflowID(notice string) string { return "page-notice/" + notice }

// pageNoticeRounds bounds a run's history: after as many batches it
// continues as new (the cursor is in MongoDB, not in the input).
const pageNoticeRounds = 100

// PageNoticeWorkflow tells a changed page's followers, once each: it calls
// TellPageNotice, a batch of followers at a time, until every one was
// told, sleeping when a chat's turn has not come. What was told is in
// MongoDB (the notice's cursor and each chat's claim), so the workflow's
// state is the notice's ID whatever the number of followers, and a worker
// that dies mid-way leaves nothing told twice or left out.
func PageNoticeWorkflow(ctx workflow.Context, in activities.PageNoticeInput) error {
	var a *activities.Activities
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 2 * time.Minute, HeartbeatTimeout: 30 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute},
		Summary:     "Tell a changed page's followers",
	})
	for round := 0; round < pageNoticeRounds; round++ {
		var r activities.PageNoticeResult
		if err := workflow.ExecuteActivity(actx, a.TellPageNotice, in).Get(ctx, &r); err != nil {
			return err
		}
		if r.Done {
			return nil
		}
		if d := r.RetryAt.Sub(workflow.Now(ctx)); d > 0 {
			if err := workflow.Sleep(ctx, d); err != nil {
				return err
			}
		}
	}
	return workflow.NewContinueAsNewError(ctx, PageNoticeWorkflow, in)
}
