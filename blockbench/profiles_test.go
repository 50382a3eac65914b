package blockbench

import (
	"context"
	"path/filepath"
	"testing"
)

// Each preset, run for real on a small file with short passes, fills every
// row of its table.
func TestProfilesProduceTables(t *testing.T) {
	wantRows := map[Profile]int{ProfileCDM: 8, ProfileBSSweep: len(SweepSizes())}
	for p, rows := range wantRows {
		t.Run(string(p), func(t *testing.T) {
			j := NewJob(filepath.Join(t.TempDir(), "f"))
			j.Profile, j.IOEngine, j.Size, j.Passes = p, EngineAuto, 4<<20, 1
			// A fixed amount of I/O per row, not a time window: a loaded
			// machine must not leave a row empty.
			j.TimeBased, j.Runtime = false, 0
			j.CDM.Interval = 0
			res, err := Run(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			if res.Profile == nil || len(res.Profile.Rows) != rows {
				t.Fatalf("profile %+v, want %d rows", res.Profile, rows)
			}
			for _, r := range res.Profile.Rows {
				if r.IOPS <= 0 || r.BWBytes <= 0 || r.MeanLatNs <= 0 || len(r.Jobs) == 0 {
					t.Errorf("row %q is empty: %+v", r.Label, r)
				}
			}
			if p == ProfileCDM && len(res.Jobs) != 8*2 {
				t.Errorf("cdm ran %d jobs, want 8 rows x (1 warm-up + 1 pass)", len(res.Jobs))
			}
		})
	}
}
