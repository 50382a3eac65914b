package blockbench

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clydebench/clyde/internal/steady"
	"github.com/clydebench/clyde/result"
)

// SteadyState asks for the sustained-load analysis of a plan's jobs (the
// first minute, the settled rate, the worst minute, the drop, steady state by
// SNIA's PTS rule and optionally by a fio ss= criterion), and can end each
// group once steady state is reached.
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

// validate holds SteadyState's rules; every refusal names the flag.
func (s *SteadyState) validate(ws []Workload) error {
	whole := func(flag string, d time.Duration) error {
		if d < 0 || d%time.Second != 0 {
			return result.Usagef(flag, "%v is not a whole number of seconds; the series has one sample a second", d)
		}
		return nil
	}
	for _, c := range []struct {
		flag string
		d    time.Duration
	}{{"--ss_dur", s.Dur}, {"--ss_ramp", s.Ramp}, {"--ss-round", s.Round}} {
		if err := whole(c.flag, c.d); err != nil {
			return err
		}
	}
	if s.Criterion == "" {
		if s.Dur > 0 || s.Ramp > 0 {
			return result.Usagef("--ss_dur", "only goes with --steadystate CRITERION:LIMIT (fio's ss=)")
		}
	} else {
		if _, err := steady.ParseCriterion(s.Criterion); err != nil {
			return result.Usagef("--steadystate", "%v", err)
		}
		if s.Dur < 2*time.Second {
			return result.Usagef("--ss_dur", "%v: --steadystate needs a window of at least 2s (fio's ss_dur), such as 60s", s.Dur)
		}
	}
	if s.UntilSteady {
		for _, w := range ws {
			if w.Runtime <= 0 || !w.TimeBased {
				return result.Usagef("--until-steady", "needs --runtime as its cap and --time_based (job %s has runtime %v)", w.Name, w.Runtime)
			}
		}
	}
	return nil
}

func (s *SteadyState) round() int {
	if s.Round <= 0 {
		return int(DefaultSteadyRound / time.Second)
	}
	return int(s.Round / time.Second)
}

// criterion is the parsed fio criterion; ok is false without one.
func (s *SteadyState) criterion() (steady.Criterion, bool) {
	if s.Criterion == "" {
		return steady.Criterion{}, false
	}
	c, err := steady.ParseCriterion(s.Criterion)
	return c, err == nil
}

// steadyWatch follows one group while it runs and sets its stop flag once
// steady state is reached. Workers append their per-second marks under mu
// (once a second, never per I/O); the watch merges the slots every worker
// has, exactly as mergeSeries does afterwards, so what it stopped on is what
// the result's series shows.
type steadyWatch struct {
	opt     *SteadyState
	stop    *atomic.Bool
	mu      sync.Mutex
	workers []*worker
	done    chan struct{}
	exited  chan struct{}
	// checked is how many slots were judged; reached is set once one met
	// the rule (read after exited is closed).
	checked int
	reached bool
}

// watchGroup starts a watch that ends the group at steady state; nil when
// the plan does not ask for it.
func watchGroup(opt *SteadyState, ws []*workload, stop *atomic.Bool) *steadyWatch {
	if opt == nil || !opt.UntilSteady {
		return nil
	}
	g := &steadyWatch{opt: opt, stop: stop, done: make(chan struct{}), exited: make(chan struct{})}
	for _, w := range ws {
		w.watch = g
	}
	go g.loop()
	return g
}

// add is called by newWorker for each worker of the group.
func (g *steadyWatch) add(w *worker) {
	g.mu.Lock()
	g.workers = append(g.workers, w)
	g.mu.Unlock()
	w.live = &g.mu
}

func (g *steadyWatch) loop() {
	defer close(g.exited)
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-g.done:
			return
		case <-t.C:
		}
		if g.judge() {
			g.stop.Store(true)
			return
		}
	}
}

// judge merges the slots every worker has completed and tests each window
// that ends in a slot not judged yet.
func (g *steadyWatch) judge() bool {
	g.mu.Lock()
	iops, bw := liveSeries(g.workers)
	g.mu.Unlock()
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
				g.reached = true
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
			g.reached = true
			return true
		}
	}
	return false
}

// finish stops the watch; it says whether it ended the group.
func (g *steadyWatch) finish() bool {
	if g == nil {
		return false
	}
	close(g.done)
	<-g.exited
	return g.reached
}

// liveSeries is the group's IOPS and bytes per second over the slots every
// worker has completed. Callers hold the watch's lock.
func liveSeries(workers []*worker) (iops, bw []float64) {
	if len(workers) == 0 {
		return nil, nil
	}
	// Marks come every markEvery; a slot of the per-second series spans
	// marksPerSample of them, as in mergeSeries.
	n := math.MaxInt
	for _, w := range workers {
		n = min(n, (len(w.marks)-1)/marksPerSample)
	}
	for k := 1; k <= n; k++ {
		var ios, bytes, dur int64
		for _, w := range workers {
			prev, cur := w.marks[(k-1)*marksPerSample], w.marks[k*marksPerSample]
			dur = max(dur, cur.atNs-prev.atNs)
			ios += cur.ios[dirRead] + cur.ios[dirWrite] - prev.ios[dirRead] - prev.ios[dirWrite]
			bytes += cur.bytes[dirRead] + cur.bytes[dirWrite] - prev.bytes[dirRead] - prev.bytes[dirWrite]
		}
		if dur <= 0 {
			dur = int64(time.Second)
		}
		iops = append(iops, float64(ios)*1e9/float64(dur))
		bw = append(bw, float64(bytes)*1e9/float64(dur))
	}
	return iops, bw
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

// analyseSustained adds res.Sustained: one entry per job, and one per group
// of several jobs (their series summed slot by slot). stopped[g] says the
// watch ended group g.
func analyseSustained(opt *SteadyState, res *result.Block, stopped map[int]bool) {
	if opt == nil {
		return
	}
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
