package fakes

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The fake parses parse_mode HTML as the Bot API does (TDLib's
// parse_html, td/telegram/MessageEntity.cpp): the same tags, the same
// refusals with the same texts ("Bad Request: can't parse entities: ..."),
// and the date-time entity's rules: a format of r alone or of w, d/D, t/T
// (anything else: "Invalid date format used"); a unix time that is not a
// positive number makes no entity (the text stays as it is); one more than
// 1098 days ahead is refused by Telegram's servers with ENTITY_DATE_INVALID.

// DateTime is a date-time entity of a message the fake accepted.
type DateTime struct {
	Unix   int64
	Format string
	// Text is the fallback text inside the tag.
	Text string
}

// maxDateAhead is how far ahead a date-time entity may point.
const maxDateAhead = 1098 * 24 * time.Hour

var htmlTags = map[string]bool{"a": true, "b": true, "strong": true, "i": true, "em": true, "s": true, "strike": true,
	"del": true, "u": true, "ins": true, "tg-spoiler": true, "tg-emoji": true, "tg-time": true, "span": true, "pre": true,
	"code": true, "blockquote": true}

func parseError(format string, a ...any) *APIError {
	return &APIError{Code: 400, Description: "Bad Request: can't parse entities: " + fmt.Sprintf(format, a...)}
}

// ParseHTML checks an HTML message text as the Bot API parses it and
// returns its text and date-time entities, or the error Telegram answers.
func ParseHTML(text string, now time.Time) (string, []DateTime, *APIError) {
	type open struct {
		tag, arg, unix string
		at             int // byte offset in the result
	}
	var stack []open
	var out strings.Builder
	var times []DateTime
	n := len(text)
	at := func(i int) byte {
		if i < n {
			return text[i]
		}
		return 0
	}
	for i := 0; i < n; i++ {
		c := text[i]
		if c == '&' {
			if r, l := decodeEntity(text[i:]); l > 0 {
				out.WriteRune(r)
				i += l - 1
				continue
			}
		}
		if c != '<' {
			out.WriteByte(c)
			continue
		}
		begin := i
		i++
		if at(i) != '/' {
			for at(i) != 0 && !isSpace(at(i)) && at(i) != '>' {
				i++
			}
			if at(i) == 0 {
				return "", nil, parseError("Unclosed start tag at byte offset %d", begin)
			}
			tag := strings.ToLower(text[begin+1 : i])
			if !htmlTags[tag] {
				return "", nil, parseError("Unsupported start tag \"%s\" at byte offset %d", tag, begin)
			}
			o := open{tag: tag}
			for at(i) != '>' {
				for at(i) != 0 && isSpace(at(i)) {
					i++
				}
				if at(i) == '>' {
					break
				}
				nameAt := i
				for at(i) != 0 && !isSpace(at(i)) && !strings.ContainsRune("=>/\"'", rune(at(i))) {
					i++
				}
				name := text[nameAt:i]
				if name == "" {
					return "", nil, parseError("Empty attribute name in the tag \"%s\" at byte offset %d", tag, begin)
				}
				for at(i) != 0 && isSpace(at(i)) {
					i++
				}
				if at(i) != '=' {
					if at(i) == 0 {
						return "", nil, parseError("Unclosed start tag \"%s\" at byte offset %d", tag, begin)
					}
					if tag == "blockquote" && name == "expandable" {
						o.arg = "1"
					}
					continue
				}
				i++
				for at(i) != 0 && isSpace(at(i)) {
					i++
				}
				if at(i) == 0 {
					return "", nil, parseError("Unclosed start tag \"%s\" at byte offset %d", tag, begin)
				}
				var value string
				if q := at(i); q != '"' && q != '\'' {
					tokenAt := i
					for isAlnum(at(i)) || at(i) == '.' || at(i) == '-' {
						i++
					}
					value = strings.ToLower(text[tokenAt:i])
					if !isSpace(at(i)) && at(i) != '>' {
						return "", nil, parseError("Unexpected end of name token at byte offset %d", tokenAt)
					}
				} else {
					i++
					var v strings.Builder
					for at(i) != q && at(i) != 0 {
						if at(i) == '&' {
							if r, l := decodeEntity(text[i:]); l > 0 {
								v.WriteRune(r)
								i += l
								continue
							}
						}
						v.WriteByte(at(i))
						i++
					}
					if at(i) == q {
						i++
					}
					value = v.String()
				}
				if at(i) == 0 {
					return "", nil, parseError("Unclosed start tag at byte offset %d", begin)
				}
				switch {
				case tag == "a" && name == "href", tag == "tg-emoji" && name == "emoji-id", tag == "tg-time" && name == "format":
					o.arg = value
				case tag == "span" && name == "class" && strings.HasPrefix(value, "tg-"):
					o.arg = value[3:]
				case tag == "tg-time" && name == "unix":
					o.unix = value
				}
			}
			if tag == "span" && o.arg != "spoiler" {
				return "", nil, parseError("Tag \"span\" must have class \"tg-spoiler\" at byte offset %d", begin)
			}
			o.at = out.Len()
			stack = append(stack, o)
			continue
		}
		// An end tag.
		if len(stack) == 0 {
			return "", nil, parseError("Unexpected end tag at byte offset %d", begin)
		}
		for at(i) != 0 && !isSpace(at(i)) && at(i) != '>' {
			i++
		}
		name := strings.ToLower(text[begin+2 : i])
		for at(i) != 0 && isSpace(at(i)) {
			i++
		}
		if at(i) != '>' {
			return "", nil, parseError("Unclosed end tag at byte offset %d", begin)
		}
		top := stack[len(stack)-1]
		if name != "" && name != top.tag {
			return "", nil, parseError("Unmatched end tag at byte offset %d, expected \"</%s>\", found \"</%s>\"", begin, top.tag, name)
		}
		stack = stack[:len(stack)-1]
		inner := out.String()[top.at:]
		if inner == "" {
			continue
		}
		switch top.tag {
		case "tg-emoji":
			if id, err := strconv.ParseInt(top.arg, 10, 64); err != nil || id == 0 {
				return "", nil, parseError("Invalid custom emoji identifier specified")
			}
		case "tg-time":
			if !validDateFormat(top.arg) {
				return "", nil, parseError("Invalid date format used")
			}
			unix, err := strconv.ParseInt(top.unix, 10, 32)
			if err != nil || unix <= 0 {
				continue // no entity: the text stays
			}
			if time.Unix(unix, 0).After(now.Add(maxDateAhead)) {
				return "", nil, &APIError{Code: 400, Description: "Bad Request: ENTITY_DATE_INVALID"}
			}
			times = append(times, DateTime{Unix: unix, Format: top.arg, Text: inner})
		}
	}
	if len(stack) > 0 {
		return "", nil, parseError("Can't find end tag corresponding to start tag \"%s\"", stack[len(stack)-1].tag)
	}
	plain := out.String()
	if !utf8.ValidString(plain) {
		return "", nil, &APIError{Code: 400, Description: "Bad Request: text must be encoded in UTF-8"}
	}
	if strings.TrimSpace(plain) == "" {
		return "", nil, &APIError{Code: 400, Description: "Bad Request: message text is empty"}
	}
	return plain, times, nil
}

// validDateFormat is the Bot API's date_time_format: empty, "r" (or "R")
// alone, or letters of w, d, D, t, T.
func validDateFormat(f string) bool {
	if f == "r" || f == "R" {
		return true
	}
	for _, c := range f {
		if !strings.ContainsRune("tTdDwW", c) {
			return false
		}
	}
	return true
}

// decodeEntity decodes the HTML entity s starts with, as TDLib does:
// &lt; &gt; &amp; &quot; and numeric ones; its length, 0 for none (the
// '&' is then a plain character).
func decodeEntity(s string) (rune, int) {
	end := strings.IndexByte(s, ';')
	if end < 2 || end > 10 {
		return 0, 0
	}
	name := s[1:end]
	switch name {
	case "lt":
		return '<', end + 1
	case "gt":
		return '>', end + 1
	case "amp":
		return '&', end + 1
	case "quot":
		return '"', end + 1
	}
	if name[0] == '#' {
		var v int64
		var err error
		if len(name) > 1 && (name[1] == 'x' || name[1] == 'X') {
			v, err = strconv.ParseInt(name[2:], 16, 32)
		} else {
			v, err = strconv.ParseInt(name[1:], 10, 32)
		}
		if err == nil && v > 0 && v <= utf8.MaxRune {
			return rune(v), end + 1
		}
	}
	return 0, 0
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// checkEntities is ParseHTML for a request's text: nil when the message
// has no parse mode (sent as it is) or parses.
func checkEntities(p Params, now time.Time) ([]DateTime, *APIError) {
	if !strings.EqualFold(p["parse_mode"], "HTML") {
		return nil, nil
	}
	_, times, err := ParseHTML(p["text"], now)
	return times, err
}

func countRefused(e *APIError) int {
	if e != nil && e.Code == 400 && (strings.Contains(e.Description, "can't parse entities") || strings.Contains(e.Description, "ENTITY_DATE_INVALID")) {
		return 1
	}
	return 0
}

// RefusedEntities counts sends and edits refused for their entities.
func (t *Telegram) RefusedEntities() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refusedEntities
}
