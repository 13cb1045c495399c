package commands

import (
	"context"
	"strings"

	tgbot "github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"
	"github.com/openai-status-bot/statusbot/internal/message"
	"github.com/openai-status-bot/statusbot/internal/metrics"
	"github.com/openai-status-bot/statusbot/internal/pages"
)

// command is one row of the command table, which feeds dispatching, /help
// and the command menus (setMyCommands per scope).
type command struct {
	name string
	args string // shown in /help after the name
	help string // /help line and menu description
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
		{name: "start", help: "subscribe this chat (or forum topic) to status notices", admin: true, run: cleanInChannels(adminsOnly((*handler).cmdStart))},
		{name: "stop", help: "unsubscribe", admin: true, run: cleanInChannels(adminsOnly((*handler).cmdStop))},
		{name: "status", args: "[component]", help: "overall status, or one component's status", run: (*handler).cmdStatus},
		{name: "components", help: "every component and its status", run: (*handler).cmdComponents},
		{name: "subscribe", help: "show or change notice types and the component filter", admin: true, run: cleanInChannels((*handler).cmdSubscribe)},
		{name: "unsubscribe", args: "page name", help: "stop following one status page (/stop ends every notice)", admin: true, run: cleanInChannels((*handler).cmdUnsubscribe)},
		{name: "settings", args: "[test | @channel | channels]", help: "notice types, components, severity, quiet hours, time zone, cards (buttons); test: a test notice", admin: true, run: cleanInChannels(aboutChannel((*handler).cmdSettings))},
		{name: "history", args: "[count]", help: "recent incidents (default 5, at most 10)", run: (*handler).cmdHistory},
		{name: "uptime", help: "uptime per component over 24 hours, 7 days and 30 days", run: (*handler).cmdUptime},
		{name: "info", args: "[@channel]", help: "this chat's subscription and settings", run: cleanInChannels(aboutChannel((*handler).cmdInfo))},
		{name: "why", args: "[@channel]", help: "what became of the last notices: sent, silent, withheld (by which setting) or waiting", run: cleanInChannels(aboutChannel((*handler).cmdWhy))},
		{name: "help", help: "this list", run: func(h *handler, ctx context.Context, r *request) { h.reply(ctx, r, HelpFor(h.offer)) }},
	}
}

// HelpFor is HelpText, naming the pages when several are on offer.
func HelpFor(offer pages.Offer) string {
	if len(offer.List) < 2 {
		return HelpText()
	}
	names := make([]string, len(offer.List))
	for i, p := range offer.List {
		names[i] = p.Name
	}
	return HelpText() + "\nPages on offer: " + message.Escape(strings.Join(names, ", ")) + "."
}

func lookupCommand(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func HelpText() string {
	lines := []string{"<b>OpenAI status bot</b>"}
	for _, c := range commands {
		l := "/" + c.name
		if c.args != "" {
			l += " " + c.args
		}
		lines = append(lines, l+" — "+c.help)
	}
	lines = append(lines, "", "With several status pages on offer: /subscribe page &lt;name&gt; follows one more; /status, /components, /history and /uptime take a page's name first and otherwise cover the chat's pages.",
		"In groups only administrators can /start, /stop or change /subscribe and /settings.",
		"A channel's settings are changed here, in a private chat: /settings @channel (or its ID); its readers see nothing. "+
			"/settings channels lists the channels you changed.")
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

// Menu is the command menu for a scope: admins false leaves out the
// commands that change the subscription.
func Menu(admins bool) []models.BotCommand {
	var out []models.BotCommand
	for _, c := range commands {
		if c.admin && !admins {
			continue
		}
		d := c.help
		if c.args != "" {
			d += ": /" + c.name + " " + c.args
		}
		out = append(out, models.BotCommand{Command: c.name, Description: capitalize(d)})
	}
	return out
}

// SetMenus registers the menus of every scope.
func SetMenus(ctx context.Context, api *tgbot.Bot) error {
	for _, m := range MenuScopes {
		if _, err := api.SetMyCommands(ctx, &tgbot.SetMyCommandsParams{Commands: Menu(m.admins), Scope: m.scope}); err != nil {
			return err
		}
	}
	return nil
}
