package outfile

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// stopWait is how long, once the run is stopped, a write to standard
// output, a FIFO or a device may go without progress before it is
// abandoned. A reader that is there (cat, a log collector, a pager being
// read) takes a stopped run's report in far less; one that never reads
// must not keep clyde alive, since every later signal is the same stop.
// A var for the tests.
var stopWait = 5 * time.Second

// chunk is how much one write hands the kernel: a page, the smallest pipe
// buffer, so that a reader taking a page in stopWait is seen to make
// progress.
const chunk = 4 << 10

// stopTicker paces the progress checks after the stop; the tests drive it.
var stopTicker = func() (<-chan time.Time, func()) {
	t := time.NewTicker(stopWait)
	return t.C, t.Stop
}

// progressWriter counts what its writer took, in chunks.
type progressWriter struct {
	w io.Writer
	n atomic.Int64
}

func (p *progressWriter) Write(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		n, err := p.w.Write(b[done:min(len(b), done+chunk)])
		done += n
		p.n.Add(int64(n))
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// deadliner is a writer whose blocked write can be ended from outside: an
// *os.File the runtime's poller waits on (a FIFO or a terminal clyde
// opened non-blocking).
type deadliner interface {
	SetWriteDeadline(time.Time) error
}

// stoppable runs fill on w so that the stop (ctx) ends a write nobody
// takes: it runs as long as it makes progress, and once ctx is done (at
// the start, for a stopped run's report, or while writing) a stopWait with
// nothing written ends it. w's blocked write is then ended through its
// deadline where it has one; where it has none (a descriptor clyde did
// not open non-blocking: its standard output, /dev/fd/N), the write is
// left blocked and abandoned is set, since the process exits next and fill
// must not be run again meanwhile.
func stoppable(ctx context.Context, w io.Writer, fill func(io.Writer) error) (abandoned bool, err error) {
	pw := &progressWriter{w: w}
	done := make(chan error, 1)
	go func() { done <- fill(pw) }()
	stop := ctx.Done()
	var tick <-chan time.Time
	last := int64(-1)
	for {
		select {
		case err := <-done:
			return false, err
		case <-stop:
			stop = nil
			var end func()
			tick, end = stopTicker()
			defer end()
			last = pw.n.Load()
		case <-tick:
			n := pw.n.Load()
			if n != last {
				last = n
				continue
			}
			why := fmt.Errorf("its reader took nothing for %v after the stop; the rest was not written: %w", stopWait, context.Cause(ctx))
			if d, ok := w.(deadliner); ok && d.SetWriteDeadline(time.Now()) == nil {
				select {
				case <-done: // the poller ends the blocked write at once
					return false, why
				case <-time.After(stopWait): // a fill that goes on after its write failed
				}
			}
			return true, why
		}
	}
}
