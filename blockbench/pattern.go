package blockbench

import (
	"math/rand/v2"
	"time"

	"github.com/clydebench/clyde/result"
)

// Pattern is a workload's own draw of its I/O, in place of fio's rw modes
// (Workload.Access): each I/O's direction, offset and size. Iometer's
// access specifications are one (package iometer). blockbench gives each
// worker a Drawer of its own, calls it once per I/O, and hands the
// drawers back when the workload is summed, so the pattern can add what
// it counted to the job.
//
// The workload's RW, BS and RWMixRead still describe it: RW decides the
// safety rules (whether the target is written), BS the buffers (the
// largest size Next returns) and the result's config.
type Pattern interface {
	// Check refuses what the pattern cannot run on w (w's direct I/O
	// alignment, an RW or BS that do not describe it), before anything
	// is touched.
	Check(w *Workload) error
	// CheckRegion refuses a resolved region [offset, offset+size) the
	// pattern has no room in.
	CheckRegion(offset, size int64) error
	// NewDrawer makes one worker's drawer over the resolved region.
	NewDrawer(offset, size int64) Drawer
	// Summarize adds to the job of a workload what its workers' drawers
	// counted since the ramp ended.
	Summarize(job *result.BlockJob, drawers []Drawer)
}

// Drawer draws one worker's I/O. Next runs once per I/O, on the worker's
// goroutine, and must not allocate.
type Drawer interface {
	// Next is the next I/O: a write or a read, at off, of size bytes
	// (at most MaxSize), inside the region.
	Next(src *DrawSource) (write bool, off int64, size int)
	// MaxSize is the largest size Next returns: what buffers are made
	// for.
	MaxSize() int
	// Reset starts the counts over: the ramp ended.
	Reset()
}

// DrawSource is what a Drawer draws with: its worker's random stream (the
// one fio's rw modes draw from, so one seed gives one sequence) and its
// clock. The worker keeps it; a Drawer must not keep it past Next.
type DrawSource struct {
	rng *rand.PCG
	w   *worker // nil for NewDrawSource's
}

// NewDrawSource is a source of its own, on a stream seeded by seed and
// with no deadline: for a Drawer's tests and benchmarks.
func NewDrawSource(seed uint64) *DrawSource {
	return &DrawSource{rng: newRand(seed, 1)}
}

// Below is a uniform draw in [0, n), n > 0.
func (s *DrawSource) Below(n uint64) uint64 { return below(s.rng, n) }

// Wait sleeps d before the I/O being drawn, no longer than the worker's
// deadline, and tells the engine that the clock it read before the draw is
// stale, so the wait is not counted as the I/O's latency (Iometer's
// transfer delay). I/Os already in flight at a depth above 1 complete
// meanwhile and are timed when the worker reaps them after the wait.
func (s *DrawSource) Wait(d time.Duration) {
	w := s.w
	if w != nil && w.deadline > 0 {
		d = min(d, time.Duration(max(0, w.deadline-w.now())))
	}
	time.Sleep(d)
	if w != nil {
		w.paused = true
	}
}

// drawnPattern is a worker's ioPattern for a workload's own Pattern.
type drawnPattern struct {
	d   Drawer
	src DrawSource
}

func newDrawnPattern(w *worker) *drawnPattern {
	spec := w.spec
	return &drawnPattern{d: spec.Access.NewDrawer(spec.Offset, spec.Size), src: DrawSource{rng: w.rng, w: w}}
}

func (p *drawnPattern) next(*worker) (int, int64, int) {
	write, off, size := p.d.Next(&p.src)
	if write {
		return dirWrite, off, size
	}
	return dirRead, off, size
}

func (p *drawnPattern) maxSize(*worker) int { return p.d.MaxSize() }

// resetDrawer starts a workload's own pattern's counts over.
func (w *worker) resetDrawer() {
	switch p := w.pattern.(type) {
	case *drawnPattern:
		p.d.Reset()
	case *filesPattern:
		p.restart() // files.go
	}
}

// summarizePattern lets a workload's own pattern add its workers' counts
// to the job.
func summarizePattern(wl *workload, job *result.BlockJob, workers []*worker) {
	summarizeFiles(job, workers) // files.go
	if wl.Access == nil {
		return
	}
	drawers := make([]Drawer, 0, len(workers))
	for _, w := range workers {
		if p, ok := w.pattern.(*drawnPattern); ok {
			drawers = append(drawers, p.d)
		}
	}
	wl.Access.Summarize(job, drawers)
}
