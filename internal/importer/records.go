package importer

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/openai-status-bot/statusbot/internal/store"
)

// Record reads one document of the previous bot's subscribers as that
// bot wrote it, and says plainly what it cannot read: the _id is the key
// ("chatID" or "chatID:threadID", or the chat ID as a whole number, with
// thread_id completing it); chat_id and thread_id, when present, must
// agree with it; types and components are lists of strings (a single
// string is read as one entry). A record that fails is reported, never
// guessed at: a widened filter or a chat ID taken from the wrong field
// would send a chat what it never asked for.
func Record(d bson.M) Previous {
	p := Previous{ID: describe(d["_id"])}
	key, err := keyOf(d, p.ID)
	if err != nil {
		p.Err = err.Error()
		return p
	}
	p.Key = key
	if p.Types, err = typesOf(d["types"]); err != nil {
		p.Err = fmt.Sprintf("_id %s: %v: not imported (the types would be guessed)", p.ID, err)
		return p
	}
	if p.Components, err = componentsOf(d["components"]); err != nil {
		p.Err = fmt.Sprintf("_id %s: %v: not imported (an unreadable filter would become every component)", p.ID, err)
	}
	return p
}

// keyOf is the subscriber key the record's _id names, checked against its
// chat_id and thread_id fields.
func keyOf(d bson.M, shown string) (string, error) {
	var chat string
	switch id := d["_id"].(type) {
	case string:
		chat = strings.TrimSpace(id)
	case int32:
		chat = strconv.FormatInt(int64(id), 10)
	case int64:
		chat = strconv.FormatInt(id, 10)
	case float64:
		n, ok := wholeNumber(id)
		if !ok {
			return "", fmt.Errorf("_id %s is a number that is no chat ID (not a whole number below 2^53)", shown)
		}
		chat = strconv.FormatInt(n, 10)
	default:
		return "", fmt.Errorf("_id %s is not chatID or chatID:threadID", shown)
	}
	chatID, threadID, err := ParseKey(chat)
	if err != nil {
		return "", fmt.Errorf("_id %s is not chatID or chatID:threadID", shown)
	}
	if v, ok := d["thread_id"]; ok && v != nil {
		n, ok := integer(v)
		switch {
		case !ok || n < 0 || n > math.MaxInt32:
			return "", fmt.Errorf("_id %s: thread_id %s is not a thread ID", shown, describe(v))
		case threadID == 0:
			threadID = int(n) // a key without its thread: thread_id completes it
		case n != int64(threadID):
			return "", fmt.Errorf("_id %s names thread %d, but its thread_id is %s: not imported (fix one of them in the previous database)", shown, threadID, describe(v))
		}
	}
	if v, ok := d["chat_id"]; ok && v != nil {
		if n, ok := integer(v); !ok || n != chatID {
			return "", fmt.Errorf("_id %s names chat %d, but its chat_id is %s: not imported (fix one of them in the previous database)", shown, chatID, describe(v))
		}
	}
	return store.SubscriberKey(chatID, threadID), nil
}

// wholeNumber is f as an integer when it is one that a double holds
// exactly (chat IDs are below 2^53).
func wholeNumber(f float64) (int64, bool) {
	if f != math.Trunc(f) || math.Abs(f) >= 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// integer reads a number stored as any BSON number, or as a string of
// digits.
func integer(v any) (int64, bool) {
	switch n := v.(type) {
	case int32:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return wholeNumber(n)
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(n), 10, 64)
		return i, err == nil
	}
	return 0, false
}

// typesOf reads types: a list, or one string ("incident", or several
// separated by commas or spaces). Missing: nil, the previous default.
func typesOf(v any) ([]string, error) {
	if s, ok := v.(string); ok {
		return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }), nil
	}
	return listOf(v, "types")
}

// componentsOf reads the component filter: a list, or one string (one
// entry). An entry stored as a number is kept as text: it then maps to
// nothing and stays, so the filter matches less, never more.
func componentsOf(v any) ([]string, error) {
	if s, ok := v.(string); ok {
		if s = strings.TrimSpace(s); s == "" {
			return nil, nil
		}
		return []string{s}, nil
	}
	return listOf(v, "components")
}

func listOf(v any, field string) ([]string, error) {
	switch arr := v.(type) {
	case nil:
		return nil, nil
	case bson.A:
		out := make([]string, 0, len(arr))
		for _, e := range arr {
			switch e := e.(type) {
			case string:
				if e = strings.TrimSpace(e); e != "" {
					out = append(out, e)
				}
			case int32, int64, float64:
				out = append(out, describe(e))
			default:
				return nil, fmt.Errorf("%s holds %s, not a string", field, describe(e))
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s is %s, not a list", field, describe(v))
}

// describe shows a stored value as the operator would look for it in the
// previous database: strings quoted, numbers as numbers, other types named.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "missing"
	case string:
		return strconv.Quote(x)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bson.ObjectID:
		return `ObjectId("` + x.Hex() + `")`
	case bson.Decimal128:
		return `NumberDecimal("` + x.String() + `")`
	case bool:
		return strconv.FormatBool(x)
	case bson.A:
		return fmt.Sprintf("an array of %d", len(x))
	case bson.M, bson.D:
		return "a document"
	}
	return fmt.Sprintf("a %T", v)
}
