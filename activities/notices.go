package activities

import (
	"context"
	"time"

	"github.com/openai-status-bot/statusbot/internal/event"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/store"
	"go.temporal.io/sdk/activity"
)

// PrepareMessage formats the event once and stores the text, so that send
// activities carry only the event key and the history stays small. The
// event is stored beside the text: a chat in another time zone gets the
// notice rendered again there (see noticeIn).
func (a *Activities) PrepareMessage(ctx context.Context, e event.Event) (int, error) {
	defer heartbeatWhile(ctx, sendHeartbeatEvery)() // a delivery's step
	text := message.Notification(e)
	if err := a.Store.SaveNotice(ctx, e, text, a.now()); err != nil {
		return 0, err
	}
	if err := a.prepareCard(ctx, e); err != nil {
		return 0, err
	}
	if err := a.prepareFold(ctx, e); err != nil {
		return 0, err
	}
	if line := message.TogetherLine(e); line != "" {
		if err := a.Store.SaveMessage(ctx, e.Key+togetherSuffix, line, a.now()); err != nil {
			return 0, err
		}
		a.cacheMessage(e.Key+togetherSuffix, line)
	}
	a.cacheMessage(e.Key, text)
	return len(text), nil
}

func (a *Activities) cacheMessage(key, text string) {
	a.msgMu.Lock()
	defer a.msgMu.Unlock()
	if a.messages == nil || len(a.messages) > 256 {
		a.messages = map[string]string{}
	}
	a.messages[key] = text
}

func (a *Activities) cached(key string) (string, bool) {
	a.msgMu.Lock()
	defer a.msgMu.Unlock()
	text, ok := a.messages[key]
	return text, ok
}

func (a *Activities) message(ctx context.Context, key string) (string, error) {
	if text, ok := a.cached(key); ok {
		return text, nil
	}
	// The sends of a batch that start together read it once.
	v, err, _ := a.reads.Do("message "+key, func() (any, error) {
		text, err := a.Store.Message(ctx, key)
		if err == nil {
			a.cacheMessage(key, text)
		}
		return text, err
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// noticeIn is the event's notice with its times in zone ("" is UTC) and
// its frame in lang ("" is English; package i18n): the stored text, or,
// for another zone or language, the stored event rendered there. A text
// stored without its event (prepared before zones applied to notices)
// stays in UTC and English.
//
// page names the event's page in front (message.OfPage) for a chat that
// follows several pages (Recipient.Page); "" leaves it out.
func (a *Activities) noticeIn(ctx context.Context, key, zone, lang, page string) (string, error) {
	text, err := a.noticeInZone(ctx, key, zone, lang)
	return message.OfPage(text, page), err
}

func (a *Activities) noticeInZone(ctx context.Context, key, zone, lang string) (string, error) {
	c := i18n.Of(lang)
	if zone == "" && c.Tag() == i18n.Default {
		return a.message(ctx, key)
	}
	cacheKey := key
	if c.Tag() != i18n.Default {
		cacheKey += "~" + c.Tag()
	}
	return a.inZone(ctx, cacheKey, zone, func(loc *time.Location) (string, error) {
		n, err := a.Store.Notice(ctx, key)
		if err != nil || n.Event == nil {
			return n.Text, err
		}
		return message.NotificationOf(c, *n.Event, loc), nil
	})
}

// inZone is the text cached under key rendered in zone, rendered once per
// worker and zone; a zone this worker does not know renders in UTC.
func (a *Activities) inZone(ctx context.Context, key, zone string, render func(*time.Location) (string, error)) (string, error) {
	key += "@" + zone
	if text, ok := a.cached(key); ok {
		return text, nil
	}
	loc, err := store.LoadZone(zone)
	if err != nil {
		activity.GetLogger(ctx).Warn("unknown time zone: sent in UTC", "zone", zone, "error", err)
		loc = time.UTC
	}
	text, err := render(loc)
	if err != nil {
		return "", err
	}
	a.cacheMessage(key, text)
	return text, nil
}

// togetherSuffix names the stored line, for /why, of the earlier steps an
// event tells too (event.FoldStories).
const togetherSuffix = "#together"

// togetherOf is that line; "" for an event that tells none (or when it
// cannot be read: /why then says less, the notice went out anyway).
func (a *Activities) togetherOf(ctx context.Context, eventKey string) string {
	if !keyIs(eventKey, event.KindIncident) && !keyIs(eventKey, event.KindMaintenance) {
		return ""
	}
	line, err := a.message(ctx, eventKey+togetherSuffix)
	if err != nil {
		a.cacheMessage(eventKey+togetherSuffix, "")
		return ""
	}
	return line
}
