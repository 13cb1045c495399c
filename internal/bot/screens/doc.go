// Package screens draws the /settings keyboard: one function per screen
// (Main, Kinds, Groups, Group, Severity, Quiet, Zones, Delivery), the
// callback_data its buttons carry (callbackdata.go), the page's
// components numbered for those buttons (pageindex.go), what a tap leads
// to and which change it asks for (taps.go), and how components and
// settings are named (names.go). Pure functions, no I/O: the commands
// package reads the store and the page, applies changes and sends.
package screens
