package commands

import (
	"context"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/openai-status-bot/statusbot/internal/i18n"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/pages"
)

// command is one row of the command table, which feeds dispatching, /help
// and the command menus (setMyCommands per scope).
type command struct {
	name string
	// args is shown in /help after the name: syntax as typed, or argsKey,
	// words of the chat's language.
	args    string
	argsKey string
	// The /help line and menu description is message "cmd.<name>".
	// admin: the command changes the chat's subscription, so in groups
	// only administrators may use it (the handler checks with allowed);
	// group members' menu leaves it out.
	admin bool
	run   commandFunc
}

// commandFunc answers one command.
type commandFunc func(h *handler, ctx context.Context, r *request)

// middleware wraps a command's handler, as go-telegram/bot's
// middlewares wrap its handlers: what every command (or every admin
// command) needs is said once.
type middleware func(next commandFunc) commandFunc

// handler is the row's handler wrapped in the middlewares every
// command gets: counted. (An admin command's replies turn urgent at the
// admin check, allowed: what comes before it, a usage error or a
// refusal, anyone can cause.)
func (c *command) handler() commandFunc {
	return counted(c.name)(c.run)
}

// counted times each command (metrics).
func counted(name string) middleware {
	return func(next commandFunc) commandFunc {
		return func(h *handler, ctx context.Context, r *request) {
			defer metrics.Command(name)()
			next(h, ctx, r)
		}
	}
}

// adminsOnly runs the command only for those who may change the chat's
// subscription (allowed answers the others).
func adminsOnly(next commandFunc) commandFunc {
	return func(h *handler, ctx context.Context, r *request) {
		if h.allowed(ctx, r) {
			next(h, ctx, r)
		}
	}
}

// commands is the command table, in /help order. Set in init: /help's
// handler reads the table.
var commands []command

func init() {
	commands = []command{
		{name: "start", admin: true, run: cleanInChannels(adminsOnly((*handler).cmdStart))},
		{name: "stop", admin: true, run: cleanInChannels(adminsOnly((*handler).cmdStop))},
		{name: "status", argsKey: "args.status", run: (*handler).cmdStatus},
		{name: "components", run: (*handler).cmdComponents},
		{name: "subscribe", admin: true, run: cleanInChannels((*handler).cmdSubscribe)},
		{name: "unsubscribe", argsKey: "args.unsubscribe", admin: true, run: cleanInChannels((*handler).cmdUnsubscribe)},
		{name: "settings", args: "[test | @channel | channels]", admin: true, run: cleanInChannels(aboutChannel((*handler).cmdSettings))},
		{name: "history", argsKey: "args.history", run: (*handler).cmdHistory},
		{name: "uptime", run: (*handler).cmdUptime},
		{name: "info", args: "[@channel]", run: cleanInChannels(aboutChannel((*handler).cmdInfo))},
		{name: "why", args: "[@channel]", run: cleanInChannels(aboutChannel((*handler).cmdWhy))},
		{name: "help", run: func(h *handler, ctx context.Context, r *request) { h.reply(ctx, r, HelpIn(h.lang(ctx, r), h.offer)) }},
	}
}

// HelpFor is HelpIn in English.
func HelpFor(offer pages.Offer) string { return HelpIn(en, offer) }

// HelpIn is HelpTextIn, naming the pages when several are on offer.
func HelpIn(c i18n.Catalog, offer pages.Offer) string {
	if len(offer.List) < 2 {
		return HelpTextIn(c)
	}
	names := make([]string, len(offer.List))
	for i, p := range offer.List {
		names[i] = p.Name
	}
	return HelpTextIn(c) + "\n" + c.T("help.offer", "Pages", message.Escape(strings.Join(names, ", ")))
}

func lookupCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// argsIn is the command's arguments as /help shows them.
func (c *command) argsIn(cat i18n.Catalog) string {
	if c.argsKey != "" {
		return cat.T(c.argsKey)
	}
	return c.args
}

// HelpText is HelpTextIn in English.
func HelpText() string { return HelpTextIn(en) }

// HelpTextIn answers /help: every command, and who may use which.
func HelpTextIn(cat i18n.Catalog) string {
	lines := []string{cat.T("help.title")}
	for i := range commands {
		c := &commands[i]
		l := "/" + c.name
		if a := c.argsIn(cat); a != "" {
			l += " " + a
		}
		lines = append(lines, l+" — "+cat.T("cmd."+c.name))
	}
	lines = append(lines, "", cat.T("help.pages"), cat.T("help.groups"), cat.T("help.channels"))
	return strings.Join(lines, "\n")
}

// menuScope is one setMyCommands call: a scope and who in it may use
// admin commands.
type menuScope struct {
	scope  models.BotCommandScope
	admins bool
}

// MenuScopes: private chats and group administrators get every command,
// group members the read-only ones. The default scope (channels, and
// clients that ignore scopes) gets everything.
var MenuScopes = []menuScope{
	{scope: &models.BotCommandScopeDefault{}, admins: true},
	{scope: &models.BotCommandScopeAllPrivateChats{}, admins: true},
	{scope: &models.BotCommandScopeAllGroupChats{}, admins: false},
	{scope: &models.BotCommandScopeAllChatAdministrators{}, admins: true},
}

// Menu is MenuIn in English.
func Menu(admins bool) []models.BotCommand { return MenuIn(en, admins) }

// MenuIn is the command menu for a scope in a language: admins false
// leaves out the commands that change the subscription.
func MenuIn(cat i18n.Catalog, admins bool) []models.BotCommand {
	var out []models.BotCommand
	for i := range commands {
		c := &commands[i]
		if c.admin && !admins {
			continue
		}
		d := cat.T("cmd." + c.name)
		if a := c.argsIn(cat); a != "" {
			d += ": /" + c.name + " " + a
		}
		out = append(out, models.BotCommand{Command: c.name, Description: capitalize(d)})
	}
	return out
}

// SetMenus registers the menus of every scope: English for every
// language without a catalog, then each other catalog's for the users
// whose Telegram language it is (language_code: a two-letter ISO 639-1
// code, so one call per catalog with one; pt-BR is "pt", zh-Hans "zh").
func SetMenus(ctx context.Context, api *tgbot.Bot) error {
	for _, code := range MenuLanguages() {
		cat := i18n.Of(i18n.Match(code))
		for _, m := range MenuScopes {
			p := &tgbot.SetMyCommandsParams{Commands: MenuIn(cat, m.admins), Scope: m.scope, LanguageCode: code}
			if _, err := api.SetMyCommands(ctx, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// MenuLanguages are the language_codes SetMenus sets a menu for: ""
// (English, for every language without a catalog), then each other
// catalog's.
func MenuLanguages() []string {
	out := []string{""}
	for _, l := range i18n.Languages {
		if code := menuCode(l.Tag); l.Tag != i18n.Default && code != "" {
			out = append(out, code)
		}
	}
	return out
}

// menuCode is the language_code setMyCommands takes for a catalog: its
// ISO 639-1 language ("" when it has none).
func menuCode(tag string) string {
	base, _, _ := strings.Cut(tag, "-")
	if len(base) != 2 {
		return ""
	}
	return strings.ToLower(base)
}
