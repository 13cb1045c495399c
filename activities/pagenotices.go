package activities

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/notice"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/store"
	"github.com/openai-status-bot/statusbot/internal/telegram"
)

// Telling a page's followers that it changed (docs/pages.md, "What chats
// are told"): a name pointed at another URL, a page removed. The notice
// and each chat's claim live in MongoDB (store.PageNotice); the workflow
// (workflows.PageNoticeWorkflow) only calls TellPageNotice until it says
// every follower was told.

// PageNoticeInput names a notice (store.PageNoticeID).
type PageNoticeInput struct {
	Notice string `json:"notice"`
}

// PageNoticeResult says whether every follower was told, or when to come
// back (a chat's turn not come yet).
type PageNoticeResult struct {
	Done    bool      `json:"done"`
	RetryAt time.Time `json:"retry_at,omitempty"`
}

// pageNoticeBatch is how many followers one call reads.
const pageNoticeBatch = 50

// TellPageNotice tells one batch of the page's followers, each once: a
// chat is claimed before the send and the claim kept once Telegram took
// it (released when nothing was sent). A removed page is then left by
// every chat that follows another page too; a chat left with none keeps
// the name (so that its /settings and /status can say what it was) and is
// told how to choose a page.
func (a *Activities) TellPageNotice(ctx context.Context, in PageNoticeInput) (*PageNoticeResult, error) {
	n, err := a.Store.PageNoticeByID(ctx, in.Notice)
	if err != nil {
		return nil, err
	}
	if n == nil || n.Done {
		return &PageNoticeResult{Done: true}, nil
	}
	subs, next, err := a.Store.ListFollowers(ctx, n.Page, n.After, pageNoticeBatch)
	if err != nil {
		return nil, err
	}
	for _, sub := range subs {
		retryAt, err := a.tellPageFollower(ctx, *n, sub)
		if err != nil || !retryAt.IsZero() {
			return &PageNoticeResult{RetryAt: retryAt}, err
		}
		activity.RecordHeartbeat(ctx, sub.Key)
	}
	if err := a.Store.AdvancePageNotice(ctx, n.ID, next, next == ""); err != nil {
		return nil, err
	}
	return &PageNoticeResult{Done: next == ""}, nil
}

// tellPageFollower tells one chat, or says when its turn comes.
func (a *Activities) tellPageFollower(ctx context.Context, n store.PageNotice, sub store.Subscriber) (time.Time, error) {
	return a.tellPageFollowerOnce(ctx, n, sub, false)
}

// tellPageFollowerOnce is tellPageFollower; moved: sub is the supergroup a
// group moved to (moved once at most).
func (a *Activities) tellPageFollowerOnce(ctx context.Context, n store.PageNotice, sub store.Subscriber, moved bool) (time.Time, error) {
	log := activity.GetLogger(ctx)
	ok, err := a.Store.ClaimPageNotice(ctx, n.ID, sub.Key, a.now())
	if err != nil {
		return time.Time{}, err
	}
	if !ok {
		return a.settleRemoved(ctx, n, sub)
	}
	text := PageNoticeTextIn(i18n.Of(sub.Settings.Lang), n, a.Pages, sub.Pages)
	turnCtx := telegram.WithTurn(ctx, a.chatTurn(sub.ChatID, TicketOf(n.At, n.ID, sub.Key), telegram.BudgetOf(sub.ChatID), 0))
	err = a.Telegram.SendWith(turnCtx, sub.ChatID, sub.ThreadID, text, telegram.SendOptions{Silent: PageNoticeSilent(sub.Settings, a.now())})
	var se *telegram.SendError
	switch {
	case err == nil:
	case errors.As(err, &se) && (se.Outcome == telegram.NotYet || se.Outcome == telegram.RateLimited):
		// Nothing was sent: released for when the chat's turn comes.
		if err := a.Store.SettlePageNotice(ctx, n.ID, sub.Key, false); err != nil {
			return time.Time{}, err
		}
		at := se.RetryAt
		if at.IsZero() {
			at = a.now().Add(se.RetryAfter)
		}
		return at, nil
	case errors.As(err, &se) && se.Outcome == telegram.Migrated && se.MigrateTo != 0 && !moved:
		// The group became a supergroup: its records move there (the
		// walk may have passed its new key) and it is told there.
		if err := a.Store.SettlePageNotice(ctx, n.ID, sub.Key, false); err != nil {
			return time.Time{}, err
		}
		if _, err := a.Store.MigrateChatAt(ctx, sub.ChatID, se.MigrateTo, a.now()); err != nil {
			return time.Time{}, err
		}
		to := sub
		to.ChatID, to.Key = se.MigrateTo, store.SubscriberKey(se.MigrateTo, sub.ThreadID)
		return a.tellPageFollowerOnce(ctx, n, to, true)
	case errors.As(err, &se) && (se.Outcome == telegram.Terminal || se.Outcome == telegram.Permanent ||
		se.Outcome == telegram.Migrated || se.Outcome == telegram.Told):
		// Never to be told here (the chat is gone): the walk goes on.
		log.Info("page notice not sent to a chat", "subscriber", sub.Key, "outcome", string(se.Outcome))
	default:
		// Perhaps not sent: released, the activity is retried.
		if serr := a.Store.SettlePageNotice(ctx, n.ID, sub.Key, false); serr != nil {
			return time.Time{}, serr
		}
		return time.Time{}, err
	}
	if err := a.Store.SettlePageNotice(ctx, n.ID, sub.Key, true); err != nil {
		return time.Time{}, err
	}
	return a.settleRemoved(ctx, n, sub)
}

// PageNoticeSilent says whether a page notice goes without sound: in the
// chat's quiet hours, muted or held alike. It is news about the bot, not
// about a page: it rings nobody awake, and it is not kept for the morning
// summary either (the summary tells the page's stories; this says why they
// stop).
func PageNoticeSilent(s store.Settings, now time.Time) bool {
	if s.QuietStart == "" || s.QuietEnd == "" {
		return false
	}
	q := notice.Quiet{Start: s.QuietStart, End: s.QuietEnd, Zone: s.TimeZone}
	return q.Covers(now)
}

// settleRemoved settles a removed page for a chat told of it: its pinned
// cards of the page's open incidents are unpinned (no update will resolve
// them), then the page is left when the chat follows another page the bot
// watches. Each step is done again harmlessly by a retry.
func (a *Activities) settleRemoved(ctx context.Context, n store.PageNotice, sub store.Subscriber) (time.Time, error) {
	if n.Kind != store.PageRemoved {
		return time.Time{}, nil
	}
	for _, inc := range n.Cards {
		cards, err := a.Store.Cards(ctx, inc, []string{sub.Key})
		if err != nil {
			return time.Time{}, err
		}
		card, ok := cards[sub.Key]
		if !ok || !card.Pinned {
			continue
		}
		turnCtx := telegram.WithTurn(ctx, a.chatTurn(sub.ChatID, TicketOf(n.At, n.ID+"/unpin/"+inc, sub.Key), telegram.BudgetOf(sub.ChatID), 0))
		err = a.Telegram.Unpin(turnCtx, sub.ChatID, card.MessageID)
		var se *telegram.SendError
		switch {
		case err == nil:
		case errors.As(err, &se) && (se.Outcome == telegram.NotYet || se.Outcome == telegram.RateLimited):
			if se.RetryAt.IsZero() {
				return a.now().Add(se.RetryAfter), nil
			}
			return se.RetryAt, nil
		case errors.As(err, &se) && se.Outcome == telegram.Transient:
			return time.Time{}, err
		default:
			// Gone, not allowed, moved: nothing left to unpin here.
			activity.GetLogger(ctx).Info("a removed page's card not unpinned", "subscriber", sub.Key, "error", err)
		}
		card.Pinned = false
		if err := a.Store.SaveCard(ctx, card); err != nil {
			return time.Time{}, err
		}
	}
	if len(a.Pages.Live(sub.Pages)) == 0 {
		return time.Time{}, nil
	}
	_, _, err := a.Store.UnfollowPage(ctx, sub.Key, n.Page)
	if errors.Is(err, pages.ErrLastPage) || errors.Is(err, store.ErrNotSubscribed) {
		return time.Time{}, nil
	}
	return time.Time{}, err
}

// PageNoticeText is what a follower of the page is told (HTML): the page
// that changed, from what to what, and, for a removed page, what the chat
// still follows or how to choose a page.
func PageNoticeText(n store.PageNotice, o pages.Offer, stored []string) string {
	return PageNoticeTextIn(i18n.Of(i18n.Default), n, o, stored)
}

// PageNoticeTextIn is PageNoticeText in c's language (a chat's).
func PageNoticeTextIn(c i18n.Catalog, n store.PageNotice, o pages.Offer, stored []string) string {
	name := "<b>" + message.Escape(n.Name) + "</b>"
	switch n.Kind {
	case store.PageRepointed:
		return c.T("pageNotice.repointed", "Name", name, "Host", message.Escape(n.Host), "From", message.Escape(n.FromHost))
	}
	s := c.T("pageNotice.removed", "Name", name)
	if n.Host != "" {
		s = c.T("pageNotice.removedHost", "Name", name, "Host", message.Escape(n.Host))
	}
	live := o.LiveNames(stored)
	if len(live) > 0 {
		return s + "\n" + c.T("pageNotice.stillFollowed", "Pages", message.Escape(strings.Join(live, ", ")))
	}
	s += "\n" + c.T("pageNotice.none")
	switch len(o.List) {
	case 0:
		return s
	case 1:
		return s + " " + c.T("pageNotice.followOne", "Page", message.Escape(o.List[0].Name))
	}
	names := make([]string, len(o.List))
	for i, p := range o.List {
		names[i] = p.Name
	}
	return s + " " + c.T("pageNotice.choose", "Pages", message.Escape(strings.Join(names, ", ")))
}
