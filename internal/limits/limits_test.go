package limits

import (
	"errors"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// TestCheck: each limit refuses a run that goes over it, in one line naming
// the limit, and lets one that fits through.
func TestCheck(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name string
		l    Limits
		n    Need
		want string // "" when the run fits
	}{
		{"no limits", Limits{}, Need{Memory: 1 << 40, Threads: 1 << 20, Files: 1 << 20}, ""},
		{"memory within half", Limits{Memory: 300 * mib}, Need{Memory: 150 * mib}, ""},
		{"600 workers' histograms under 300 MiB", Limits{Memory: 300 * mib}, Need{Memory: 600 * 800 << 10}, "memory.max"},
		{"address space", Limits{AddressSpace: 1 << 30, AddressInUse: 800 * mib, ThreadStack: 8 * mib}, Need{Threads: 64}, "RLIMIT_AS"},
		{"address space fits", Limits{AddressSpace: 4 << 30, AddressInUse: 800 * mib, ThreadStack: 8 * mib}, Need{Threads: 64}, ""},
		// Measured: 16 workers under ulimit -v 2200000 died with
		// "pthread_create failed", each new thread taking a glibc malloc
		// arena of 64 MiB besides its stack; without cgo they fit.
		{"malloc arenas of 16 workers", Limits{AddressSpace: 2200 * mib, AddressInUse: 1700 * mib, ThreadStack: 8 * mib, MallocArenas: 16}, Need{Threads: 16}, "RLIMIT_AS"},
		{"16 workers without cgo", Limits{AddressSpace: 2200 * mib, AddressInUse: 1700 * mib, ThreadStack: 8 * mib}, Need{Threads: 16}, ""},
		{"buffers in whole heap arenas", Limits{AddressSpace: 2000 * mib, AddressInUse: 1700 * mib, ThreadStack: 8 * mib}, Need{Memory: 200 * mib, Threads: 1}, "RLIMIT_AS"},
		{"1000 workers under pids.max", Limits{Pids: 500, PidsSet: true}, Need{Threads: 1000}, "pids.max"},
		{"pids.max full", Limits{Pids: 0, PidsSet: true}, Need{Threads: 1}, "pids.max"},
		{"RLIMIT_NPROC", Limits{Nproc: 100}, Need{Threads: 200}, "RLIMIT_NPROC"},
		{"open files", Limits{Files: 64, FilesOpen: 3}, Need{Files: 100}, "ulimit -n"},
		{"open files fit", Limits{Files: 1024, FilesOpen: 3}, Need{Files: 100}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.l.Check(tc.n)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil || !result.IsUsage(err) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want a one-line usage error naming %q", err, tc.want)
			}
		})
	}
}

func TestCheckFiles(t *testing.T) {
	if err := (Limits{Files: 6, FilesOpen: 3}).checkFiles(0); err == nil || !strings.Contains(err.Error(), "ulimit -n") {
		t.Fatalf("ulimit -n 6: err = %v", err)
	}
	if err := (Limits{Files: 1024, FilesOpen: 3}).checkFiles(0); err != nil {
		t.Fatal(err)
	}
}

// TestSum: what runs at once adds up, and saturates rather than wraps.
func TestSum(t *testing.T) {
	s := Sum(Need{Memory: 1 << 20, Threads: 16, Files: 20}, Need{Memory: 2 << 20, Threads: 16, Files: 20})
	if s.Memory != 3<<20 || s.Threads != 32 || s.Files != 40 {
		t.Fatalf("Sum = %+v", s)
	}
	big := Sum(Need{Memory: ^uint64(0), Threads: int(^uint(0) >> 1)}, Need{Memory: 1, Threads: 1})
	if big.Memory != ^uint64(0) || big.Threads != int(^uint(0)>>1) {
		t.Fatalf("Sum wrapped: %+v", big)
	}
	if err := (Limits{Pids: 30, PidsSet: true}).Check(s); err == nil {
		t.Fatal("the sum of two 16-thread jobs fit under pids.max 30")
	}
}

// TestTogether: workloads that each fit are refused together, in one line
// naming them with their clones counted and the flag given; a single
// workload and a sum that fits pass, as does a machine whose limits cannot
// be read.
func TestTogether(t *testing.T) {
	old := Read
	t.Cleanup(func() { Read = old })
	lim := Limits{Pids: 30, PidsSet: true, Files: 100}
	Read = func() (Limits, error) { return lim, nil }
	sixteen := Need{Threads: 16, Files: 17}
	g := Together{Flag: "numjobs", What: "their buffers"}
	g.Add("a", sixteen)
	if err := g.Check(16, 0); err != nil {
		t.Fatalf("one workload: %v", err)
	}
	g.Add("b", sixteen)
	err := g.Check(32, 0)
	var ue *result.UsageError
	if !errors.As(err, &ue) || ue.Flag != "numjobs" || !strings.HasPrefix(ue.Msg, "job a, job b run at the same time (32 workers;") || !strings.Contains(err.Error(), "pids.max") {
		t.Fatalf("two of 16: %v", err)
	}
	clones := Together{}
	for range 32 {
		clones.Add("c", Need{Threads: 1})
	}
	for _, n := range []string{"d", "e", "f", "g", "h"} {
		clones.Add(n, Need{})
	}
	if err := clones.Check(32, 0); err == nil || !strings.Contains(err.Error(), "job c x32, job d, job e, job f, 2 more run at the same time") {
		t.Fatalf("clones: %v", err)
	}
	// files replaces the summed descriptors: 2 x 17 fit under 100, 200 do not.
	lim = Limits{Files: 100}
	if err := g.Check(32, 0); err != nil {
		t.Fatalf("34 files under 100: %v", err)
	}
	if err := g.Check(32, 200); err == nil || !strings.Contains(err.Error(), "ulimit -n") {
		t.Fatalf("200 files under 100: %v", err)
	}
	Read = func() (Limits, error) { return Limits{}, errors.New("no /proc") }
	if err := g.Check(32, 200); err != nil {
		t.Fatalf("unreadable limits refused: %v", err)
	}
}
