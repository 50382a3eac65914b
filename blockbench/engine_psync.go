package blockbench

import (
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
)

// psyncEngine is fio's psync: one pread or pwrite at a time per worker.
type psyncEngine struct{}

func (psyncEngine) name() Engine     { return EnginePsync }
func (psyncEngine) queues() bool     { return false }
func (psyncEngine) available() error { return nil }

func (psyncEngine) prepare(w *worker) (issuer, error) {
	size := w.pattern.maxSize(w)
	p := &psyncIssuer{rbuf: osio.AlignedBuffer(size), wbuf: osio.AlignedBuffer(size)}
	fillBuffer(p.wbuf, w.spec.Buffer, w.dataRand())
	return p, nil
}

type psyncIssuer struct{ rbuf, wbuf []byte }

func (*psyncIssuer) close() {}

// run is the synchronous loop. Nothing in it allocates; latency goes into
// this worker's own recorders through complete.
func (p *psyncIssuer) run(w *worker) {
	if t := w.now(); t >= w.nextEvent && w.tick(t) {
		return
	}
	for {
		dir, off, size := w.pattern.next(w)
		// The clock is read after the draw, as fio stamps an I/O once it
		// is set up: a pattern's delay is not the I/O's latency.
		t0 := w.now()
		var n int
		var err error
		if dir == dirRead {
			n, err = w.file().Pread(p.rbuf[:size], off)
		} else {
			if w.fill != nil {
				// fio fills the buffer before it starts the I/O's clock.
				w.refill(p.wbuf[:size])
				t0 = w.now()
			}
			n, err = w.file().Pwrite(p.wbuf[:size], off)
		}
		t1 := w.now()
		if err != nil {
			w.fail(fmt.Errorf("%s %d bytes at offset %d: %w", dirNames[dir], size, off, err))
			return
		}
		// A synchronous call has no submission stage: its completion
		// latency is its whole latency, as fio's psync reports it.
		if !w.complete(dir, n, size, off, t0, t0, t1) {
			return
		}
		if t1 >= w.nextEvent && w.tick(t1) {
			return
		}
	}
}
