package statuspage_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai-status-bot/statusbot/internal/fakes"
	"github.com/openai-status-bot/statusbot/internal/statuspage"
)

// wire counts requests and body bytes as they cross the wire (compressed
// where the client asked for it).
type wire struct {
	next            http.Handler
	requests, bytes atomic.Int64
}

type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(n))
	return n, err
}

func (w *wire) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.requests.Add(1)
	w.next.ServeHTTP(countingWriter{rw, &w.bytes}, r)
}

// BenchmarkIdlePoll reports what one poll of an unchanged page costs the
// page and the network, per provider (requests/op, wire-bytes/op), with the
// page as big as status.openai.com's: 34 components, 90 incidents.
//
//	go test -run '^$' -bench IdlePoll -benchtime 20x ./internal/statuspage
func BenchmarkIdlePoll(b *testing.B) {
	io := fakes.NewIncidentIO()
	defer io.Close()
	sp := fakes.NewStatuspage()
	defer sp.Close()
	for i := 0; i < 90; i++ {
		id := "01INC" + time.Duration(i).String()
		io.AddIncidentUpdate(id, "Elevated errors for some users", "investigating", "", id+"u1", "We are investigating reports of elevated errors.")
		io.AffectComponent(id, fakes.IOComponentResponses, "degraded_performance")
		io.AddIncidentUpdate(id, "", "resolved", "", id+"u2", "This incident has been resolved.")
		sp.AddIncidentUpdate(id, "Elevated errors for some users", "investigating", "minor", id+"u1", "We are investigating reports of elevated errors.")
		sp.AddIncidentUpdate(id, "", "resolved", "minor", id+"u2", "This incident has been resolved.")
	}
	for _, tc := range []struct {
		name string
		page http.Handler
		new  func(url string) statuspage.Fetcher
	}{
		{"incidentio", io, func(u string) statuspage.Fetcher { return statuspage.NewIncidentIO(u, 5*time.Second) }},
		{"statuspage", sp, func(u string) statuspage.Fetcher { return statuspage.NewClient(u, 5*time.Second) }},
		{"auto-on-statuspage", sp, func(u string) statuspage.Fetcher { return statuspage.NewAuto(u, 5*time.Second) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			w := &wire{next: tc.page}
			srv := httptest.NewServer(w)
			defer srv.Close()
			f := tc.new(srv.URL)
			if _, _, err := f.Fetch(context.Background()); err != nil { // first poll: no validators yet
				b.Fatal(err)
			}
			w.requests.Store(0)
			w.bytes.Store(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := f.Fetch(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.requests.Load())/float64(b.N), "requests/op")
			b.ReportMetric(float64(w.bytes.Load())/float64(b.N), "wire-bytes/op")
		})
	}
}
