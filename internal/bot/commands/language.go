package commands

import (
	"context"
	"strings"

	"github.com/go-telegram/bot/models"

	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// en is the English catalog: the exported reply texts the tests compare
// against, and what a chat of unknown language reads.
var en = i18n.Of(i18n.Default)

// userLanguage is the catalog nearest to the sender's Telegram language
// ("" when the message has no user, as a channel's posts).
func userLanguage(m *models.Message) string {
	if m == nil || m.From == nil || m.From.IsBot || m.From.LanguageCode == "" {
		return ""
	}
	return i18n.Match(m.From.LanguageCode)
}

// lang is the catalog r's replies speak, resolved once per command.
func (h *handler) lang(ctx context.Context, r *request) i18n.Catalog {
	if !r.langDone {
		r.cat, r.langDone = h.chatLanguage(ctx, r), true
	}
	return r.cat
}

// chatLanguage: a subscribed chat speaks its stored language; a private
// chat that did not choose one in /settings follows its user's Telegram
// language, storing it when it changed. A command about a channel is
// answered here, in the user's language; a chat not subscribed hears the
// sender's language.
func (h *handler) chatLanguage(ctx context.Context, r *request) i18n.Catalog {
	user := userLanguage(r.msg)
	if r.about != nil {
		return i18n.Of(user)
	}
	// Not readOnce: that read is the one of the chat a command is about,
	// which the about middleware may change after this.
	sub, err := h.subscription(ctx, r)
	if err != nil || sub == nil {
		return i18n.Of(user)
	}
	tag := sub.Settings.Lang
	if r.private && !sub.Settings.LangChosen && user != "" && user != i18n.Of(tag).Tag() {
		if _, err := h.st.FollowLanguage(ctx, r.key(), stored(user)); err != nil {
			h.log.Warn("follow the user's language", "chat_id", r.chatID, "err", err)
		}
		tag = user
	}
	return i18n.Of(tag)
}

// startLanguage stores the language of a chat /start just subscribed: its
// user's in a private chat, the subscribing admin's in a group (a
// channel's posts carry no user: English). A restored subscription keeps
// the language it had.
func (h *handler) startLanguage(ctx context.Context, r *request, sub *store.Subscriber) {
	if sub.Settings.Lang != "" || sub.Settings.LangChosen {
		r.cat, r.langDone = i18n.Of(sub.Settings.Lang), true
		return
	}
	tag := userLanguage(r.msg)
	if stored(tag) == "" {
		r.cat, r.langDone = i18n.Of(tag), true
		return // English, the default: nothing to store
	}
	if after, err := h.st.ChangeSettings(ctx, r.key(), store.SetLanguage(tag, false)); err != nil {
		h.log.Warn("store a new chat's language", "chat_id", r.chatID, "err", err)
	} else {
		*sub = *after
	}
	r.cat, r.langDone = i18n.Of(tag), true
}

// stored is a language as the settings keep it: "" for English, the
// default, so that a chat's settings read as before languages.
func stored(tag string) string {
	if tag == i18n.Default {
		return ""
	}
	return tag
}

// placeKey is where a command came from, as message ids name it: each
// place has its own sentences (in many languages "this chat", "this
// topic" and "this channel" inflect differently).
func placeKey(topic, channel bool) string {
	switch {
	case topic:
		return "topic"
	case channel:
		return "channel"
	}
	return "chat"
}

// languageList names every catalog, for /settings language's errors.
func languageList() string {
	names := make([]string, len(i18n.Languages))
	for i, l := range i18n.Languages {
		names[i] = l.Tag + " (" + l.Name + ")"
	}
	return strings.Join(names, ", ")
}

// catalog is the language r's replies were written in: the chat's when
// a reply asked for it (lang), else the sender's.
func (r *request) catalog() i18n.Catalog {
	if r.langDone {
		return r.cat
	}
	return i18n.Of(userLanguage(r.msg))
}
