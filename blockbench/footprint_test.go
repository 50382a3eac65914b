package blockbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/limits"
	"github.com/clydebench/clyde/result"
)

// TestGroupFootprintSummed: the jobs of one group run at once, so the
// limits are checked against their sum. Each job here fits the faked
// limit on its own, and the group, or fio's numjobs clones (a workload
// each), does not: refused in one line before any file is made. The same
// jobs split by a stonewall run one after another and fit.
func TestGroupFootprintSummed(t *testing.T) {
	const mib = 1 << 20
	job := func(dir, name string, numJobs int) Workload {
		return Workload{Name: name, Filename: filepath.Join(dir, name), RW: Write, BS: 4 << 10, Size: 1 << 20, IODepth: 1,
			NumJobs: numJobs, IOEngine: EnginePsync, Runtime: 10 * time.Millisecond, TimeBased: true, Buffer: Buffer{Kind: BufferRandom}, Seed: 1}
	}
	cases := []struct {
		name   string
		limits limits.Limits
		groups func(dir string) []Group
		want   string // "" when it fits
	}{
		{"pids.max: two jobs of 16", limits.Limits{Pids: 30, PidsSet: true},
			func(d string) []Group { return []Group{{job(d, "a", 16), job(d, "b", 16)}} }, "pids.max"},
		{"pids.max: numjobs clones", limits.Limits{Pids: 30, PidsSet: true},
			func(d string) []Group {
				var g Group
				for range 32 {
					g = append(g, job(d, "a", 1))
				}
				return []Group{g}
			}, "job a x32"},
		{"memory: histograms of two jobs", limits.Limits{Memory: 24 * mib},
			func(d string) []Group { return []Group{{job(d, "a", 8), job(d, "b", 8)}} }, "memory.max"},
		{"address space", limits.Limits{AddressSpace: 2200 * mib, AddressInUse: 1700 * mib, ThreadStack: 8 * mib, MallocArenas: 16},
			func(d string) []Group { return []Group{{job(d, "a", 4), job(d, "b", 4)}} }, "RLIMIT_AS"},
		{"open files", limits.Limits{Files: 40, FilesOpen: 10},
			func(d string) []Group { return []Group{{job(d, "a", 8), job(d, "b", 8)}} }, "ulimit -n"},
		{"stonewall between them", limits.Limits{Pids: 30, PidsSet: true},
			func(d string) []Group { return []Group{{job(d, "a", 16)}, {job(d, "b", 16)}} }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			old := limits.Read
			limits.Read = func() (limits.Limits, error) { return tc.limits, nil }
			t.Cleanup(func() { limits.Read = old })
			dir := t.TempDir()
			res, err := RunPlan(context.Background(), Plan{Groups: tc.groups(dir)})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if res != nil || !result.IsUsage(err) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "at the same time") {
				t.Fatalf("err = %v, want a usage error naming %q for the group", err, tc.want)
			}
			if es, _ := os.ReadDir(dir); len(es) != 0 {
				t.Errorf("the refused plan left %v", es)
			}
		})
	}
}
