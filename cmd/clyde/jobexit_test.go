package main

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/coord"
	"github.com/clydebench/clyde/internal/launch"
	"github.com/clydebench/clyde/result"
)

// startRankJobs is a job of size in-process ranks over loopback, each as
// joinJob would leave it.
func startRankJobs(t *testing.T, size int, ctxs ...context.Context) []*rankJob {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rjs := make([]*rankJob, size)
	var wg sync.WaitGroup
	for r := range size {
		wg.Go(func() {
			cfg := coord.Config{Rank: r, Size: size, Host: "h", Version: "v", OptionsHash: "x", Token: []byte("0123456789abcdef"),
				Job: "7.0", HelloTimeout: 10 * time.Second, LostAfter: 2 * time.Second}
			ctx := context.Background()
			if r < len(ctxs) && ctxs[r] != nil {
				ctx = ctxs[r] // the process's signal context
			}
			var j *coord.Job
			var err error
			if r == 0 {
				j, err = coord.Lead(ctx, ln, cfg)
			} else {
				j, err = coord.Join(ctx, []string{ln.Addr().String()}, cfg)
			}
			if err != nil {
				t.Errorf("rank %d: %v", r, err)
				return
			}
			rjs[r] = &rankJob{info: &launch.Info{Rank: r, Size: size, Host: "h"}, job: j, ctx: j.Context()}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return rjs
}

// TestAbortedJobExitsAlike: every rank of a job that did not finish exits
// with the code of the job's verdict, whatever its own error: a usage error
// on one rank is 1 beside the others' 1 (Hydra would OR 2|1 into 3), and a
// rank whose own ^C came after another rank's failure exits 1 too (130|1
// would be 131). No rank prints a result (jobAborted).
func TestAbortedJobExitsAlike(t *testing.T) {
	cases := []struct {
		name  string
		first int
		errs  []error // each rank's own error; first's reaches rank 0 first
		want  int
	}{
		{"usage error on one rank", 1, []error{nil, result.Usagef("-d", "no such directory"), nil}, exitFailed},
		{"a later interrupt", 2, []error{context.Canceled, nil, errors.New("create: no space left on device")}, exitFailed},
		{"interrupted first", 1, []error{result.Usagef("--json", "bad"), context.Canceled, nil}, exitInterrupted},
	}
	t.Run("its own ^C after another rank failed", func(t *testing.T) {
		// Rank 1's ^C cancels its context before it hears of rank 2's
		// failure; rank 0 heard of that first, and rank 1 exits on it.
		sig, interrupt := context.WithCancel(context.Background())
		rjs := startRankJobs(t, 3, nil, sig)
		interrupt()
		<-rjs[1].job.Context().Done()
		rjs[2].job.Abort(errors.New("create: no space left on device"))
		for rjs[1].job.Verdict() == nil {
			time.Sleep(time.Millisecond)
		}
		codes := make([]int, 3)
		var wg sync.WaitGroup
		for r, rj := range rjs {
			wg.Go(func() {
				own := rj.job.Err()
				if r == 1 {
					own = errInterrupted
				}
				codes[r] = exitCode(rj.end(context.Background(), own, nil))
			})
		}
		wg.Wait()
		if codes[0] != exitFailed || codes[1] != exitFailed || codes[2] != exitFailed {
			t.Fatalf("codes %v, want 1 on every rank", codes)
		}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rjs := startRankJobs(t, 3)
			rjs[tc.first].job.Abort(tc.errs[tc.first])
			for _, rj := range rjs {
				<-rj.job.Context().Done()
			}
			codes := make([]int, 3)
			var wg sync.WaitGroup
			for r, rj := range rjs {
				wg.Go(func() {
					own := tc.errs[r]
					if own == nil {
						own = rj.job.Err() // stopped by the others
					}
					err := rj.end(context.Background(), own, func() error { t.Error("a merge in a job that did not finish"); return nil })
					if !jobAborted(err) {
						t.Errorf("rank %d: %v is not an aborted job's end: its result would be printed", r, err)
					}
					codes[r] = exitCode(err)
				})
			}
			wg.Wait()
			for r, c := range codes {
				if c != tc.want {
					t.Errorf("rank %d exits %d, want %d (codes %v)", r, c, tc.want, codes)
				}
			}
		})
	}
}

// TestTokenExposed: a token file that group or others may read or write is
// flagged (rank 0 warns once for every rank that has one); one only its
// owner reads is not.
func TestTokenExposed(t *testing.T) {
	if runtime.GOOS == "windows" {
		clydetest.Skip(t, "no mode bits")
	}
	for mode, want := range map[os.FileMode]bool{0o600: false, 0o400: false, 0o640: true, 0o604: true, 0o620: true, 0o644: true} {
		p := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(p, []byte("0123456789abcdef\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if got := tokenExposed(p); got != want {
			t.Errorf("mode %v: exposed %v, want %v", mode, got, want)
		}
	}
}
