package fsbench

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/clydebench/clyde/result"
)

// pair is two in-process "ranks" in step: a barrier before and after each
// phase, and an exchange of directory names for the rank shift. peerDirs,
// when set, replaces what a rank hears from its peer.
type pair struct {
	mu       sync.Mutex
	cond     *sync.Cond
	n, round int
	dirs     [2][2]string
	peerDirs func(rank int, got [2]string) [2]string
}

func newPair() *pair { p := &pair{}; p.cond = sync.NewCond(&p.mu); return p }

func (p *pair) wait() {
	p.mu.Lock()
	defer p.mu.Unlock()
	round := p.round
	if p.n++; p.n == 2 {
		p.n, p.round = 0, p.round+1
		p.cond.Broadcast()
		return
	}
	for round == p.round {
		p.cond.Wait()
	}
}

type pairRank struct {
	p    *pair
	rank int
	used [2]string // the peer directories this rank was given
}

func (r *pairRank) Before(context.Context, int, result.FSTest, func() int64) error {
	r.p.wait()
	return nil
}

func (r *pairRank) After(context.Context, int, result.FSTest, *result.FSTestResult) error {
	r.p.wait()
	return nil
}

func (r *pairRank) PeerDirs(_ context.Context, private, testDir string) (string, string, error) {
	r.p.mu.Lock()
	r.p.dirs[r.rank] = [2]string{private, testDir}
	r.p.mu.Unlock()
	r.p.wait()
	r.p.mu.Lock()
	got := r.p.dirs[1-r.rank]
	r.p.mu.Unlock()
	if r.p.peerDirs != nil {
		got = r.p.peerDirs(r.rank, got)
	}
	r.used = got
	return got[0], got[1], nil
}

// runPair runs the file tests on two ranks at once in dir, each shifted onto
// the other's files.
func runPair(t *testing.T, dir string, p *pair, copies int) ([2]*pairRank, [2]error) {
	t.Helper()
	var ranks [2]*pairRank
	var errs [2]error
	var wg sync.WaitGroup
	for r := range 2 {
		ranks[r] = &pairRank{p: p, rank: r}
		o := smallOptions(dir)
		o.SizeMiB, o.Concurrency, o.RankShift, o.Phases = 0, copies, 1, ranks[r]
		o.MaxFileBytes, o.MinFileBytes = 0, 0
		wg.Go(func() { _, errs[r] = Run(context.Background(), o) })
	}
	wg.Wait()
	return ranks, errs
}

func TestRankShift(t *testing.T) {
	for _, copies := range []int{1, 2} {
		dir := t.TempDir()
		ranks, errs := runPair(t, dir, newPair(), copies)
		for r, err := range errs {
			if err != nil {
				t.Fatalf("%d copies: rank %d: %v", copies, r, err)
			}
		}
		for r, pr := range ranks {
			if !strings.HasPrefix(pr.used[0], "clyde.") || pr.used == ranks[1-r].used {
				t.Fatalf("rank %d used %v, rank %d %v", r, pr.used, 1-r, ranks[1-r].used)
			}
		}
		assertEmptyDir(t, dir)
	}
}

func TestRankShiftRefusals(t *testing.T) {
	cases := []struct {
		name string
		// peer rewrites what each rank hears from the other
		peer func(got [2]string) [2]string
		want string
	}{
		{"a name that is not a run directory", func(got [2]string) [2]string { return [2]string{"..", got[1]} }, "not a clyde run directory"},
		{"a test directory that is not one", func(got [2]string) [2]string { return [2]string{got[0], "../../etc"} }, "not a clyde run directory"},
		{"a run directory not in this -d", func(got [2]string) [2]string { return [2]string{"clyde.1.00000000", got[1]} }, "is not visible here"},
		// the stat phase really goes to the peer's test directory
		{"a test directory the peer does not have", func(got [2]string) [2]string { return [2]string{got[0], "Bonnie.1"} }, "no such file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := newPair()
			p.peerDirs = func(_ int, got [2]string) [2]string { return tc.peer(got) }
			_, errs := runPair(t, dir, p, 1)
			for r, err := range errs {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("rank %d: %v, want %q", r, err, tc.want)
				}
			}
			assertEmptyDir(t, dir)
		})
	}
	t.Run("no many-client job", func(t *testing.T) {
		o := smallOptions(t.TempDir())
		o.RankShift = 1
		_, err := Run(context.Background(), o)
		var ue *result.UsageError
		if !errors.As(err, &ue) {
			t.Fatalf("got %v, want a usage error", err)
		}
	})
}

func TestSharedDirNeedsAJob(t *testing.T) {
	o := smallOptions(t.TempDir())
	o.SharedDir = true
	_, err := Run(context.Background(), o)
	var ue *result.UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--shared-dir") {
		t.Fatalf("got %v, want a usage error naming --shared-dir", err)
	}
}
