package screens

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	offered "github.com/openai-status-bot/statusbot/internal/pages"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
	"github.com/openai-status-bot/statusbot/internal/store"
)

// ComponentGroup is one of the page's component groups.
type ComponentGroup struct {
	Name    string
	Members []int // indices into PageIndex.Comps
}

// PageIndex numbers the page's components for callback_data.
type PageIndex struct {
	Comps  []statuspage.Component
	Groups []ComponentGroup
	Names  map[string]string
	Tok    string
}

// IndexPage groups the components as the page does: group rows (Group
// set) name the groups, leaves carry GroupName or GroupID; components in
// no group come last, as "Other".
func IndexPage(p *statuspage.Page) *PageIndex {
	comps := Components(p)
	rowNames := map[string]string{}
	for _, c := range p.Components {
		if c.Group {
			rowNames[c.ID] = c.Name
		}
	}
	idx := &PageIndex{Comps: comps, Names: ComponentNames(comps)}
	at := map[string]int{}
	var other []int
	h := fnv.New32a()
	for i, c := range comps {
		h.Write([]byte(c.ID + "\x00"))
		g := c.GroupName
		if g == "" {
			g = rowNames[c.GroupID]
		}
		if g == "" {
			other = append(other, i)
			continue
		}
		j, ok := at[g]
		if !ok {
			j = len(idx.Groups)
			at[g] = j
			idx.Groups = append(idx.Groups, ComponentGroup{Name: g})
		}
		idx.Groups[j].Members = append(idx.Groups[j].Members, i)
	}
	if len(other) > 0 {
		idx.Groups = append(idx.Groups, ComponentGroup{Name: "Other", Members: other})
	}
	idx.Tok = strconv.FormatUint(uint64(h.Sum32()), 36)
	return idx
}

// GroupOf is the group index and position of component ci.
func (x *PageIndex) GroupOf(ci int) (gi, pos int) {
	for gi, g := range x.Groups {
		for pos, m := range g.Members {
			if m == ci {
				return gi, pos
			}
		}
	}
	return -1, -1
}

// StateToken hashes what the keyboard shows of a subscription.
func StateToken(sub *store.Subscriber) string {
	h := fnv.New32a()
	// The language fields are hashed after the rest, and only when set:
	// keyboards drawn before languages keep their token.
	set := sub.Settings
	lang := fmt.Sprintf(" Lang:%s LangChosen:%v", set.Lang, set.LangChosen)
	fmt.Fprint(h, strings.Replace(fmt.Sprintf("%v|%v|%+v", sub.Kinds, sub.Components, set), lang, "", 1))
	if set.Lang != "" || set.LangChosen {
		fmt.Fprint(h, "|lang"+lang)
	}
	if ps := offered.Followed(sub.Pages); len(ps) != 1 || ps[0] != "" {
		// Keyboards drawn before pages keep their token.
		fmt.Fprintf(h, "|%v", ps)
	}
	return strconv.FormatUint(uint64(h.Sum32()), 36)
}
