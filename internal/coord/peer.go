package coord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"time"
)

// Join is every rank but 0: it dials rank 0 at one of addrs (tried in
// order, again and again until HelloTimeout, since rank 0 may start later),
// checks that rank 0 holds the token before it says anything else, proves
// it holds it too, and returns once every rank is in. An address where
// another job's rank 0 (or no clyde) answers is passed over; one that
// claims this job without the proof ends the search (*ProofError).
func Join(ctx context.Context, addrs []string, cfg Config) (*Job, error) {
	j := newJob(ctx, cfg)
	deadline := time.Now().Add(j.cfg.HelloTimeout)
	var lastErr error
	for attempt := 0; ; attempt++ {
		for _, a := range addrs {
			w, err := j.dial(ctx, a)
			if err == nil {
				j.up = w
				break
			}
			if isFinal(err) {
				var pe *ProofError
				if errors.As(err, &pe) {
					err = fmt.Errorf("rank %d: %w", j.cfg.Rank, err)
				}
				j.cancel(err)
				return nil, err
			}
			if lastErr == nil || !isOtherJob(lastErr) || isOtherJob(err) {
				lastErr = err // "another job's rank 0" says more than "connection refused"
			}
		}
		if j.up != nil {
			break
		}
		if time.Now().After(deadline) {
			j.cancel(lastErr)
			return nil, fmt.Errorf("rank %d: cannot reach rank 0 at %s within %s: %w", j.cfg.Rank, addrList(addrs), j.cfg.HelloTimeout, lastErr)
		}
		select {
		case <-ctx.Done():
			j.cancel(ctx.Err())
			return nil, ctx.Err()
		case <-time.After(min(time.Duration(attempt+1)*50*time.Millisecond, time.Second)):
		}
	}
	// Heartbeats from now on: rank 0 may wait long for the other ranks.
	j.wg.Add(1)
	go func() {
		defer j.wg.Done()
		j.heartbeat(func(m message) { _ = j.up.send(m, j.cfg.LostAfter) })
	}()
	// Interrupted while waiting for the start: tell rank 0 (it stops the
	// job as interrupted, not as a lost rank) and stop reading.
	stopWatch := context.AfterFunc(ctx, func() {
		_ = j.up.send(message{T: "abort", Abort: &AbortError{Rank: j.cfg.Rank, Host: j.cfg.Host, Reason: "interrupted", Interrupted: true}}, time.Second)
		_ = j.up.conn.SetReadDeadline(time.Now())
	})
	defer stopWatch()
	// Wait for the start: every rank is in.
	for {
		m, err := j.up.recv(j.cfg.HelloTimeout+j.cfg.LostAfter, MaxMessage)
		if err != nil {
			var ae error = &AbortError{Rank: 0, Host: "?", Reason: describe(err, j.cfg.HelloTimeout)}
			if ctx.Err() != nil {
				ae = ctx.Err()
			}
			j.cancel(ae)
			j.shutdown()
			return nil, ae
		}
		switch m.T {
		case "start":
			if len(m.Peers) != j.cfg.Size {
				err := fmt.Errorf("rank 0 listed %d ranks, want %d", len(m.Peers), j.cfg.Size)
				j.cancel(err)
				j.shutdown()
				return nil, err
			}
			j.peers = m.Peers
			j.wg.Add(1)
			go func() { defer j.wg.Done(); j.readLeader() }()
			return j, nil
		case "abort":
			if m.Abort == nil {
				m.Abort = &AbortError{Rank: 0, Reason: "aborted"}
			}
			j.cancel(m.Abort)
			j.shutdown()
			return nil, m.Abort
		}
	}
}

func isOtherJob(err error) bool {
	var oe *otherJobError
	return errors.As(err, &oe)
}

// addrList names the addresses tried: a long list (a port range) by its
// first and last.
func addrList(addrs []string) string {
	if len(addrs) > 3 {
		return fmt.Sprintf("%s ... %s (%d addresses)", addrs[0], addrs[len(addrs)-1], len(addrs))
	}
	return fmt.Sprint(addrs)
}

// dial makes one connection and hello (joinHello), all of it within
// handshakeTimeout.
func (j *Job) dial(ctx context.Context, addr string) (*wire, error) {
	d := net.Dialer{Timeout: 2 * time.Second}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	w := newWire(c)
	if err := j.joinHello(w, addr, time.Now().Add(handshakeTimeout)); err != nil {
		c.Close()
		return nil, err
	}
	return w, nil
}

// readLeader handles what rank 0 sends until the job shuts down or rank 0
// is gone; an abort cancels the job and reading goes on, for the release
// that ends a Stop.
func (j *Job) readLeader() {
	defer j.release()
	for {
		m, err := j.up.recv(j.cfg.LostAfter, MaxMessage)
		if err != nil {
			j.fail(&AbortError{Rank: 0, Host: j.peerHost(0), Reason: describe(err, j.cfg.LostAfter)})
			return
		}
		switch m.T {
		case "go":
			j.mu.Lock()
			x := j.xs[m.Name]
			if x == nil {
				x = newExchange(j.cfg.Size)
				j.xs[m.Name] = x
			}
			select {
			case <-x.done:
			default:
				if m.Data != nil {
					var all []json.RawMessage
					if json.Unmarshal(m.Data, &all) == nil && len(all) == j.cfg.Size {
						x.data = all
					}
				}
				close(x.done)
			}
			j.mu.Unlock()
		case "count":
			n := j.counter(m.Name)
			_ = j.up.send(message{T: "counted", Name: m.Name, Count: n}, j.cfg.LostAfter)
		case "abort":
			if m.Abort != nil {
				j.mu.Lock()
				if j.ctx.Err() == nil {
					j.cancel(m.Abort)
				}
				// rank 0 told everyone: this rank need not tell it back
				j.told = true
				if j.verdict == nil {
					j.verdict = m.Abort
				}
				j.mu.Unlock()
			}
		case "first":
			j.arrived(m.Name)
		case "release":
			j.release()
		}
	}
}

// release lets a stopped rank go (once).
func (j *Job) release() {
	j.mu.Lock()
	defer j.mu.Unlock()
	select {
	case <-j.released:
	default:
		close(j.released)
	}
}
