package steady

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Synthetic per-second IOPS series, 30 minutes long, with seeded noise.
const minute = 60

func noisy(n int, seed uint64, pct float64, f func(sec int) float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = f(i) * (1 + (rng.Float64()*2-1)*pct/100)
	}
	return out
}

// settles: an SLC cache that runs out. 50k IOPS for 4 minutes, a fall to 12k
// over the fifth, then flat with 5 % noise.
func settles() []float64 {
	return noisy(30*minute, 1, 5, func(s int) float64 {
		switch {
		case s < 4*minute:
			return 50000
		case s < 5*minute:
			return 50000 - 38000*float64(s-4*minute)/minute
		}
		return 12000
	})
}

// neverSettles swings between 4k and 16k every 90 s, as a drive doing
// garbage collection in bursts.
func neverSettles() []float64 {
	return noisy(30*minute, 2, 5, func(s int) float64 {
		if (s/90)%2 == 0 {
			return 16000
		}
		return 4000
	})
}

// drifts loses 3 % of its rate per minute, smoothly: every 5-minute window
// stays within 20 %, but its best-fit line falls more than 10 %.
func drifts() []float64 {
	return noisy(30*minute, 3, 1, func(s int) float64 { return 20000 * math.Pow(0.97, float64(s)/minute) })
}

func TestSNIA(t *testing.T) {
	cases := []struct {
		name      string
		series    []float64
		attained  bool
		start     int // first round of the window, when attained
		slopeFail bool
	}{
		// The fall ends in round 5 (0-based 4); rounds 5..9 are the first
		// window with no part of it.
		{"settles", settles(), true, 5, false},
		{"never settles", neverSettles(), false, 0, false},
		{"drifts slowly", drifts(), false, 0, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := SNIA(Rounds(tc.series, minute), SNIAWindow, SNIADataLimitPct, SNIASlopeLimitPct)
			if r.Attained != tc.attained {
				t.Fatalf("attained %v, want %v: %+v", r.Attained, tc.attained, r)
			}
			if tc.attained && r.Start != tc.start {
				t.Errorf("window starts at round %d, want %d", r.Start, tc.start)
			}
			if tc.attained && (r.DataExcursionPct > 20 || r.SlopeExcursionPct > 10) {
				t.Errorf("attained outside the limits: %+v", r)
			}
			if tc.slopeFail && !(r.DataExcursionPct <= 20 && r.SlopeExcursionPct > 10) {
				t.Errorf("a slow drift should pass the data test and fail the slope test: %+v", r)
			}
		})
	}
}

func TestSNIAShortSeries(t *testing.T) {
	r := SNIA([]float64{1, 1, 1, 1}, SNIAWindow, SNIADataLimitPct, SNIASlopeLimitPct)
	if r.Attained || r.Start != -1 {
		t.Errorf("four rounds cannot make a window of five: %+v", r)
	}
	// Exactly at the limits passes (the PTS says "within").
	r = SNIA([]float64{110, 90, 100, 100, 100}, 5, 20, 10)
	if !r.Attained || math.Abs(r.DataExcursionPct-20) > 1e-9 {
		t.Errorf("a 20%% excursion is within 20%%: %+v", r)
	}
}

func TestFio(t *testing.T) {
	mustParse := func(s string) Criterion {
		c, err := ParseCriterion(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	cases := []struct {
		name     string
		series   []float64
		crit     string
		dur      int
		ramp     int
		attained bool
		after    int // window must start at or after this second
		before   int // and before this one (0: no bound)
	}{
		// A one-minute window is met on the 4-minute plateau before the
		// cache runs out: fio would stop there. A 5-minute one is not.
		{"settles: short window stops on the plateau", settles(), "iops:10%", 60, 0, true, 0, 4 * minute},
		{"settles: deviation", settles(), "iops:10%", 300, 0, true, 4*minute + 30, 0},
		{"settles: slope", settles(), "iops_slope:0.05%", 300, 0, true, 4*minute + 30, 0},
		{"never settles: deviation", neverSettles(), "iops:20%", 120, 0, false, 0, 0},
		{"drifts: deviation passes", drifts(), "iops:5%", 60, 0, true, 0, 0},
		{"drifts: slope fails", drifts(), "iops_slope:0.03%", 300, 0, false, 0, 0},
		{"ramp skips the start", settles(), "iops:10%", 30, 600, true, 600, 0},
		{"absolute limit", []float64{100, 101, 99, 100, 100, 100}, "iops:2", 5, 0, true, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Fio(tc.series, mustParse(tc.crit), tc.dur, tc.ramp)
			if err != nil {
				t.Fatal(err)
			}
			if r.Attained != tc.attained {
				t.Fatalf("attained %v, want %v: %+v", r.Attained, tc.attained, r)
			}
			if tc.attained && (r.Start < tc.after || (tc.before > 0 && r.Start >= tc.before)) {
				t.Errorf("window starts at %d s, want in [%d, %d)", r.Start, tc.after, tc.before)
			}
		})
	}
	if _, err := Fio(settles(), mustParse("iops:1%"), 1, 0); err == nil {
		t.Error("a window of one sample has no deviation to speak of; want an error")
	}
}

func TestLinearFit(t *testing.T) {
	f := LinearFit([]float64{1, 3, 5, 7})
	if f.Slope != 2 || f.Intercept != 1 {
		t.Errorf("fit %+v, want slope 2 intercept 1", f)
	}
}

func TestSummarize(t *testing.T) {
	s := settles()
	snia := SNIA(Rounds(s, minute), SNIAWindow, SNIADataLimitPct, SNIASlopeLimitPct)
	sum := Summarize(s, minute, snia.Start*minute, SNIAWindow*minute)
	if !sum.Known || sum.SettleStart != 5*minute {
		t.Fatalf("settled window %+v, want from 300 s", sum)
	}
	if math.Abs(sum.FirstMinute-50000) > 1000 || math.Abs(sum.Settled-12000) > 300 {
		t.Errorf("first minute %.0f (want ~50k), settled %.0f (want ~12k)", sum.FirstMinute, sum.Settled)
	}
	if math.Abs(sum.DropPct-76) > 1.5 {
		t.Errorf("drop %.1f%%, want ~76%%", sum.DropPct)
	}
	if sum.WorstMinute > 12500 || sum.WorstMinuteStart < 4*minute {
		t.Errorf("worst minute %.0f at %d s, want ~12k after the fall", sum.WorstMinute, sum.WorstMinuteStart)
	}
	// No settled window: the last fifth stands in, and says so.
	sum = Summarize(neverSettles(), minute, -1, 0)
	if sum.Known || sum.SettleLen != 6*minute || sum.SettleStart != 24*minute {
		t.Errorf("unsettled run: %+v, want the last fifth, not known", sum)
	}
	// Shorter than a minute: the whole run is the first and worst minute.
	sum = Summarize([]float64{10, 20, 30}, minute, -1, 0)
	if sum.FirstMinute != 20 || sum.FirstMinuteSamples != 3 || sum.WorstMinute != 20 {
		t.Errorf("short run: %+v", sum)
	}
}

func TestParseCriterion(t *testing.T) {
	cases := []struct {
		in    string
		want  Criterion
		error bool
	}{
		{"iops_slope:0.3%", Criterion{Metric: "iops", Slope: true, Limit: 0.3, Percent: true}, false},
		{"iops:20%", Criterion{Metric: "iops", Limit: 20, Percent: true}, false},
		{"bw:1048576", Criterion{Metric: "bw", Limit: 1048576}, false},
		{"bw_slope:1%", Criterion{Metric: "bw", Slope: true, Limit: 1, Percent: true}, false},
		{"lat:10", Criterion{}, true},
		{"iops", Criterion{}, true},
		{"iops:", Criterion{}, true},
		{"iops:-1", Criterion{}, true},
		{"iops:nan%", Criterion{}, true},
		{"iops:0", Criterion{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseCriterion(tc.in)
			if (err != nil) != tc.error {
				t.Fatalf("err %v, want error %v", err, tc.error)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
			if err == nil {
				back, err := ParseCriterion(got.String())
				if err != nil || back != got {
					t.Errorf("String %q does not parse back: %v", got.String(), err)
				}
			}
		})
	}
}

func FuzzParseCriterion(f *testing.F) {
	for _, s := range []string{"iops_slope:0.3%", "bw:100", "iops:%", "x:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCriterion(s)
		if err != nil {
			return
		}
		if !(c.Limit > 0) || math.IsInf(c.Limit, 0) {
			t.Fatalf("%q parsed to limit %v", s, c.Limit)
		}
		if _, err := ParseCriterion(c.String()); err != nil {
			t.Fatalf("%q: String %q does not parse: %v", s, c.String(), err)
		}
	})
}
