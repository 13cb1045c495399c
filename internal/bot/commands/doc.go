// Package commands answers what users send the bot: the one command
// table (commands.go: names, help, menus; handlers wrapped by
// middlewares), each command's handler (status.go, subscribe.go,
// settings.go, welcome.go, testnotice.go), taps on keyboards
// (callback.go; the screens themselves are package screens), who may
// change a chat's subscription (access.go), replies and their texts
// (reply.go, redraw.go, format.go); every read of a status page goes
// through package pageset (cached, single-flight, failures remembered).
// The service around it (package bot) feeds it updates and paces what
// it sends.
package commands
