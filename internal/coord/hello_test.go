package coord

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawHello speaks a rank's side of the hello by hand, without checking
// rank 0's proof, and returns rank 0's answer to the hello.
func rawHello(t *testing.T, addr string, cfg Config) message {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w := newWire(c)
	deadline := time.Now().Add(5 * time.Second)
	nonce := NewToken()
	if err := w.sendBy(message{T: "open", Job: cfg.Job, Nonce: nonce}, deadline); err != nil {
		t.Fatal(err)
	}
	proof, err := w.recvBy(deadline, maxHello)
	if err != nil || proof.T != "proof" {
		t.Fatalf("proof: %+v %v", proof, err)
	}
	h := &hello{Peer: Peer{Rank: cfg.Rank, Host: cfg.Host, PID: cfg.PID}, Size: cfg.Size, Version: cfg.Version, OptionsHash: cfg.OptionsHash, Via: c.RemoteAddr().String()}
	h.MAC = helloMAC(cfg.Token, cfg.Job, nonce, proof.Nonce, h)
	if err := w.sendBy(message{T: "hello", Hello: h}, deadline); err != nil {
		t.Fatal(err)
	}
	reply, err := w.recvBy(deadline, maxHello)
	if err != nil {
		t.Fatalf("no answer to the hello: %v", err)
	}
	return reply
}

// impostor listens as a program without the token would: it answers a
// rank's open with a proof it cannot make (a MAC under another key, for the
// job the rank named), or, with oldProtocol, greets every connection with
// a challenge as rank 0 did before ranks checked it. It records every line
// it is sent.
type impostor struct {
	ln    net.Listener
	mu    sync.Mutex
	lines []string
}

func newImpostor(t *testing.T, oldProtocol bool) *impostor {
	im := &impostor{ln: listen(t)}
	t.Cleanup(func() { im.ln.Close() })
	go func() {
		for {
			c, err := im.ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				w := newWire(c)
				if oldProtocol {
					_ = w.send(message{T: "challenge", Nonce: NewToken()}, time.Second)
				}
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					im.mu.Lock()
					im.lines = append(im.lines, line)
					im.mu.Unlock()
					var m message
					if json.Unmarshal([]byte(line), &m) == nil && m.T == "open" {
						forged := proofMAC([]byte("a guess at the token"), m.Job, m.Nonce, "0123456789abcdef")
						_ = w.send(message{T: "proof", Job: m.Job, Nonce: "0123456789abcdef", MAC: forged}, time.Second)
					}
					if m.T == "hello" {
						_ = w.send(message{T: "welcome"}, time.Second)
					}
				}
			}()
		}
	}()
	return im
}

func (im *impostor) heard() []string {
	im.mu.Lock()
	defer im.mu.Unlock()
	return append([]string(nil), im.lines...)
}

// TestImpostorGetsNoHello: whatever listens on rank 0's address without the
// token learns the rank's job and a nonce, never its hello (rank, host,
// pid, options), and the rank gives up with one line.
func TestImpostorGetsNoHello(t *testing.T) {
	t.Run("forged proof", func(t *testing.T) {
		im := newImpostor(t, false)
		cfg := cfgFor(1, 3)
		cfg.Job = "77.0"
		_, err := Join(context.Background(), []string{im.ln.Addr().String()}, cfg)
		var pe *ProofError
		if !errors.As(err, &pe) || strings.Contains(err.Error(), "\n") {
			t.Fatalf("got %v, want a ProofError", err)
		}
		heard := im.heard()
		if len(heard) != 1 || !strings.Contains(heard[0], `"t":"open"`) || !strings.Contains(heard[0], `"job":"77.0"`) {
			t.Fatalf("the impostor heard %q, want the open alone", heard)
		}
	})
	t.Run("old challenge", func(t *testing.T) {
		im := newImpostor(t, true)
		cfg := cfgFor(1, 3)
		cfg.HelloTimeout = 300 * time.Millisecond
		_, err := Join(context.Background(), []string{im.ln.Addr().String()}, cfg)
		if err == nil || !strings.Contains(err.Error(), "not a clyde rank 0") {
			t.Fatalf("got %v", err)
		}
		for _, l := range im.heard() {
			if !strings.Contains(l, `"t":"open"`) {
				t.Fatalf("the impostor heard %q", l)
			}
		}
	})
}

// TestTwoJobsOneToken: two jobs that share a token (one token file) and a
// host never join each other: a rank passes over the other job's rank 0,
// at whichever address it finds it first, to its own, and neither job sees
// the other's ranks.
func TestTwoJobsOneToken(t *testing.T) {
	lnA, lnB := listen(t), listen(t)
	addrs := []string{lnA.Addr().String(), lnB.Addr().String()}
	type ranks struct{ jobs []*Job }
	start := func(job string, ln net.Listener) *ranks {
		rs := &ranks{jobs: make([]*Job, 3)}
		var wg sync.WaitGroup
		for r := range 3 {
			wg.Go(func() {
				cfg := cfgFor(r, 3)
				cfg.Job = job
				var err error
				if r == 0 {
					rs.jobs[r], err = Lead(context.Background(), ln, cfg)
				} else {
					rs.jobs[r], err = Join(context.Background(), addrs, cfg)
				}
				if err != nil {
					t.Errorf("job %s rank %d: %v", job, r, err)
				}
			})
		}
		wg.Wait()
		return rs
	}
	var a, b *ranks
	var wg sync.WaitGroup
	wg.Go(func() { a = start("41.0", lnA) })
	wg.Go(func() { b = start("42.0", lnB) })
	wg.Wait()
	if t.Failed() {
		return
	}
	for name, rs := range map[string]*ranks{"A": a, "B": b} {
		errs := eachRank(rs.jobs, func(j *Job) error {
			if err := j.Barrier(context.Background(), "x"); err != nil {
				return err
			}
			return j.Close(context.Background())
		})
		for r, err := range errs {
			if err != nil {
				t.Errorf("job %s rank %d: %v", name, r, err)
			}
		}
	}
	// Each job's rank 0 heard only its own ranks' pids.
	for _, p := range a.jobs[0].Peers()[1:] {
		if p.PID != 1000+p.Rank {
			t.Errorf("job A's peers %+v", a.jobs[0].Peers())
		}
	}
}

// TestPendingBounded: a flood of idle connections holds at most MaxPending
// hellos in rank 0; the others are closed at accept, and the job still
// starts once the held ones are gone.
func TestPendingBounded(t *testing.T) {
	defer func(d time.Duration) { handshakeTimeout = d }(handshakeTimeout)
	handshakeTimeout = time.Hour // the held ones stay held for the whole test
	ln := listen(t)
	lead := make(chan error, 1)
	var j0 *Job
	go func() {
		var err error
		j0, err = Lead(context.Background(), ln, cfgFor(0, 2))
		lead <- err
	}()
	const flood = 1000
	var mu sync.Mutex
	eof := 0
	var conns []net.Conn
	for range flood {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		go func() {
			if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) {
				mu.Lock()
				eof++
				mu.Unlock()
			}
		}()
	}
	closeAll := func() {
		for _, c := range conns {
			c.Close()
		}
	}
	defer closeAll()
	// All but MaxPending are closed at accept; the held ones would wait
	// for an hour.
	deadline := time.Now().Add(time.Minute)
	for {
		mu.Lock()
		e := eof
		mu.Unlock()
		if e >= flood-MaxPending {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d idle connections closed: rank 0 holds %d in their hello, more than %d", e, flood, flood-e, MaxPending)
		}
		time.Sleep(10 * time.Millisecond)
	}
	closeAll() // the held ones go; their places are free again
	j1, err := Join(context.Background(), []string{ln.Addr().String()}, cfgFor(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if err := <-lead; err != nil {
		t.Fatal(err)
	}
	errs := eachRank([]*Job{j0, j1}, func(j *Job) error { return j.Close(context.Background()) })
	if errs[0] != nil || errs[1] != nil {
		t.Fatal(errs)
	}
}

// TestRelayRefused: a relay on another port that passes a rank's bytes to
// rank 0 (and back) gets both proofs through, but the port the rank dialed,
// under its MAC, is not the one rank 0 was reached on: refused.
func TestRelayRefused(t *testing.T) {
	ln := listen(t)
	relay := listen(t)
	go func() {
		for {
			c, err := relay.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	go func() { _, _ = Lead(context.Background(), ln, cfgFor(0, 2)) }()
	_, err := Join(context.Background(), []string{relay.Addr().String()}, cfgFor(1, 2))
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "relayed") {
		t.Fatalf("through a relay: %v", err)
	}
}

// TestVerdictOnEveryRank: however the ranks' own ends differ (one failed,
// one interrupted after it, one stopped by the others), every rank ends
// with rank 0's verdict, the first abort it heard of.
func TestVerdictOnEveryRank(t *testing.T) {
	jobs, errs := startJob(t, 3, nil)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	jobs[2].Abort(errors.New("-d: no such directory"))
	<-jobs[1].Context().Done()
	var wg sync.WaitGroup
	for r, j := range jobs {
		wg.Go(func() {
			err := j.Err()
			if r == 1 {
				err = context.Canceled // a ^C that came later on this rank
			}
			j.Stop(err, time.Minute)
		})
	}
	wg.Wait()
	for r, j := range jobs {
		v := j.Verdict()
		if v == nil || v.Rank != 2 || v.Interrupted || !strings.Contains(v.Reason, "no such directory") {
			t.Errorf("rank %d's verdict %+v, want rank 2's failure", r, v)
		}
	}
}

// TestInterruptedWhileWaiting: a ^C on rank 0 while it waits for a rank
// ends the ranks already in as interrupted, not as ranks whose rank 0 is
// lost.
func TestInterruptedWhileWaiting(t *testing.T) {
	welcomed := make(chan int, 1)
	onWelcome = func(r int) { welcomed <- r }
	defer func() { onWelcome = nil }()
	ln := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	lead := make(chan error, 1)
	go func() {
		_, err := Lead(ctx, ln, cfgFor(0, 3))
		lead <- err
	}()
	joined := make(chan error, 1)
	go func() {
		_, err := Join(context.Background(), []string{ln.Addr().String()}, cfgFor(1, 3))
		joined <- err
	}()
	<-welcomed // rank 1 is in; rank 2 never comes
	cancel()
	if err := <-lead; !errors.Is(err, context.Canceled) {
		t.Fatalf("rank 0: %v", err)
	}
	err := <-joined
	var ae *AbortError
	if !errors.As(err, &ae) || !ae.Interrupted || !errors.Is(err, context.Canceled) {
		t.Fatalf("rank 1: %v, want rank 0's interruption", err)
	}
}

// TestSilentConnectionDeadline: a connection that says nothing is closed
// at the hello's deadline, and its place is free again.
func TestSilentConnectionDeadline(t *testing.T) {
	defer func(d time.Duration) { handshakeTimeout = d }(handshakeTimeout)
	handshakeTimeout = 100 * time.Millisecond
	ln := listen(t)
	cfg := cfgFor(0, 2)
	cfg.HelloTimeout = time.Minute // rank 0 still waits for its rank when the stranger's time is up
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _ = Lead(ctx, ln, cfg) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("a silent connection: %v, want rank 0 to close it at the hello's deadline", err)
	}
}
