package latency

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// exactPercentile is the nearest-rank percentile of a sorted sample.
func exactPercentile(sorted []int64, p float64) int64 {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

func TestPercentilesMatchExactSample(t *testing.T) {
	samples := map[string]func(r *rand.Rand) int64{
		"uniform 1us..10ms":      func(r *rand.Rand) int64 { return 1_000 + r.Int64N(10_000_000) },
		"lognormal around 100us": func(r *rand.Rand) int64 { return int64(math.Exp(r.NormFloat64()*1.2 + math.Log(100_000))) },
		"bimodal cache hit/miss": func(r *rand.Rand) int64 {
			if r.IntN(10) == 0 {
				return 5_000_000 + r.Int64N(1_000_000)
			}
			return 800 + r.Int64N(400)
		},
	}
	for name, draw := range samples {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			// Three workers' recorders merged, as the engine does.
			recs := []*Recorder{New(), New(), New()}
			var all []int64
			for i := range 60_000 {
				v := max(draw(rng), 1)
				recs[i%3].Record(time.Duration(v))
				all = append(all, v)
			}
			merged := New()
			for _, r := range recs {
				merged.Merge(r)
			}
			slices.Sort(all)
			got := merged.PercentilesNs(FioPercentiles, nil)
			for i, p := range FioPercentiles {
				want := exactPercentile(all, p)
				if rel := math.Abs(float64(got[i]-want)) / float64(want); rel > 0.01 {
					t.Errorf("p%g = %d, exact %d: relative error %.4f > 1%%", p, got[i], want, rel)
				}
			}
			if merged.MinNs() != all[0] || int64(merged.Max()) != all[len(all)-1] {
				t.Errorf("min/max %d/%d, exact %d/%d", merged.MinNs(), merged.Max(), all[0], all[len(all)-1])
			}
		})
	}
}

func TestMinNsEmpty(t *testing.T) {
	if got := New().MinNs(); got != 0 {
		t.Errorf("MinNs of an empty recorder = %d, want 0", got)
	}
}
