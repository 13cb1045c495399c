package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/config"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/worker"
	"github.com/openai-status-bot/statusbot/workflows"
)

// DeliveriesQuery finds deliveries that need an operator's eye.
const DeliveriesQuery = "WorkflowType = 'DeliveryWorkflow' AND (ExecutionStatus = 'Running' OR ExecutionStatus = 'Failed')"

// listDeliveries prints deliveries in progress, backing off or failed, with
// their pending counts and last error, from Temporal visibility.
func listDeliveries(ctx context.Context, cfg *config.Config, log *slog.Logger, w io.Writer) error {
	c, err := worker.Dial(cfg, log)
	if err != nil {
		return err
	}
	defer c.Close()
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKFLOW ID\tSTATUS\tSTATE\tPENDING\tFAILED\tLAST ERROR")
	var token []byte
	n := 0
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: DeliveriesQuery, NextPageToken: token, PageSize: 100})
		if err != nil {
			return fmt.Errorf("temporal: list deliveries: %w", err)
		}
		for _, ex := range resp.GetExecutions() {
			id := ex.GetExecution().GetWorkflowId()
			state, pending, failed, lastErr := "", "", "", ""
			if sa := ex.GetSearchAttributes().GetIndexedFields(); sa != nil {
				state = payloadString(sa[workflows.AttrDeliveryState.GetName()].GetData())
				pending = payloadString(sa[workflows.AttrPendingCount.GetName()].GetData())
				failed = payloadString(sa[workflows.AttrFailedCount.GetName()].GetData())
			}
			// A closed delivery answers too (a worker replays it).
			if v, err := c.QueryWorkflow(ctx, id, "", activities.ProgressQuery); err == nil {
				var p workflows.Progress
				if v.Get(&p) == nil {
					state = p.State
					pending, failed = fmt.Sprint(p.Pending), fmt.Sprint(p.Failed)
					lastErr = p.LastError
				}
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", id, ex.GetStatus().String(), state, pending, failed, truncate(lastErr, 80))
			n++
		}
		token = resp.GetNextPageToken()
		if len(token) == 0 {
			break
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "%d delivery(ies). Details: temporal workflow describe -w <WORKFLOW ID>\n", n)
	return nil
}

// BackingOffQuery finds running deliveries that wait between retry bursts.
const BackingOffQuery = "WorkflowType = 'DeliveryWorkflow' AND ExecutionStatus = 'Running' AND DeliveryState = 'backing_off'"

// backingOffDeliveries counts them and finds the oldest one's start for
// the metrics (SQL visibility cannot sort, so it pages; at most 1000).
func backingOffDeliveries(c client.Client) metrics.BackingOffFunc {
	return func(ctx context.Context) (int, time.Time, error) {
		var token []byte
		n, oldest := 0, time.Time{}
		for range 10 {
			resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: BackingOffQuery, NextPageToken: token, PageSize: 100})
			if err != nil {
				return 0, time.Time{}, err
			}
			for _, ex := range resp.GetExecutions() {
				n++
				if st := ex.GetStartTime().AsTime(); oldest.IsZero() || st.Before(oldest) {
					oldest = st
				}
			}
			if token = resp.GetNextPageToken(); len(token) == 0 {
				break
			}
		}
		return n, oldest, nil
	}
}

func payloadString(b []byte) string {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
