package coord

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

func newJob(ctx context.Context, cfg Config) *Job {
	cfg.fill()
	if cfg.PID == 0 {
		cfg.PID = os.Getpid()
	}
	jctx, cancel := context.WithCancelCause(ctx)
	j := &Job{cfg: cfg, ctx: jctx, cancel: cancel, xs: map[string]*exchange{}, counters: map[string]func() int64{}, firsts: map[string]chan struct{}{},
		stop: make(chan struct{}), released: make(chan struct{}), stopped: newRankSet(cfg.Size), ran: newRankSet(cfg.Size)}
	j.peers = make([]Peer, cfg.Size)
	j.peers[cfg.Rank] = Peer{Rank: cfg.Rank, Host: cfg.Host, PID: cfg.PID, TokenExposed: cfg.TokenExposed}
	return j
}

// Lead is rank 0: it accepts every other rank on ln, checks each hello, and
// returns once all cfg.Size ranks are in (or the first refusal, lost rank,
// HelloTimeout or ctx ends the job). ln is closed when the job ends.
func Lead(ctx context.Context, ln net.Listener, cfg Config) (*Job, error) {
	j := newJob(ctx, cfg)
	j.ln = ln
	j.conns = make([]*wire, j.cfg.Size)
	j.byes = make([]bool, j.cfg.Size)
	j.byeCh = make(chan struct{})
	j.pending = map[net.Conn]bool{}
	joined := make(chan struct{})
	if j.cfg.Size == 1 {
		close(joined)
		close(j.byeCh)
	}
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		j.acceptLoop(joined)
	}()
	timer := time.NewTimer(j.cfg.HelloTimeout)
	defer timer.Stop()
	select {
	case <-joined:
	case <-timer.C:
		j.fail(&AbortError{Rank: 0, Host: j.cfg.Host, Reason: "gave up: " + j.missing() + " never connected within " + j.cfg.HelloTimeout.String()})
	case <-j.ctx.Done():
		// Interrupted while waiting: the ranks already in hear it, and
		// stop as interrupted rather than as ranks whose rank 0 is lost.
		j.Abort(j.ctx.Err())
	}
	if err := j.Err(); err != nil {
		j.shutdown()
		return nil, err
	}
	start := message{T: "start", Peers: j.peers}
	for _, w := range j.conns {
		if w != nil {
			_ = w.send(start, j.cfg.LostAfter)
		}
	}
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		j.heartbeat(func(m message) {
			for _, w := range j.conns {
				if w != nil {
					_ = w.send(m, j.cfg.LostAfter)
				}
			}
		})
	}()
	return j, nil
}

// missing names the ranks that have not said hello.
func (j *Job) missing() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	var ranks []string
	for r := 1; r < j.cfg.Size; r++ {
		if j.conns[r] == nil {
			ranks = append(ranks, fmt.Sprint(r))
		}
	}
	if len(ranks) > 8 {
		ranks = append(ranks[:8], fmt.Sprintf("and %d more", len(ranks)-8))
	}
	return "rank " + strings.Join(ranks, ", ")
}

func (j *Job) acceptLoop(joined chan struct{}) {
	for {
		c, err := j.ln.Accept()
		if err != nil {
			return // the listener closes when the job ends
		}
		if !j.pendingSlot(c) {
			c.Close() // MaxPending hellos under way: a real rank retries
			continue
		}
		j.wg.Add(1)
		go func() {
			defer j.wg.Done()
			j.handshake(c, joined)
		}()
	}
}

// onWelcome, set by tests, hears of each rank that rank 0 welcomed.
var onWelcome func(rank int)

// handshake checks one connection's hello (leadHello). A stranger (no
// token), another job's rank or a silent connection is turned away and the
// job goes on; a rank of this job with other options, another version or a
// duplicate rank ends the job before anything is written. The connection
// holds its pending slot (MaxPending) until its hello is done, at most
// handshakeTimeout.
func (j *Job) handshake(c net.Conn, joined chan struct{}) {
	defer func() {
		j.mu.Lock()
		delete(j.pending, c)
		j.mu.Unlock()
	}()
	deadline := time.Now().Add(handshakeTimeout)
	w := newWire(c)
	h := j.leadHello(w, deadline)
	if h == nil {
		c.Close()
		return
	}
	refuse := func(why string) {
		_ = w.sendBy(message{T: "refuse", Text: why}, deadline)
		c.Close()
		j.fail(&AbortError{Rank: h.Rank, Host: h.Host, Reason: "refused at hello: " + why})
	}
	switch {
	case h.Size != j.cfg.Size:
		refuse(fmt.Sprintf("it was started as one of %d ranks, rank 0 as one of %d", h.Size, j.cfg.Size))
		return
	case h.Rank < 1 || h.Rank >= j.cfg.Size:
		refuse(fmt.Sprintf("rank %d is not in 1..%d", h.Rank, j.cfg.Size-1))
		return
	case h.Version != j.cfg.Version:
		refuse(fmt.Sprintf("clyde %s, rank 0 runs clyde %s", h.Version, j.cfg.Version))
		return
	case h.OptionsHash != j.cfg.OptionsHash:
		refuse(fmt.Sprintf("its options differ from rank 0's (hash %.12s, rank 0 %.12s): give every rank the same flags", h.OptionsHash, j.cfg.OptionsHash))
		return
	}
	j.mu.Lock()
	if j.conns[h.Rank] != nil {
		j.mu.Unlock()
		refuse(fmt.Sprintf("rank %d connected twice (pids %d and %d)", h.Rank, j.peers[h.Rank].PID, h.PID))
		return
	}
	if j.ctx.Err() != nil {
		j.mu.Unlock()
		c.Close()
		return
	}
	j.conns[h.Rank] = w
	j.peers[h.Rank] = h.Peer
	all := true
	for r := 1; r < j.cfg.Size; r++ {
		all = all && j.conns[r] != nil
	}
	j.mu.Unlock()
	if err := w.send(message{T: "welcome"}, j.cfg.LostAfter); err != nil {
		j.fail(&AbortError{Rank: h.Rank, Host: h.Host, Reason: describe(err, j.cfg.LostAfter)})
		return
	}
	if onWelcome != nil {
		onWelcome(h.Rank)
	}
	if all {
		close(joined)
	}
	j.readPeer(h.Rank, w)
}

// readPeer handles everything rank r sends until it says goodbye or is
// gone; either way it no longer holds up a Stop.
func (j *Job) readPeer(r int, w *wire) {
	defer j.markGone(r)
	for {
		m, err := w.recv(j.cfg.LostAfter, MaxMessage)
		if err != nil {
			j.mu.Lock()
			said := j.byes[r]
			j.mu.Unlock()
			if !said {
				j.fail(&AbortError{Rank: r, Host: j.peers[r].Host, Reason: describe(err, j.cfg.LostAfter)})
			}
			return
		}
		switch m.T {
		case "arrive":
			j.leaderArrive(r, m.Name, m.Data, m.Count == 1)
		case "counted":
			j.leaderCounted(r, m.Name, m.Count)
		case "abort":
			if m.Abort != nil {
				j.fail(m.Abort)
			}
		case "stopped":
			j.mu.Lock()
			j.stopped.mark(r)
			j.ran.mark(r) // a rank that stops has run
			j.mu.Unlock()
		case "ran":
			j.mu.Lock()
			j.ran.mark(r)
			j.mu.Unlock()
		case "bye":
			j.mu.Lock()
			j.byes[r] = true
			all := true
			for q := 1; q < j.cfg.Size; q++ {
				all = all && j.byes[q]
			}
			j.mu.Unlock()
			if all {
				close(j.byeCh)
			}
			return
		}
	}
}

// leaderArrive records rank r at exchange name; the first to end a counted
// phase makes every rank report its counter.
func (j *Job) leaderArrive(r int, name string, data json.RawMessage, counting bool) *exchange {
	j.mu.Lock()
	x := j.xs[name]
	if x == nil {
		x = newExchange(j.cfg.Size)
		j.xs[name] = x
	}
	if x.arrived[r] {
		j.mu.Unlock()
		return x
	}
	x.arrived[r] = true
	x.n++
	x.data[r] = data
	askCounts := counting && !x.counting
	if askCounts {
		x.counting, x.first = true, r
		x.counts = make([]int64, j.cfg.Size)
	}
	firstIn := x.n == 1 && strings.HasPrefix(name, "a:")
	j.mu.Unlock()
	if firstIn {
		j.arrived(name)
		for _, w := range j.conns {
			if w != nil {
				_ = w.send(message{T: "first", Name: name}, j.cfg.LostAfter)
			}
		}
	}
	if askCounts {
		phase := strings.TrimPrefix(name, "end:")
		for _, w := range j.conns {
			if w != nil {
				_ = w.send(message{T: "count", Name: phase}, j.cfg.LostAfter)
			}
		}
		j.leaderCounted(0, phase, j.counter(phase))
	}
	j.maybeRelease(name, x)
	return x
}

func (j *Job) leaderCounted(r int, phase string, n int64) {
	name := "end:" + phase
	j.mu.Lock()
	x := j.xs[name]
	if x == nil || x.counts == nil {
		j.mu.Unlock()
		return
	}
	x.counts[r] = n
	x.ncounts++
	j.mu.Unlock()
	j.maybeRelease(name, x)
}

// maybeRelease lets every rank go on once the exchange is complete.
func (j *Job) maybeRelease(name string, x *exchange) {
	j.mu.Lock()
	if !x.complete() || j.ctx.Err() != nil {
		j.mu.Unlock()
		return
	}
	select {
	case <-x.done:
		j.mu.Unlock()
		return
	default:
	}
	close(x.done)
	j.mu.Unlock()
	msg := message{T: "go", Name: name}
	if strings.HasPrefix(name, "a:") { // AllGather: every rank gets it all
		msg.Data, _ = json.Marshal(x.data)
	}
	for _, w := range j.conns {
		if w != nil {
			_ = w.send(msg, j.cfg.LostAfter)
		}
	}
}

// heartbeat sends a ping every LostAfter/5 until the job shuts down, also
// after an abort: a rank cleaning up before Stop returns is alive.
func (j *Job) heartbeat(send func(message)) {
	t := time.NewTicker(j.heartbeatEvery())
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
			send(message{T: "ping"})
		}
	}
}
