package message

import "unicode/utf8"

// OfPage names the status page a notice or card is of, in front of its
// first line, for a chat that follows several pages (page is the page's
// name; "" leaves the text as it is, as a chat of one page always read
// it). The text stays within MaxLength: what the name takes is cut from
// the text's end.
func OfPage(html, page string) string {
	if page == "" {
		return html
	}
	prefix := "<b>" + Escape(page) + "</b> · "
	room := MaxLength - VisibleLength(prefix)
	if raw := MaxLength - utf8.RuneCountInString(prefix); raw < room {
		room = raw
	}
	return prefix + Truncate(html, room)
}
