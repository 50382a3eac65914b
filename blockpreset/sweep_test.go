package blockpreset

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// The sweep, run for real on a small file with one pass per row, fills
// every row of its table, in SweepSizes' order.
func TestSweepProducesTable(t *testing.T) {
	j := blockbench.NewJob(filepath.Join(t.TempDir(), "f"))
	j.IOEngine, j.Size = blockbench.EngineAuto, 4<<20
	// A fixed amount of I/O per row, not a time window: a loaded machine
	// must not leave a row empty.
	j.TimeBased, j.Runtime = false, 0
	res, err := RunSweep(context.Background(), j)
	if err != nil {
		t.Fatal(err)
	}
	if res.Profile == nil || res.Profile.Name != SweepName || len(res.Profile.Rows) != len(SweepSizes()) {
		t.Fatalf("profile %+v, want %d rows", res.Profile, len(SweepSizes()))
	}
	for i, r := range res.Profile.Rows {
		if r.IOPS <= 0 || r.BWBytes <= 0 || r.MeanLatNs <= 0 || !slices.Equal(r.Jobs, []int{i}) || r.BSBytes != SweepSizes()[i] {
			t.Errorf("row %q: %+v, want job %d's figures at bs %d", r.Label, r, i, SweepSizes()[i])
		}
		if job := res.Jobs[i]; job.Config.BSBytes != r.BSBytes || job.JobName != r.Label+" read" {
			t.Errorf("row %q ran as job %s of bs %d", r.Label, job.JobName, job.Config.BSBytes)
		}
	}
}

// A row that needs a queue on an engine without one is refused, naming
// the row and --ioengine; so are a single job's options.
func TestSweepRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(j *blockbench.Job)
		flag string
		says string
	}{
		{"psync at depth 8", func(j *blockbench.Job) { j.IOEngine, j.IODepth = blockbench.EnginePsync, 8 }, "--ioengine", `row "1k"`},
		{"verify", func(j *blockbench.Job) { j.Verify, j.RW = blockbench.VerifyCRC32C, blockbench.Write }, "--verify", "bs-sweep preset"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := blockbench.NewJob(filepath.Join(t.TempDir(), "f"))
			tc.edit(&j)
			res, err := RunSweep(context.Background(), j)
			ue, ok := err.(*result.UsageError)
			if res != nil || !ok || ue.Flag != tc.flag || !strings.Contains(ue.Msg, tc.says) {
				t.Fatalf("err %v, want a usage error naming %s and saying %s", err, tc.flag, tc.says)
			}
		})
	}
}
