package workflows

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/openai-status-bot/statusbot/activities"
)

// setup registers the progress query and the operator Updates. They are
// handled at every point of the delivery, the wait for earlier updates
// included; the delivery waits for running handlers before it continues as
// new or returns.
func (d *delivery) setup(ctx workflow.Context) error {
	if err := workflow.SetQueryHandler(ctx, activities.ProgressQuery, func() (*Progress, error) { return d.progress(), nil }); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateSkip, d.skip, workflow.UpdateHandlerOptions{
		Validator:   d.validateSkip,
		Description: "Skip one subscriber (input: its key, chatID or chatID:threadID): it will not get this event.",
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateRetryNow, d.retryNow, workflow.UpdateHandlerOptions{
		Validator:   d.validateRetryNow,
		Description: "Retry every pending subscriber now instead of after the backoff.",
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, activities.UpdateSupersede, d.supersede, workflow.UpdateHandlerOptions{
		Validator:   d.validateSupersede,
		Description: "Internal: a newer update of the story takes this waiting one over (input: its event key).",
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, activities.UpdateHandOver, d.takeHandOver, workflow.UpdateHandlerOptions{
		Validator:   d.validateHandOver,
		Description: "Internal: a newer update of the story, told from now on with this one to the chats not reached yet.",
	}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, UpdateGiveUp, d.giveUp, workflow.UpdateHandlerOptions{
		Validator:   d.validateGiveUp,
		Description: "Give up the delivery: subscribers not reached yet count as failed.",
	})
}

func (d *delivery) validateOpen() error {
	if d.finished {
		return errors.New("the delivery has finished")
	}
	if d.st.GaveUp {
		return errors.New("the delivery was given up")
	}
	return nil
}

func (d *delivery) validateSkip(_ workflow.Context, key string) error {
	if err := validSubscriberKey(key); err != nil {
		return err
	}
	if err := d.validateOpen(); err != nil {
		return err
	}
	if slices.Contains(d.st.SkipKeys, key) {
		return fmt.Errorf("subscriber %s is skipped already", key)
	}
	if len(d.st.SkipKeys) >= maxSkipKeys {
		return fmt.Errorf("%d subscribers are skipped already: give up the delivery instead", maxSkipKeys)
	}
	return nil
}

// validSubscriberKey rejects what cannot be a key ("chatID" or
// "chatID:threadID"); whether the subscriber is pending is the handler's
// question (it reads MongoDB).
func validSubscriberKey(key string) error {
	if key == "" || len(key) > 64 || strings.ContainsAny(key, " \t\n\"'") {
		return fmt.Errorf("%q is not a subscriber key (chatID or chatID:threadID)", key)
	}
	return nil
}

// skip leaves one subscriber out and says where it stood.
func (d *delivery) skip(ctx workflow.Context, key string) (string, error) {
	st := d.st
	c := d.step(30*time.Second, "Skip subscriber "+key)
	var out activities.SkipOutcome
	if err := workflow.ExecuteActivity(c, a.SkipSubscriber, activities.SkipInput{EventKey: d.e.Key, Key: key}).Get(ctx, &out); err != nil {
		return "", err
	}
	if out.Delivered {
		return "", temporal.NewNonRetryableApplicationError("subscriber "+key+" already got this notification: nothing to skip", "SkipRejected", nil)
	}
	queued := slices.IndexFunc(st.Queue, func(r activities.Retry) bool { return r.Recipient.Key == key })
	switch {
	case slices.Contains(st.InFlight, key):
		st.SkipKeys = append(st.SkipKeys, key)
		return "skipped: its send is in flight; if it fails it is not retried", nil
	case queued >= 0:
		st.Queue = slices.Delete(st.Queue, queued, queued+1)
	case out.WasPending:
	case !out.Subscribed:
		return "", temporal.NewNonRetryableApplicationError("no subscriber "+key+" is pending in this delivery", "SkipRejected", nil)
	case st.FirstPassDone:
		return "", temporal.NewNonRetryableApplicationError("subscriber "+key+" is not pending: removed, failed, skipped or not a recipient of this event", "SkipRejected", nil)
	default:
		// Not read yet: dropped when its page comes.
		st.SkipKeys = append(st.SkipKeys, key)
		return "skipped: it will be left out when its page of subscribers is read", nil
	}
	st.Skipped++
	if out.WasPending {
		st.PendingCount--
		workflow.GetLogger(ctx).Info("operator skipped a pending subscriber", "subscriber", key)
		return fmt.Sprintf("skipped: it was pending after %d failed burst(s); last error: %s", out.Bursts, out.LastError), nil
	}
	return "skipped before it was tried", nil
}

func (d *delivery) validateRetryNow(workflow.Context) error {
	if err := d.validateOpen(); err != nil {
		return err
	}
	if d.st.PendingCount == 0 {
		return errors.New("no subscriber is pending a retry")
	}
	return nil
}

func (d *delivery) retryNow(ctx workflow.Context) (string, error) {
	d.st.RetryAll = true
	workflow.GetLogger(ctx).Info("operator asked to retry now", "pending", d.st.PendingCount)
	if !d.st.FirstPassDone {
		return fmt.Sprintf("%d pending subscriber(s) will be retried as soon as every subscriber has been tried once", d.st.PendingCount), nil
	}
	return fmt.Sprintf("retrying %d pending subscriber(s) now", d.st.PendingCount), nil
}

func (d *delivery) validateGiveUp(workflow.Context) error { return d.validateOpen() }

func (d *delivery) giveUp(ctx workflow.Context) (string, error) {
	st := d.st
	st.GaveUp = true
	workflow.GetLogger(ctx).Info("operator gave up the delivery", "pending", d.pendingCount())
	msg := fmt.Sprintf("giving up: %d subscriber(s) not reached count as failed", d.pendingCount())
	if !st.FirstPassDone && !st.PagesDone {
		msg += ", and so do the pages of subscribers not read yet"
	}
	if len(st.InFlight) > 0 {
		msg += fmt.Sprintf("; %d send(s) in flight finish first", len(st.InFlight))
	}
	return msg, nil
}
