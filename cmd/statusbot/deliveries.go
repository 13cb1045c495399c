package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"

	"go.temporal.io/api/workflowservice/v1"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/internal/config"
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
