package blockbench

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

// TestThinkTime: fio's thinktime pauses after every thinktime_blocks I/Os,
// so 8 reads with a 5 ms pause after every second one last at least 4
// pauses. (Only the lower bound is asserted: a loaded machine only adds.)
func TestThinkTime(t *testing.T) {
	w := Workload{Name: "think", Filename: filepath.Join(t.TempDir(), "f"), RW: Read, BS: 4096, Size: 8 * 4096,
		IODepth: 1, NumJobs: 1, IOEngine: EnginePsync, Buffer: Buffer{Kind: BufferRandom}, Seed: 1,
		ThinkTime: 5 * time.Millisecond, ThinkTimeBlocks: 2}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}, SizeGiven: true})
	if err != nil {
		t.Fatal(err)
	}
	j := res.Jobs[0]
	if j.Read.TotalIOs != 8 {
		t.Fatalf("%d reads, want 8", j.Read.TotalIOs)
	}
	// The last pause may be cut by the end of the job: 3 whole ones.
	if j.ElapsedNs < int64(15*time.Millisecond) {
		t.Errorf("8 reads took %v; with a 5 ms pause after every 2 they take at least 15 ms", time.Duration(j.ElapsedNs))
	}
}

// TestEngineThinks: an engine that asks for a pause after each unit
// (cpuio: the idle share of its cpuload) gets it, with no thinktime in the
// job; the job runs on no file, counts its units as reads of no bytes, and
// runs for its runtime, as fio runs a FIO_NOIO engine. At 20% of 5 ms
// chunks each unit is followed by a 20 ms pause, so a 300 ms run does at
// most 13 of them (12 whole, one begun as the last pause is cut at the
// deadline); without the pauses it would do about 60. (Only that bound is
// asserted: a loaded machine only slows it.)
func TestEngineThinks(t *testing.T) {
	w := Workload{Name: "burn", RW: Read, BS: 4096, IODepth: 1, NumJobs: 1, IOEngine: "cpuio", Runtime: 300 * time.Millisecond,
		EngineOptions: map[string]string{"cpuload": "20", "cpuchunks": "5000"}, Buffer: Buffer{Kind: BufferRandom}, Seed: 1}
	res, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}})
	if err != nil {
		t.Fatal(err)
	}
	j := res.Jobs[0]
	if n := j.Read.TotalIOs; n == 0 || n > 13 || j.Read.IOBytes != 0 || j.Write.TotalIOs != 0 {
		t.Errorf("%d units of %d bytes (%d writes); want 1 to 13 reads of no bytes", n, j.Read.IOBytes, j.Write.TotalIOs)
	}
}

// TestNoIONeedsRuntime: a job on an engine that does no I/O never reaches
// its size, so it is refused without a runtime (fio's runs forever).
func TestNoIONeedsRuntime(t *testing.T) {
	w := Workload{Name: "burn", RW: Read, BS: 4096, IODepth: 1, NumJobs: 1, IOEngine: "cpuio", Size: 1 << 20,
		EngineOptions: map[string]string{"cpuload": "20"}, Buffer: Buffer{Kind: BufferRandom}, Seed: 1}
	var usage *result.UsageError
	if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}}); !errors.As(err, &usage) {
		t.Errorf("cpuio without a runtime: %v; want a usage error", err)
	}
}
