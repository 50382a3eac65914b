package coord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var testToken = []byte("0123456789abcdef0123456789abcdef")

func cfgFor(rank, size int) Config {
	return Config{Rank: rank, Size: size, Host: fmt.Sprintf("h%d", rank), PID: 1000 + rank, Version: "v1",
		OptionsHash: "hash", Token: testToken, HelloTimeout: 5 * time.Second, LostAfter: 2 * time.Second}
}

func listen(t testing.TB) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

// startJob starts size in-process ranks over loopback; tweak may change a
// rank's config before it starts. It returns the jobs by rank (nil where a
// rank failed to start) and each rank's start error.
func startJob(t testing.TB, size int, tweak func(*Config)) ([]*Job, []error) {
	t.Helper()
	ln := listen(t)
	jobs, errs := make([]*Job, size), make([]error, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Go(func() {
			cfg := cfgFor(r, size)
			if tweak != nil {
				tweak(&cfg)
			}
			if r == 0 {
				jobs[r], errs[r] = Lead(context.Background(), ln, cfg)
			} else {
				jobs[r], errs[r] = Join(context.Background(), []string{"127.0.0.1:1", ln.Addr().String()}, cfg)
			}
		})
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, j := range jobs {
			if j != nil {
				j.shutdown()
			}
		}
	})
	return jobs, errs
}

// eachRank runs f on every rank at once and returns their errors.
func eachRank(jobs []*Job, f func(j *Job) error) []error {
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for r, j := range jobs {
		wg.Go(func() { errs[r] = f(j) })
	}
	wg.Wait()
	return errs
}

type phaseResult struct {
	Rank  int   `json:"rank"`
	Items int64 `json:"items"`
}

func TestPhasesAndClose(t *testing.T) {
	const size = 4
	jobs, errs := startJob(t, size, nil)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if got := jobs[3].Peers(); len(got) != size || got[2].Host != "h2" || got[1].PID != 1001 {
		t.Fatalf("peers %+v", got)
	}
	var outcome *Outcome
	errs = eachRank(jobs, func(j *Job) error {
		var done atomic.Int64
		if err := j.Begin(context.Background(), "create/1", done.Load); err != nil {
			return err
		}
		done.Store(int64(10 * (j.Rank() + 1)))
		out, err := j.End(context.Background(), "create/1", phaseResult{Rank: j.Rank(), Items: done.Load()})
		if j.Rank() == 0 {
			outcome = out
		} else if out != nil {
			return errors.New("a rank other than 0 got the outcome")
		}
		if err != nil {
			return err
		}
		return j.Close(context.Background())
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	if len(outcome.Data) != size || len(outcome.AtFirst) != size || outcome.First < 0 {
		t.Fatalf("outcome %+v", outcome)
	}
	for r, d := range outcome.Data {
		var pr phaseResult
		if err := json.Unmarshal(d, &pr); err != nil || pr.Rank != r || pr.Items != int64(10*(r+1)) {
			t.Fatalf("rank %d's result %s (%v)", r, d, err)
		}
	}
	if got := outcome.AtFirst[outcome.First]; got != int64(10*(outcome.First+1)) {
		t.Fatalf("the first rank's count at its own end is %d", got)
	}
	for _, j := range jobs {
		if j.Err() != context.Canceled && j.Err() != nil {
			t.Fatalf("after Close: %v", j.Err())
		}
	}
}

func TestHelloRefusals(t *testing.T) {
	cases := []struct {
		name    string
		tweak   func(*Config)
		refused string
	}{
		{"options", func(c *Config) {
			if c.Rank == 2 {
				c.OptionsHash = "other"
			}
		}, "its options differ"},
		{"version", func(c *Config) {
			if c.Rank == 1 {
				c.Version = "v2"
			}
		}, "clyde v2, rank 0 runs clyde v1"},
		{"size", func(c *Config) {
			if c.Rank == 1 {
				c.Size = 4
			}
		}, "one of 4 ranks"},
		{"duplicate", func(c *Config) {
			if c.Rank == 2 {
				c.Rank = 1
			}
		}, "connected twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// Ranks that had not connected when rank 0 gave up keep
			// dialing for HelloTimeout: keep it short.
			_, errs := startJob(t, 3, func(c *Config) { c.HelloTimeout = 500 * time.Millisecond; tc.tweak(c) })
			var ae *AbortError
			if !errors.As(errs[0], &ae) || !strings.Contains(ae.Error(), "refused at hello: ") || !strings.Contains(ae.Error(), tc.refused) {
				t.Fatalf("rank 0: %v", errs[0])
			}
			refused := 0
			for _, err := range errs[1:] {
				var re *RefusedError
				if errors.As(err, &re) {
					refused++
				} else if err == nil {
					t.Fatal("a rank joined a job that was refused")
				}
			}
			if refused == 0 {
				t.Fatalf("no rank was told it was refused: %v", errs)
			}
		})
	}
}

func TestStrangerRefused(t *testing.T) {
	ln := listen(t)
	lead := make(chan error, 1)
	var j0 *Job
	go func() {
		var err error
		j0, err = Lead(context.Background(), ln, cfgFor(0, 2))
		lead <- err
	}()
	cfg := cfgFor(1, 2)
	cfg.Token = []byte("not the token")
	// A rank with another token cannot check rank 0's proof: it stops
	// there and sends nothing more.
	_, err := Join(context.Background(), []string{ln.Addr().String()}, cfg)
	var pe *ProofError
	if !errors.As(err, &pe) {
		t.Fatalf("stranger: %v", err)
	}
	// One that sends its hello anyway, with a MAC from the wrong token,
	// is refused.
	if reply := rawHello(t, ln.Addr().String(), cfg); reply.T != "refuse" || reply.Text != "wrong job token" {
		t.Fatalf("a hello with the wrong token got %+v", reply)
	}
	// A raw connection that says nothing holds nothing either; the job
	// still starts with the real rank.
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
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

func TestRankLost(t *testing.T) {
	cases := []struct {
		name   string
		victim int
		kill   func(j *Job)
		reason string
	}{
		{"disconnect", 2, func(j *Job) { j.up.conn.Close() }, "lost: connection closed"},
		{"rank 0 disconnects", 0, func(j *Job) { dead(j); j.closeConns() }, "lost: connection closed"},
		{"hang", 1, func(j *Job) {
			dead(j)
			close(j.stop) // heartbeats stop; the socket stays open
		}, "silent for"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jobs, errs := startJob(t, 4, func(c *Config) { c.LostAfter = 300 * time.Millisecond })
			for r, err := range errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			victim := jobs[tc.victim]
			tc.kill(victim)
			for r, j := range jobs {
				if r == tc.victim {
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				err := j.Barrier(ctx, "never")
				cancel()
				var ae *AbortError
				if !errors.As(err, &ae) || ae.Rank != tc.victim || ae.Host != fmt.Sprintf("h%d", tc.victim) || !strings.Contains(ae.Reason, tc.reason) {
					t.Fatalf("rank %d: %v, want rank %d (h%d) %s", r, err, tc.victim, tc.victim, tc.reason)
				}
				if errors.Is(err, context.Canceled) {
					t.Fatalf("rank %d: a lost rank reads as an interruption", r)
				}
			}
		})
	}
}

// dead makes a rank say nothing more, as a killed or stopped process would.
func dead(j *Job) {
	j.mu.Lock()
	j.closing = true
	j.mu.Unlock()
}

func TestAbortReachesEveryRank(t *testing.T) {
	cases := []struct {
		name        string
		from        int
		err         error
		interrupted bool
	}{
		{"interrupted", 1, context.Canceled, true},
		{"failed", 2, errors.New("create: no space left on device"), false},
		{"rank 0 fails", 0, errors.New("boom"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jobs, errs := startJob(t, 3, nil)
			for r, err := range errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			jobs[tc.from].Abort(tc.err)
			for r, j := range jobs {
				err := j.Barrier(context.Background(), "after")
				var ae *AbortError
				if !errors.As(err, &ae) || ae.Rank != tc.from || errors.Is(err, context.Canceled) != tc.interrupted {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
		})
	}
}

func TestHelloTimeout(t *testing.T) {
	ln := listen(t)
	cfg := cfgFor(0, 3)
	cfg.HelloTimeout = 300 * time.Millisecond
	go func() {
		c := cfgFor(1, 3)
		c.HelloTimeout = 2 * time.Second
		_, _ = Join(context.Background(), []string{ln.Addr().String()}, c)
	}()
	_, err := Lead(context.Background(), ln, cfg)
	if err == nil || !strings.Contains(err.Error(), "rank 2 never connected") {
		t.Fatalf("got %v", err)
	}
}

// BenchmarkBarrier64 is one barrier across 64 ranks on loopback (make bench).
func BenchmarkBarrier64(b *testing.B) {
	jobs, errs := startJob(b, 64, nil)
	for r, err := range errs {
		if err != nil {
			b.Fatalf("rank %d: %v", r, err)
		}
	}
	b.ResetTimer()
	errs = eachRank(jobs, func(j *Job) error {
		for i := range b.N {
			if err := j.Barrier(context.Background(), fmt.Sprint(i)); err != nil {
				return err
			}
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkJob64 is a whole job's coordination across 64 ranks: hello,
// one phase with its result and first-done counts, and close.
func BenchmarkJob64(b *testing.B) {
	for range b.N {
		jobs, errs := startJob(b, 64, nil)
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
		errs = eachRank(jobs, func(j *Job) error {
			if err := j.Begin(context.Background(), "p", func() int64 { return 1 }); err != nil {
				return err
			}
			if _, err := j.End(context.Background(), "p", phaseResult{Rank: j.Rank(), Items: 1}); err != nil {
				return err
			}
			return j.Close(context.Background())
		})
		for _, err := range errs {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestStopWaitsForEveryRank: a rank that stops waits until every other rank
// has stopped (or is gone) before it leaves, and every rank reads the
// interruption, not a lost rank.
func TestStopWaitsForEveryRank(t *testing.T) {
	cases := []struct {
		name string
		// last ends rank 2, which is still cleaning up when the others stop
		last func(j *Job)
	}{
		{"the last rank stops", func(j *Job) { j.Stop(context.Canceled, time.Minute) }},
		{"the last rank dies", func(j *Job) { dead(j); j.up.conn.Close() }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			jobs, errs := startJob(t, 3, func(c *Config) { c.LostAfter = 500 * time.Millisecond })
			for r, err := range errs {
				if err != nil {
					t.Fatalf("rank %d: %v", r, err)
				}
			}
			left := make(chan int, 3)
			jobs[1].Abort(context.Canceled) // rank 1 is interrupted first
			for _, r := range []int{0, 1} {
				go func() {
					<-jobs[r].Context().Done()
					jobs[r].Stop(jobs[r].Err(), time.Minute)
					left <- r
				}()
			}
			<-jobs[2].Context().Done()
			// Ranks 0 and 1 have stopped; rank 2 is still cleaning up, and
			// heartbeats keep it alive for longer than LostAfter.
			select {
			case r := <-left:
				t.Fatalf("rank %d left while rank 2 was still cleaning up", r)
			case <-time.After(1500 * time.Millisecond):
			}
			tc.last(jobs[2])
			for range 2 {
				select {
				case <-left:
				case <-time.After(30 * time.Second):
					t.Fatal("a rank never left after the last one stopped")
				}
			}
			for r, j := range jobs {
				var ae *AbortError
				if err := j.Err(); !errors.As(err, &ae) && r != 1 || !errors.Is(err, context.Canceled) {
					t.Errorf("rank %d ends with %v, want rank 1's interruption", r, err)
				}
			}
		})
	}
}

func TestAllGather(t *testing.T) {
	const size = 3
	jobs, errs := startJob(t, size, nil)
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	got := make([][]json.RawMessage, size)
	errs = eachRank(jobs, func(j *Job) error {
		var err error
		got[j.Rank()], err = j.AllGather(context.Background(), "dirs", fmt.Sprintf("dir-of-%d", j.Rank()))
		return err
	})
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
		if len(got[r]) != size {
			t.Fatalf("rank %d got %d entries", r, len(got[r]))
		}
		for q, raw := range got[r] {
			if want := fmt.Sprintf("%q", fmt.Sprintf("dir-of-%d", q)); string(raw) != want {
				t.Errorf("rank %d has %s for rank %d, want %s", r, raw, q, want)
			}
		}
	}
}
