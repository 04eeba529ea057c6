package cfsim

import (
	"net/http"
	"strings"
)

type groupRec struct {
	account string
	g       AccessGroup
}

// AccessGroup is an Access group as the v4 API returns it. Groups are only
// seeded (SeedAccessGroup): the roles read them, they never create them.
type AccessGroup struct {
	ID        string           `json:"id"`
	Name      string           `json:"name"`
	Include   []map[string]any `json:"include"`
	Exclude   []map[string]any `json:"exclude"`
	Require   []map[string]any `json:"require"`
	CreatedAt string           `json:"created_at"`
	UpdatedAt string           `json:"updated_at"`
}

func (s *Server) registerAccessGroupRoutes() {
	base := "/accounts/{account}/access/groups"
	s.api.add(http.MethodGet, base, s.listGroups)
	s.api.add(http.MethodGet, base+"/{group}", s.getGroup)
}

// listGroups answers GET .../access/groups with the name and search filters.
func (s *Server) listGroups(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	var out []AccessGroup
	for _, g := range s.st.groups {
		if g.account != a.id {
			continue
		}
		if name := c.query.Get("name"); name != "" && g.g.Name != name {
			continue
		}
		if !matchesSearch(c.query.Get("search"), g.g.Name) {
			continue
		}
		out = append(out, g.g)
	}
	return paginate(c, out, pagesAccess), nil
}

func (s *Server) getGroup(c *call) (any, error) {
	a, err := c.account()
	if err != nil {
		return nil, err
	}
	id := strings.ToLower(c.param("group"))
	g := find(s.st.groups, func(g *groupRec) bool { return g.account == a.id && g.g.ID == id })
	if g == nil {
		return nil, errAccessNotFound()
	}
	return g.g, nil
}
