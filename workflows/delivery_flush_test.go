package workflows_test

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/openai-status-bot/statusbot/activities"
	"github.com/openai-status-bot/statusbot/workflows"
)

// The ledger is written while the window's sends go on: at every write
// the window is full again, the next batch out before the write and not
// after it. Before, one batch was out during each write; on a loaded
// machine the write outlasted it and the fan-out stalled (5 workers at
// 25 a second: 17 stalls, 0.947 of the limit; issue 29, item 7).
func TestLedgerIsWrittenWithTheWindowFull(t *testing.T) {
	const batch, window, n = 2, 4, 40 // a ledger write every two windows: 8 outcomes
	d := newDeliveryEnv(t)
	d.SetTestTimeout(time.Minute) // the waits below are real time
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%02d", i)
	}
	d.pages(activities.RecipientPage{Recipients: recipients(keys...)})
	var started atomic.Int64
	d.batchStarted = func() { started.Add(1) }
	var writes, full, recorded int // the writes come one at a time
	d.recording = func(in activities.RecordInput) {
		recorded += len(in.Keys)
		// The window full: the batches written, and the window's behind them.
		want := int64(min(recorded/batch+window/batch, n/batch))
		deadline := time.Now().Add(2 * time.Second) // the batch's start is in another goroutine
		for started.Load() < want && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		writes++
		if started.Load() >= want {
			full++
		} else {
			t.Logf("a ledger write of %d outcomes (%d in all) with %d batches out of %d started", len(in.Keys), recorded, started.Load(), want)
		}
	}
	d.ExecuteWorkflow(workflows.DeliveryWorkflow, workflows.DeliveryInput{Event: componentEvent("c1", "major_outage", t0),
		Tuning: workflows.Tuning{BatchSize: batch, WindowSize: window, PageSize: n}})
	require.NoError(t, d.GetWorkflowError())
	require.ElementsMatch(t, keys, d.recorded, "each told once and recorded")
	require.GreaterOrEqual(t, writes, 4, "the ledger written as the fan-out goes")
	require.Equal(t, writes, full, "every ledger write with the window full")
}
