package commands

import (
	"slices"
	"sync"
	"time"
)

// tapChains remembers, per keyboard message, the settings states its own
// taps went through. Someone ticking boxes twice a second taps buttons
// drawn a state or two ago (the redraw waits for the chat's second): such
// a tap is current as long as every change since it was drawn came from
// this keyboard, and each button says what it sets (on or off, a value),
// so it is applied. A change made elsewhere breaks the chain: the tap is
// refused as stale, as before.
type tapChains struct {
	mu     sync.Mutex
	chains map[[2]int64]*tapChain
}

type tapChain struct {
	tokens []string // states this keyboard's taps went through, oldest first
	at     time.Time
}

// chainFor bounds how long after its last tap a keyboard's chain counts,
// and chainLen how many states it keeps.
const (
	chainFor = time.Minute
	chainLen = 16
)

// follows reports whether state now was reached from the state a button
// was drawn in (drawn) by this keyboard's own taps.
func (c *tapChains) follows(chatID int64, msgID int, drawn, now string, at time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.chains[[2]int64{chatID, int64(msgID)}]
	if ch == nil || at.Sub(ch.at) > chainFor {
		return false
	}
	i, j := slices.Index(ch.tokens, drawn), slices.Index(ch.tokens, now)
	return i >= 0 && j >= i
}

// add notes that a tap on the message took the settings from state from
// to state to.
func (c *tapChains) add(chatID int64, msgID int, from, to string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chains == nil {
		c.chains = map[[2]int64]*tapChain{}
	}
	key := [2]int64{chatID, int64(msgID)}
	ch := c.chains[key]
	if ch == nil || at.Sub(ch.at) > chainFor || ch.tokens[len(ch.tokens)-1] != from {
		ch = &tapChain{tokens: []string{from}}
		c.chains[key] = ch
	}
	if to != from {
		ch.tokens = append(ch.tokens, to)
	}
	if len(ch.tokens) > chainLen {
		ch.tokens = ch.tokens[len(ch.tokens)-chainLen:]
	}
	ch.at = at
	if len(c.chains) > 1000 {
		for k, v := range c.chains {
			if at.Sub(v.at) > chainFor {
				delete(c.chains, k)
			}
		}
	}
}
