package blockpreset

import (
	"math"
	"strings"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/steady"
	"github.com/clydebench/clyde/result"
)

// SteadyState asks for the sustained-load analysis of a plan's jobs (the
// first minute, the settled rate, the worst minute, the drop, steady state by
// SNIA's PTS rule and optionally by a fio ss= criterion), and can end each
// group once steady state is reached. It is a blockbench.Analysis: set it as
// the job's or the plan's Analysis.
type SteadyState struct {
	// Criterion is fio's ss= ("iops_slope:0.3%", "iops:20%"); "" applies
	// SNIA's rule alone. Dur is fio's ss_dur (required with a criterion)
	// and Ramp its ss_ramp; both are whole seconds of the series.
	Criterion string
	Dur       time.Duration
	Ramp      time.Duration
	// Round is the length of one SNIA round; 0 is DefaultSteadyRound.
	Round time.Duration
	// UntilSteady ends each group when steady state is reached: fio's
	// criterion when one is given, else SNIA's. The workloads' Runtime is
	// the cap. Without it the analysis only reports (unlike fio, whose
	// ss= always ends the job).
	UntilSteady bool
}

// DefaultSteadyRound is one SNIA round: a minute, so SNIA's window of five
// rounds is five minutes of a 30-minute sustained run.
const DefaultSteadyRound = time.Minute

// minuteSamples is a minute of the per-second series.
const minuteSamples = int(time.Minute / time.Second)

// Check holds SteadyState's rules for one group; every refusal names the
// flag.
func (opt *SteadyState) Check(ws []blockbench.Workload) error {
	whole := func(flag string, d time.Duration) error {
		if d < 0 || d%time.Second != 0 {
			return result.Usagef(flag, "%v is not a whole number of seconds; the series has one sample a second", d)
		}
		return nil
	}
	for _, c := range []struct {
		flag string
		d    time.Duration
	}{{"--ss_dur", opt.Dur}, {"--ss_ramp", opt.Ramp}, {"--ss-round", opt.Round}} {
		if err := whole(c.flag, c.d); err != nil {
			return err
		}
	}
	if opt.Criterion == "" {
		if opt.Dur > 0 || opt.Ramp > 0 {
			return result.Usagef("--ss_dur", "only goes with --steadystate CRITERION:LIMIT (fio's ss=)")
		}
	} else {
		if _, err := steady.ParseCriterion(opt.Criterion); err != nil {
			return result.Usagef("--steadystate", "%v", err)
		}
		if opt.Dur < 2*time.Second {
			return result.Usagef("--ss_dur", "%v: --steadystate needs a window of at least 2s (fio's ss_dur), such as 60s", opt.Dur)
		}
	}
	if opt.UntilSteady {
		for _, w := range ws {
			if w.Runtime <= 0 || !w.TimeBased {
				return result.Usagef("--until-steady", "needs --runtime as its cap and --time_based (job %s has runtime %v)", w.Name, w.Runtime)
			}
		}
	}
	return nil
}

func (opt *SteadyState) round() int {
	if opt.Round <= 0 {
		return int(DefaultSteadyRound / time.Second)
	}
	return int(opt.Round / time.Second)
}

// criterion is the parsed fio criterion; ok is false without one.
func (opt *SteadyState) criterion() (steady.Criterion, bool) {
	if opt.Criterion == "" {
		return steady.Criterion{}, false
	}
	c, err := steady.ParseCriterion(opt.Criterion)
	return c, err == nil
}

// Judge is a judge of steady state for one group with UntilSteady; nil
// without it, so the group runs its course.
func (opt *SteadyState) Judge() blockbench.GroupJudge {
	if !opt.UntilSteady {
		return nil
	}
	return &steadyJudge{opt: opt}
}

// steadyJudge follows one group's live series; checked is how many slots
// were judged.
type steadyJudge struct {
	opt     *SteadyState
	checked int
}

// Done tests each window that ends in a slot not judged yet.
func (g *steadyJudge) Done(iops, bw []float64) bool {
	crit, useFio := g.opt.criterion()
	for n := g.checked + 1; n <= len(iops); n++ {
		g.checked = n
		if useFio {
			dur, ramp := int(g.opt.Dur/time.Second), int(g.opt.Ramp/time.Second)
			vals := iops
			if crit.Metric == "bw" {
				vals = bw
			}
			if n-dur < ramp {
				continue
			}
			if r, err := steady.Fio(vals[n-dur:n], crit, dur, 0); err == nil && r.Attained {
				return true
			}
			continue
		}
		round := g.opt.round()
		if n%round != 0 || n/round < steady.SNIAWindow {
			continue
		}
		rounds := steady.Rounds(iops[:n], round)
		if steady.SNIA(rounds[len(rounds)-steady.SNIAWindow:], steady.SNIAWindow, steady.SNIADataLimitPct, steady.SNIASlopeLimitPct).Attained {
			return true
		}
	}
	return false
}

// sustainedOf analyses one series (the seconds of a job or a group; a
// closing slice under half a second is already part of the last one).
func sustainedOf(opt *SteadyState, name string, samples []result.BlockSample) result.BlockSustained {
	iops := make([]float64, len(samples))
	bw := make([]float64, len(samples))
	for i, s := range samples {
		iops[i], bw[i] = s.IOPS, float64(s.BWBytes)
	}
	out := result.BlockSustained{Name: name, Samples: len(samples)}
	round := opt.round()
	rounds := steady.Rounds(iops, round)
	sn := steady.SNIA(rounds, steady.SNIAWindow, steady.SNIADataLimitPct, steady.SNIASlopeLimitPct)
	out.SNIA = result.SteadySNIA{RoundS: round, Window: steady.SNIAWindow, DataLimitPct: steady.SNIADataLimitPct,
		SlopeLimitPct: steady.SNIASlopeLimitPct, RoundsIOPS: rounds, Attained: sn.Attained, WindowStartRound: sn.Start,
		AverageIOPS: sn.Average, DataExcursionPct: sn.DataExcursionPct, SlopeExcursionPct: sn.SlopeExcursionPct,
		Slope: sn.Fit.Slope, Intercept: sn.Fit.Intercept}
	if out.SNIA.RoundsIOPS == nil {
		out.SNIA.RoundsIOPS = []float64{}
	}
	settleStart, settleLen, by := -1, 0, ""
	if sn.Attained {
		settleStart, settleLen, by = sn.Start*round, steady.SNIAWindow*round, "snia"
	}
	if crit, ok := opt.criterion(); ok {
		dur, ramp := int(opt.Dur/time.Second), int(opt.Ramp/time.Second)
		vals := iops
		if crit.Metric == "bw" {
			vals = bw
		}
		r, _ := steady.Fio(vals, crit, dur, ramp)
		f := &result.SteadyFio{SS: crit.String(), DurationS: dur, RampS: ramp, Attained: r.Attained, StartS: r.Start,
			Criterion: r.Value, MaxDeviation: r.MaxDeviation, Slope: r.Slope}
		if r.Start >= 0 {
			f.IOPSMean = steady.Mean(iops[r.Start : r.Start+dur])
			f.BWMean = steady.Mean(bw[r.Start : r.Start+dur])
		}
		out.Fio = f
		// The criterion the user named decides the settled window; SNIA's
		// stands when fio's was not met.
		if r.Attained {
			settleStart, settleLen, by = r.Start, dur, "fio"
		}
	}
	sum := steady.Summarize(iops, minuteSamples, settleStart, settleLen)
	out.FirstMinuteIOPS, out.FirstMinuteS = sum.FirstMinute, sum.FirstMinuteSamples
	out.WorstMinuteIOPS, out.WorstMinuteStartS = sum.WorstMinute, sum.WorstMinuteStart
	out.SettledIOPS, out.Settled, out.SettleStartS, out.SettleS = sum.Settled, sum.Known, sum.SettleStart, sum.SettleLen
	if sum.Known {
		out.SettledBy = by
	}
	out.DropPct = sum.DropPct
	if len(samples) == 0 {
		out.WorstMinuteIOPS = 0
	}
	return out
}

// Analyse adds res.Sustained: one entry per job, and one per group of
// several jobs (their series summed slot by slot). stopped[g] says the
// judge ended group g.
func (opt *SteadyState) Analyse(res *result.Block, stopped map[int]bool) {
	for i := range res.Jobs {
		j := &res.Jobs[i]
		s := sustainedOf(opt, j.JobName, j.Series)
		s.Job = i
		s.StoppedAtSteady = stopped[j.GroupID]
		res.Sustained = append(res.Sustained, s)
	}
	for gi, g := range res.Groups {
		var names []string
		var sum []result.BlockSample
		for _, ji := range g.Jobs {
			names = append(names, res.Jobs[ji].JobName)
			for k, s := range res.Jobs[ji].Series {
				if k >= len(sum) {
					sum = append(sum, result.BlockSample{StartMs: s.StartMs})
				}
				o := &sum[k]
				o.DurationNs = max(o.DurationNs, s.DurationNs)
				o.ReadIOs, o.WriteIOs = o.ReadIOs+s.ReadIOs, o.WriteIOs+s.WriteIOs
				o.ReadBytes, o.WriteBytes = o.ReadBytes+s.ReadBytes, o.WriteBytes+s.WriteBytes
			}
		}
		for k := range sum {
			if o := &sum[k]; o.DurationNs > 0 {
				o.IOPS = float64(o.ReadIOs+o.WriteIOs) * 1e9 / float64(o.DurationNs)
				o.BWBytes = int64(math.Round(float64(o.ReadBytes+o.WriteBytes) * 1e9 / float64(o.DurationNs)))
			}
		}
		s := sustainedOf(opt, strings.Join(names, " + "), sum)
		s.Job, s.Group = -1, gi
		s.StoppedAtSteady = stopped[g.GroupID]
		res.Sustained = append(res.Sustained, s)
	}
}
