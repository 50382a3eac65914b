package blockbench

import (
	"context"
	"path/filepath"
	"testing"
	"time"
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
