package commands

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/bot/pageset"
	"github.com/openai-status-bot/statusbot/internal/bot/screens"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// maxFilter bounds a subscription's component filter.
const maxFilter = 50

// subscription returns nil (no error) when the chat is not subscribed.
func (h *handler) subscription(ctx context.Context, r *request) (*store.Subscriber, error) {
	sub, err := h.st.Subscription(ctx, r.key())
	if errors.Is(err, store.ErrNotSubscribed) {
		return nil, nil
	}
	return sub, err
}

// subscribed reads this chat's subscription; when there is none, or the
// store fails, it has already answered and reports false.
func (h *handler) subscribed(ctx context.Context, r *request) (*store.Subscriber, bool) {
	sub, err := h.subscription(ctx, r)
	if err != nil {
		h.storeFailed(ctx, r, err)
		return nil, false
	}
	if sub == nil && r.about != nil {
		h.reply(ctx, r, channelNotSubscribedIn(h.lang(ctx, r), r.about))
		return nil, false
	}
	if sub == nil {
		h.reply(ctx, r, NotSubscribedIn(h.lang(ctx, r), r.topic(), r.channel))
		return nil, false
	}
	return sub, true
}

// names maps component IDs to names for showing a filter; nil when the
// filter is empty or the page is unavailable (IDs are shown then).
func (h *handler) names(ctx context.Context, sub *store.Subscriber) map[string]string {
	if sub == nil || len(sub.Components) == 0 {
		return nil
	}
	pv, err := h.pages.Get(ctx, Covered(h.offer, sub, ""), pageset.Components)
	if err != nil || pv.Page.ComponentsErr != "" {
		return nil
	}
	return screens.ComponentNames(screens.Components(pv.Page))
}

func (h *handler) cmdSubscribe(ctx context.Context, r *request) {
	if name, ok := ParsePageArg(r.cmd.Args); ok {
		h.changePages(ctx, r, name, true)
		return
	}
	req, problem := parseSubscribe(r.cmd.Args)
	switch req.Op {
	case SubShow:
		sub, err := h.subscription(ctx, r)
		if err != nil {
			h.storeFailed(ctx, r, err)
			return
		}
		h.reply(ctx, r, subscribeUsageIn(h.lang(ctx, r), sub, h.names(ctx, sub), r.topic(), r.channel)+pagesHelpIn(h.lang(ctx, r), h.offer))
		return
	case SubInvalid:
		c := h.lang(ctx, r)
		h.reply(ctx, r, problem.In(c)+"\n\n"+SubscribeHelpIn(c)+pagesHelpIn(c, h.offer))
		return
	}
	if !h.allowed(ctx, r) {
		return
	}
	if req.Op == SubKinds {
		err := h.st.SetKinds(ctx, r.key(), req.Kinds)
		switch {
		case errors.Is(err, store.ErrNotSubscribed):
			h.reply(ctx, r, NotSubscribedIn(h.lang(ctx, r), r.topic(), r.channel))
		case err != nil:
			h.storeFailed(ctx, r, err)
		default:
			h.reply(ctx, r, kindsReplyIn(h.lang(ctx, r), req.Kinds))
		}
		return
	}
	// Component filter: the subscription is read to resolve what the
	// user names; the change itself is one atomic update, so a change
	// made meanwhile (elsewhere) is not lost.
	sub, ok := h.subscribed(ctx, r)
	if !ok {
		return
	}
	switch req.Op {
	case SubClearComponents:
		if err := h.setFilter(ctx, r, nil); err == nil {
			h.reply(ctx, r, h.lang(ctx, r).T("sub.cleared"))
		}
	case SubAddComponent:
		h.addFilter(ctx, r, req.Query)
	case SubRemoveComponent:
		h.removeFilter(ctx, r, sub, req.Query)
	}
}

func (h *handler) setFilter(ctx context.Context, r *request, ids []string) error {
	err := h.st.SetComponents(ctx, r.key(), ids)
	switch {
	case errors.Is(err, store.ErrNotSubscribed):
		h.reply(ctx, r, NotSubscribedIn(h.lang(ctx, r), r.topic(), r.channel))
	case err != nil:
		h.storeFailed(ctx, r, err)
	}
	return err
}

func (h *handler) addFilter(ctx context.Context, r *request, q string) {
	// "/subscribe component github API": among one page's components.
	typed, q := SplitPageArg(h.offer, q)
	if typed != "" {
		if sub, err := h.subscription(ctx, r); err == nil && sub != nil && !pages.Follows(sub.Pages, h.offer.EventPage(typed)) {
			h.reply(ctx, r, h.lang(ctx, r).T("follow.followFirst."+placeKey(r.topic(), r.channel), "Name", message.Escape(typed)))
			return
		}
	}
	pv, ok := h.page(ctx, r, h.cover(ctx, r, typed), pageset.Components)
	if !ok {
		return
	}
	comps := screens.Components(pv.Page)
	res := ResolveIn(comps, pv.Parts, q)
	switch {
	case len(res.Ambiguous) > 0:
		h.askWhich(ctx, r, q, res.Ambiguous, pv, opAddComponent)
		return
	case res.Match == nil:
		h.reply(ctx, r, notFoundReplyIn(h.lang(ctx, r), q))
		return
	}
	c, cat := *res.Match, h.lang(ctx, r)
	names := screens.ComponentNames(comps)
	ids, err := h.st.AddComponent(ctx, r.key(), c.ID, maxFilter)
	switch {
	case errors.Is(err, store.ErrInFilter):
		h.reply(ctx, r, cat.T("sub.inFilter", "Name", screens.EscName(names[c.ID])))
	case errors.Is(err, store.ErrFilterFull):
		h.reply(ctx, r, cat.T("sub.full", "Max", maxFilter))
	case errors.Is(err, store.ErrNotSubscribed):
		h.reply(ctx, r, NotSubscribedIn(h.lang(ctx, r), r.topic(), r.channel))
	case err != nil:
		h.storeFailed(ctx, r, err)
	default:
		h.reply(ctx, r, cat.T("sub.added", "Name", screens.EscName(names[c.ID]), "List", screens.FilterListIn(cat, ids, names)))
	}
}

func (h *handler) removeFilter(ctx context.Context, r *request, sub *store.Subscriber, q string) {
	typed, q := SplitPageArg(h.offer, q)
	i := filterIndex(sub.Components, q)
	var names map[string]string
	pv, err := h.pages.Get(ctx, Covered(h.offer, sub, typed), pageset.Components)
	if err == nil && pv.Page.ComponentsErr == "" {
		comps := screens.Components(pv.Page)
		names = screens.ComponentNames(comps)
		if i < 0 {
			res := ResolveIn(comps, pv.Parts, q)
			if len(res.Ambiguous) > 0 {
				// Only the ones in the filter can be meant.
				var in []int
				for _, c := range res.Ambiguous {
					if j := slices.Index(sub.Components, c.ID); j >= 0 {
						in = append(in, j)
					}
				}
				if len(in) == 1 {
					i = in[0]
				} else if len(in) > 1 {
					h.reply(ctx, r, ambiguousReplyIn(h.lang(ctx, r), q, res.Ambiguous, names, false))
					return
				}
			} else if res.Match != nil {
				i = slices.Index(sub.Components, res.Match.ID)
			}
		}
	}
	cat := h.lang(ctx, r)
	if i < 0 {
		if len(sub.Components) == 0 {
			h.reply(ctx, r, cat.T("sub.notInEmptyFilter", "Query", escEcho(q)))
		} else {
			h.reply(ctx, r, cat.T("sub.notInFilter", "Query", escEcho(q), "List", screens.FilterListIn(cat, sub.Components, names)))
		}
		return
	}
	removed := sub.Components[i]
	ids, err := h.st.RemoveComponent(ctx, r.key(), removed)
	switch {
	case errors.Is(err, store.ErrNotSubscribed):
		h.reply(ctx, r, NotSubscribedIn(h.lang(ctx, r), r.topic(), r.channel))
		return
	case errors.Is(err, store.ErrNotInFilter):
		// Removed meanwhile: the outcome asked for.
	case err != nil:
		h.storeFailed(ctx, r, err)
		return
	}
	label := removed
	if n, ok := names[removed]; ok {
		label = n
	}
	h.reply(ctx, r, cat.T("sub.removed", "Name", screens.EscName(label), "List", screens.FilterListIn(cat, ids, names)))
}

// askWhich answers a name several components match with a button for
// each (op: what a tap does with it) and their names as shown, which can
// be typed back.
func (h *handler) askWhich(ctx context.Context, r *request, q string, found []statuspage.Component, pv pageset.View, op string) {
	idx := screens.IndexPage(pv.Page)
	var rows [][]models.InlineKeyboardButton
	for _, c := range found {
		for ci, ic := range idx.Comps {
			if ic.ID == c.ID {
				data := screens.Callback{Op: op, Args: []string{strconv.Itoa(ci)}, Tok: idx.Tok}.Encode()
				rows = append(rows, []models.InlineKeyboardButton{{Text: screens.CutButton(idx.Names[c.ID]), CallbackData: data}})
				break
			}
		}
	}
	h.replyMarkup(ctx, r, h.withStale(ctx, r, ambiguousReplyIn(h.lang(ctx, r), q, found, idx.Names, true), pv), &models.InlineKeyboardMarkup{InlineKeyboard: rows})
}

func (h *handler) storeFailed(ctx context.Context, r *request, err error) {
	h.log.Warn("store", "command", r.cmd.Name, "chat_id", r.chatID, "err", err)
	h.reply(ctx, r, h.lang(ctx, r).T("reply.storeError"))
}
