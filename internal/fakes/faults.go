package fakes

import (
	"net/http"
	"strings"
	"sync"
)

// pageFaults counts a fake page's requests and injects its faults.
type pageFaults struct {
	mu       sync.Mutex
	faults   map[string]func(w http.ResponseWriter, r *http.Request) bool
	requests map[string]int
}

// Fault makes requests whose path contains pathPart go to f while it
// returns true ("" matches every path); nil removes it.
func (p *pageFaults) Fault(pathPart string, f func(w http.ResponseWriter, r *http.Request) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if f == nil {
		delete(p.faults, pathPart)
		return
	}
	if p.faults == nil {
		p.faults = map[string]func(http.ResponseWriter, *http.Request) bool{}
	}
	p.faults[pathPart] = f
}

// Requests counts requests per path.
func (p *pageFaults) Requests(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests[path]
}

// TotalRequests counts every request.
func (p *pageFaults) TotalRequests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, v := range p.requests {
		n += v
	}
	return n
}

// faulted counts the request and reports whether a fault answered it.
func (p *pageFaults) faulted(w http.ResponseWriter, r *http.Request) bool {
	p.mu.Lock()
	if p.requests == nil {
		p.requests = map[string]int{}
	}
	p.requests[r.URL.Path]++
	var fault func(http.ResponseWriter, *http.Request) bool
	for part, f := range p.faults {
		if strings.Contains(r.URL.Path, part) {
			fault = f
		}
	}
	p.mu.Unlock()
	return fault != nil && fault(w, r)
}
