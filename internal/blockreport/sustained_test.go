package blockreport

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/clydebench/clyde/result"
)

// sustainedFixture is a 30-minute run that settled by SNIA's rule, and a
// short one that could not be judged.
func sustainedFixture() *result.Block {
	return &result.Block{Sustained: []result.BlockSustained{
		{Name: "randrw-4k", Samples: 1800, FirstMinuteIOPS: 52310, FirstMinuteS: 60, WorstMinuteIOPS: 11790,
			WorstMinuteStartS: 410, SettledIOPS: 12040, Settled: true, SettledBy: "snia", SettleStartS: 300, SettleS: 300,
			DropPct: 76.98, StoppedAtSteady: true,
			SNIA: result.SteadySNIA{RoundS: 60, Window: 5, DataLimitPct: 20, SlopeLimitPct: 10, WindowStartRound: 5,
				Attained: true, AverageIOPS: 12040, DataExcursionPct: 6.2, SlopeExcursionPct: 1.4,
				RoundsIOPS: []float64{52310, 51000, 40000, 20000, 12500, 12100, 12000, 12010, 12050, 12040}},
			Fio: &result.SteadyFio{SS: "iops_slope:0.300000%", DurationS: 60, StartS: 305, Attained: true, Criterion: 0.21}},
		{Name: "short", Samples: 20, FirstMinuteIOPS: 1000, FirstMinuteS: 20, WorstMinuteIOPS: 1000, SettledIOPS: 990,
			SettleStartS: 16, SettleS: 4, DropPct: 1, SNIA: result.SteadySNIA{RoundS: 60, Window: 5, WindowStartRound: -1, RoundsIOPS: []float64{}}},
	}}
}

func TestSustainedGolden(t *testing.T) {
	var got bytes.Buffer
	if err := Text(&got, sustainedFixture()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "sustained.txt")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("sustained.txt differs (rerun with -update if intended):\n%s", got.String())
	}
}
