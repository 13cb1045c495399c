package bot

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/openai-status-bot/statusbot/internal/store"
)

// Offsets: which updates are handled (the tracker's watermark) and its
// saving (the persister), so a restart neither loses nor replays.

// tracker knows which updates are in flight and computes the watermark:
// the highest update ID such that it and every update before it were
// handled. That is what gets persisted and what the next getUpdates
// starts after, so a restart neither loses an update nor replays one that
// was fully handled and recorded.
//
// Telegram may restart its IDs below the watermark (after a week without
// updates, or for a new token): rebase starts a new ID space, and the
// updates still in flight from the old one (another generation) no longer
// count.
type tracker struct {
	mu         sync.Mutex
	gen        int
	inflight   map[int64]struct{}
	maxStarted int64
	changed    chan struct{} // signalled (cap 1) whenever an update finishes
}

func newTracker(last int64) *tracker {
	return &tracker{inflight: map[int64]struct{}{}, maxStarted: last, changed: make(chan struct{}, 1)}
}

// rebase follows Telegram's new ID space: last is the ID before the first
// new update.
func (t *tracker) rebase(last int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gen++
	t.inflight = map[int64]struct{}{}
	t.maxStarted = last
}

// isNew reports whether the update was not dispatched before.
func (t *tracker) isNew(id int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return id > t.maxStarted
}

// start marks an update as dispatched and in flight; the generation it
// returns goes back with done or abort.
func (t *tracker) start(id int64) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.inflight[id] = struct{}{}
	if id > t.maxStarted {
		t.maxStarted = id
	}
	return t.gen
}

// abort undoes start for the latest update when it could not be handed
// over (shutdown): it will be fetched again after a restart.
func (t *tracker) abort(id int64, gen int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if gen != t.gen {
		return
	}
	delete(t.inflight, id)
	if id == t.maxStarted {
		t.maxStarted = id - 1
	}
}

// done marks an update as handled.
func (t *tracker) done(id int64, gen int) {
	t.mu.Lock()
	if gen == t.gen {
		delete(t.inflight, id)
	}
	t.mu.Unlock()
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

// watermark is the last update ID up to which everything was handled.
func (t *tracker) watermark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := t.maxStarted
	for id := range t.inflight {
		if id-1 < w {
			w = id - 1
		}
	}
	return w
}

// persister saves the watermark after updates are handled.
type persister struct {
	st    *store.Store
	tr    *tracker
	log   *slog.Logger
	now   func() time.Time
	sig   chan struct{}
	saved int64
}

func (p *persister) signal() {
	select {
	case p.sig <- struct{}{}:
	default:
	}
}

func (p *persister) loop(ctx context.Context, stop <-chan struct{}) {
	for {
		select {
		case <-stop:
			return
		case <-p.sig:
			sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			p.save(sctx)
			cancel()
		}
	}
}

func (p *persister) save(ctx context.Context) {
	w := p.tr.watermark()
	if w == p.saved {
		return
	}
	if err := p.st.SaveLastUpdateID(ctx, w, p.now()); err != nil {
		p.log.Warn("save update offset", "err", err)
		return
	}
	p.saved = w
}
