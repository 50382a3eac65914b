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

func (p *progress) start(t result.FSTest, copies []*copyState) {
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
				fmt.Fprintf(p.w, "\r\033[K%s %s ops, %s/s", p.test.Progress(),
					humanize.Comma(done), humanize.Comma(int64(rate)))
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
