package fsbench

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/result"
)

// progress prints phase progress in bonnie++'s words and, when live, a line
// of operations done that refreshes twice a second once a phase has run for
// a second. The workers publish their counts every checkEveryOps operations.
type progress struct {
	w    io.Writer
	live bool

	test   result.FSTest
	copies []*copyState
	stopCh chan struct{}
	wg     sync.WaitGroup
	shown  bool
}

func newProgress(w io.Writer, live bool) *progress { return &progress{w: w, live: live} }

// start shows phase t; total is the operations it will take in all (0
// when not known), for the live line's "of" and time left.
func (p *progress) start(t result.FSTest, copies []*copyState, total int64) {
	if p.w == nil {
		return
	}
	p.test, p.copies, p.shown = t, copies, false
	fmt.Fprint(p.w, t.Progress())
	if !p.live {
		return
	}
	p.stopCh = make(chan struct{})
	p.wg.Go(func() {
		began := time.Now()
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stopCh:
				return
			case now := <-tick.C:
				if now.Sub(began) < time.Second {
					continue
				}
				var done int64
				for _, c := range p.copies {
					done += c.done.Load()
				}
				rate := float64(done) / now.Sub(began).Seconds()
				fmt.Fprint(p.w, "\r\033[K"+liveLine(p.test.Progress(), done, total, rate))
				p.shown = true
			}
		}
	})
}

func (p *progress) stop(ok bool) {
	if p.w == nil {
		return
	}
	if p.stopCh != nil {
		close(p.stopCh)
		p.wg.Wait()
		p.stopCh = nil
		if p.shown {
			fmt.Fprintf(p.w, "\r\033[K%s", p.test.Progress())
		}
	}
	if !ok {
		fmt.Fprintln(p.w, "failed")
		return
	}
	switch {
	case p.test == result.Seeks:
		for range len(p.copies[0].lat) {
			fmt.Fprint(p.w, "done...")
		}
		fmt.Fprintln(p.w)
	case p.test.IsIO():
		fmt.Fprintln(p.w, "done")
	default:
		fmt.Fprintln(p.w, "done.")
	}
}

// liveLine is the live progress: operations done (of the total, when
// known), their rate, and the time left at that rate.
func liveLine(phase string, done, total int64, rate float64) string {
	if total <= 0 {
		return fmt.Sprintf("%s %s ops, %s/s", phase, humanize.Comma(done), humanize.Comma(int64(rate)))
	}
	s := fmt.Sprintf("%s %s of %s ops, %s/s", phase, humanize.Comma(done), humanize.Comma(total), humanize.Comma(int64(rate)))
	if rate > 0 && done < total {
		left := time.Duration(float64(total-done) / rate * float64(time.Second))
		s += ", about " + left.Round(time.Second).String() + " left"
	}
	return s
}

// expectedOps is how many operations one copy does in phase t, as the
// workers count them for the live line: bytes for the per-char tests,
// chunks for the block tests, seeks, files.
func (r *runner) expectedOps(t result.FSTest) int64 {
	switch t {
	case result.PutChar, result.GetChar:
		return r.opts.ByteIOMiB << 20
	case result.PutBlock, result.Rewrite, result.GetBlock:
		return (r.opts.SizeMiB << 20) / int64(r.opts.ChunkBytes)
	case result.Seeks:
		return int64(r.opts.Seeks)
	}
	return int64(r.opts.Files())
}
