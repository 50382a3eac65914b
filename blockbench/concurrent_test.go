package blockbench

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/result"
)

// Two workloads in one group on one file, as ORION's mixed points run them:
// a 4 KiB random mix at 70 % reads on two workers and a 64 KiB sequential
// read at depth 4. Each keeps its own mode, mix and size, they share one
// measurement window, and the group sums them the way fio's group_reporting
// does.
func TestConcurrentWorkloadsOnOneFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared")
	const size = 4 << 20
	small := Workload{Name: "small", Filename: path, RW: RandRW, RWMixRead: 70, BS: 4 << 10, Size: size,
		IODepth: 1, NumJobs: 2, IOEngine: EnginePsync, TimeBased: false, Buffer: Buffer{Kind: BufferRandom}, Seed: 7}
	large := Workload{Name: "large", Filename: path, RW: Read, BS: 64 << 10, Size: size,
		IODepth: 4, NumJobs: 1, IOEngine: EngineAuto, TimeBased: false, Buffer: Buffer{Kind: BufferRandom}, Seed: 8}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{small, large}}, DestroyData: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Jobs) != 2 || len(res.Groups) != 1 {
		t.Fatalf("%d jobs, %d groups; want 2 jobs summed in 1 group", len(res.Jobs), len(res.Groups))
	}
	s, l, g := res.Jobs[0], res.Jobs[1], res.Groups[0]
	// Each worker of a job that is not time-based does one pass of its
	// region: exact counts.
	if n := s.Read.TotalIOs + s.Write.TotalIOs; n != 2*size/(4<<10) {
		t.Errorf("small job did %d I/Os, want 2 workers x %d", n, size/(4<<10))
	}
	if s.Read.IOBytes != s.Read.TotalIOs*(4<<10) || s.Write.IOBytes != s.Write.TotalIOs*(4<<10) {
		t.Errorf("small job moved %d+%d bytes in %d+%d I/Os: not all 4 KiB", s.Read.IOBytes, s.Write.IOBytes, s.Read.TotalIOs, s.Write.TotalIOs)
	}
	if pct := 100 * float64(s.Read.TotalIOs) / float64(s.Read.TotalIOs+s.Write.TotalIOs); pct < 65 || pct > 75 {
		t.Errorf("small job read %.1f%% of its I/Os, want its own mix of 70%%", pct)
	}
	if l.Write.TotalIOs != 0 || l.Read.TotalIOs != size/(64<<10) || l.Read.IOBytes != size {
		t.Errorf("large job: %d reads (%d bytes), %d writes; want %d reads of 64 KiB and no writes",
			l.Read.TotalIOs, l.Read.IOBytes, l.Write.TotalIOs, size/(64<<10))
	}
	if s.Config.BSBytes != 4<<10 || l.Config.BSBytes != 64<<10 || s.Config.RWMixRead != 70 || l.Config.RW != "read" {
		t.Errorf("configs %+v / %+v do not echo each workload", s.Config, l.Config)
	}
	if s.GroupID != 0 || l.GroupID != 0 || g.GroupID != 0 || len(g.Jobs) != 2 || g.Jobs[0] != 0 || g.Jobs[1] != 1 {
		t.Errorf("group %+v does not name both jobs", g)
	}
	if g.Read.TotalIOs != s.Read.TotalIOs+l.Read.TotalIOs || g.Write.TotalIOs != s.Write.TotalIOs ||
		g.Read.IOBytes != s.Read.IOBytes+l.Read.IOBytes || g.Write.IOBytes != s.Write.IOBytes {
		t.Errorf("group read %d/%d B, write %d/%d B: not the jobs' sums", g.Read.TotalIOs, g.Read.IOBytes, g.Write.TotalIOs, g.Write.IOBytes)
	}
	runtime := max(s.Read.RuntimeNs, l.Read.RuntimeNs, s.Write.RuntimeNs)
	if g.Read.RuntimeNs != runtime {
		t.Errorf("group runtime %d ns, want the longest job's %d", g.Read.RuntimeNs, runtime)
	}
	if want := float64(g.Read.TotalIOs) * 1e9 / float64(runtime); g.Read.IOPS != want {
		t.Errorf("group read IOPS %.3f, want summed I/Os over the longest runtime %.3f", g.Read.IOPS, want)
	}
}

func isUsageFor(err error, flag string) bool {
	var ue *result.UsageError
	return errors.As(err, &ue) && ue.Flag == flag
}
