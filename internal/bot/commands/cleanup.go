package commands

import (
	"context"
	"strconv"
	"strings"
	"time"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
)

// In a channel, what an admin posts to configure the bot, and the bot's
// replies, reach every reader: they are deleted after a while. Pending
// deletions are kept in MongoDB (store.ScheduleDeletion) and swept by
// Sweep, so a restart of the bot does not leave them posted for good.

// cleanupRule says when a channel's configuration posts go.
type cleanupRule struct {
	after    time.Duration // a command and its replies
	keyboard time.Duration // a /settings keyboard (Done removes it sooner)
}

// Sweeping.
const (
	sweepBatch       = 50
	deleteRetryAfter = 30 * time.Second
	deleteAttempts   = 10
)

// cleanInChannels: in a channel, the command and its replies are
// deleted after the rule's time, and the replies say so and how to
// configure the channel from a private chat instead.
func cleanInChannels(next commandFunc) commandFunc {
	return func(h *handler, ctx context.Context, r *request) {
		if !r.channel || r.msg == nil || h.cleanup.after <= 0 {
			next(h, ctx, r)
			return
		}
		r.cleanup = h.cleanup.after
		next(h, ctx, r)
		ids := append([]int{r.msg.ID}, r.sent...)
		if err := h.st.ScheduleDeletion(ctx, r.chatID, ids, h.now().Add(r.cleanup)); err != nil {
			h.log.Warn("schedule the deletion of a channel's configuration posts", "chat_id", r.chatID, "err", err)
		}
	}
}

// cleanupNote ends a reply in a channel, in c's language: when it goes,
// and how to configure the channel from a private chat.
func cleanupNote(c i18n.Catalog, chat models.Chat, after time.Duration) string {
	ref := strconv.FormatInt(chat.ID, 10)
	if chat.Username != "" {
		ref = "@" + chat.Username
	}
	return "<i>" + cleanupIn(c, after, message.Escape(ref)) + "</i>"
}

// cleanupIn says when the posts go ("in a minute", "in 10 minutes", "in
// 30 seconds"), a whole sentence per unit: the unit's word and where it
// goes differ by language.
func cleanupIn(c i18n.Catalog, d time.Duration, ref string) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return c.N("misc.cleanup.minutes", int(d/time.Minute), "Ref", ref)
	case d < time.Second:
		return c.T("misc.cleanup.moment", "Ref", ref)
	}
	return c.N("misc.cleanup.seconds", int(d.Round(time.Second)/time.Second), "Ref", ref)
}

// Sweep deletes the channel posts that are due, every interval, until ctx
// ends.
func (x *Handler) Sweep(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		x.h.sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// sweep deletes what is due now. A message gone already, too old to
// delete, or in a chat the bot left is forgotten; other failures are
// tried again later, a few times.
func (h *handler) sweep(ctx context.Context) {
	due, err := h.st.DueDeletions(ctx, h.now(), sweepBatch)
	if err != nil {
		if ctx.Err() == nil {
			h.log.Warn("read due channel deletions", "err", err)
		}
		return
	}
	for _, d := range due {
		_, err := h.api.DeleteMessage(ctx, &tgbot.DeleteMessageParams{ChatID: d.ChatID, MessageID: d.MessageID})
		if err != nil && !deletionImpossible(err) && d.Attempts+1 < deleteAttempts {
			h.log.Info("deleteMessage failed; trying again later", "chat_id", d.ChatID, "err", h.redact(err.Error()))
			if err := h.st.PostponeDeletion(ctx, d, h.now().Add(deleteRetryAfter)); err != nil {
				h.log.Warn("postpone a channel deletion", "err", err)
			}
			continue
		}
		if err != nil {
			h.log.Info("channel post not deleted", "chat_id", d.ChatID, "err", h.redact(err.Error()))
		}
		if err := h.st.DeletionDone(ctx, d.ChatID, d.MessageID); err != nil {
			h.log.Warn("forget a channel deletion", "err", err)
		}
	}
}

// deletionImpossible: trying again would not help.
func deletionImpossible(err error) bool {
	s := err.Error()
	for _, p := range []string{"message to delete not found", "message can't be deleted", "chat not found", "Forbidden", "forbidden"} {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
