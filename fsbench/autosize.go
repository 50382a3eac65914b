package fsbench

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/preflight"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// Sizing: how much work makes every test run long enough to measure on
// this storage. bonnie++ gives fixed amounts and prints +++++ for a test
// under half a second; on today's SSDs its defaults (-n 16) leave every
// file test there. Auto calibrates with short runs that are not counted and
// picks -s, its seek count, -f and -n from the measured rates, within the
// free space, the free inodes and a wall-time budget; TooShortAdvice's
// suggestions come from the same planner, so neither suggests a run the
// preflight would refuse.

// DefaultAutoBudget is the wall time --auto aims at when given none.
const DefaultAutoBudget = 2 * time.Minute

// AutoTarget is how long the quickest test of each kind is sized to run:
// twice bonnie++'s 0.5 s floor, so a run up to twice as fast as the
// calibration still measures. A budget too small for it pushes it down to
// autoFloor, never lower: the budget gives way before measurability does.
const (
	AutoTarget = time.Second
	autoFloor  = 800 * time.Millisecond
)

// roomUse is the share of the free space and inodes a plan may take, so
// that the run leaves the filesystem some room and the preflight (which
// refuses only beyond everything free) never refuses a plan.
const roomUse = 0.9

// Calibration: each round runs the suite with small amounts. A test has
// a fixed cost besides its work (the seek test starts five threads, each
// with its own descriptor table: about 0.1 s here), so one short
// measurement understates the rate. Each kind of work is therefore
// measured at two amounts at least calSpread apart, the rate taken from
// the difference (the marginal rate), unless one measurement already ran
// calAim or more. Growth aims the next measurement at calAim, at most
// calGrowth times the last, for at most calRounds rounds or a quarter of
// the budget.
const (
	calMin    = 150 * time.Millisecond
	calAim    = 300 * time.Millisecond
	calGrowth = 32
	calSpread = 4
	calRounds = 4
)

// sample is one calibration measurement of a test: work in the rate's
// unit (KiB, seeks, files) and the time it took.
type sample struct {
	work    float64
	elapsed time.Duration
}

// calibration is what the rounds measured, per test.
type calibration [result.FSTestCount][]sample

func (c *calibration) add(run result.FSRun) {
	for t, tr := range run.Tests {
		if !tr.Ran || tr.ElapsedNs <= 0 || tr.RatePerSec <= 0 {
			continue
		}
		work := float64(tr.Ops)
		if result.FSTest(t).IsIO() && result.FSTest(t) != result.Seeks {
			work = float64(tr.Bytes) / 1024
		}
		c[t] = append(c[t], sample{work: work, elapsed: time.Duration(tr.ElapsedNs)})
	}
}

// longest is a test's longest measurement.
func (c *calibration) longest(t result.FSTest) sample {
	var l sample
	for _, s := range c[t] {
		if s.elapsed > l.elapsed {
			l = s
		}
	}
	return l
}

// done says whether a test's rate is known well enough: one measurement
// of calAim or more, or two calSpread apart in work, the longer of calMin
// or more.
func (c *calibration) done(t result.FSTest) bool {
	l := c.longest(t)
	if l.elapsed >= calAim {
		return true
	}
	if l.elapsed < calMin {
		return false
	}
	for _, s := range c[t] {
		if s.work*calSpread <= l.work {
			return true
		}
	}
	return false
}

// rates are the tests' rates for sizing: the marginal rate from the
// longest measurement and the one furthest below it in work,
// (w2-w1)/(t2-t1), which leaves the fixed cost out, when that is the
// higher (at most four times the plain rate of the longest, against
// noise); the plain rate w/t of the longest otherwise. Sizes planned on
// the higher rate err towards running longer. slow are the rates for the
// budget's estimate: the lower of the two, since file tests slow down as
// a directory fills and an estimate should not promise a short run.
func (c *calibration) rates() (sizing, slow Rates) {
	for t := range c {
		l := c.longest(result.FSTest(t))
		if l.elapsed <= 0 {
			continue
		}
		plain := l.work / l.elapsed.Seconds()
		sizing[t], slow[t] = plain, plain
		var lo sample
		for _, s := range c[t] {
			if s.work < l.work && (lo.elapsed == 0 || s.work < lo.work) {
				lo = s
			}
		}
		if lo.elapsed > 0 && l.elapsed > lo.elapsed {
			m := (l.work - lo.work) / (l.elapsed - lo.elapsed).Seconds()
			sizing[t] = min(max(m, plain), 4*plain)
			slow[t] = min(m, plain)
		}
	}
	return sizing, slow
}

// RoomOf is the free space and inodes in dir, nil when the platform does
// not say.
func RoomOf(dir string) *result.Room {
	sp, err := preflight.Stat(dir)
	if err != nil {
		return nil
	}
	return &result.Room{FreeBytes: sp.AvailBytes, FreeInodes: sp.FreeInodes, InodesKnown: sp.InodesKnown}
}

// Rates are a run's measured rates in the tests' units (KiB/s for the IO
// tests, seeks/s, files/s), the rate of a test under 0.5 s included; 0
// where a test did not run.
type Rates [result.FSTestCount]float64

// RatesOf reads the rates of run.
func RatesOf(run result.FSRun) Rates {
	var r Rates
	for t, tr := range run.Tests {
		if tr.Ran && !tr.Interrupted && tr.RatePerSec > 0 && !math.IsInf(tr.RatePerSec, 0) {
			r[t] = tr.RatePerSec
		}
	}
	return r
}

// Sizes are the amounts of work sizing chooses: -s SIZE (MiB), the seek
// count of -s SIZE:CHUNK:SEEKS, -f N (MiB) and -n NUM (units of 1024).
type Sizes struct {
	SizeMiB   int64
	Seeks     int
	ByteIOMiB int64
	FilesK    int
}

func (o *Options) sizes() Sizes {
	return Sizes{SizeMiB: o.SizeMiB, Seeks: o.Seeks, ByteIOMiB: o.ByteIOMiB, FilesK: o.FilesK}
}

func (o *Options) setSizes(s Sizes) {
	o.SizeMiB, o.Seeks, o.ByteIOMiB, o.FilesK = s.SizeMiB, s.Seeks, s.ByteIOMiB, s.FilesK
}

// Choose says which sizes a plan may pick; the others keep what the
// options say (a -s, -f or -n the user gave, or 0 to skip).
type Choose struct {
	Size, Seeks, PerChar, Files bool
}

// kinds of work: the tests whose time each size sets.
var (
	sizeTests    = []result.FSTest{result.PutBlock, result.Rewrite, result.GetBlock}
	perCharTests = []result.FSTest{result.PutChar, result.GetChar}
	seekTests    = []result.FSTest{result.Seeks}
	fileTests    = []result.FSTest{result.SeqCreate, result.SeqStat, result.SeqDelete, result.RandCreate, result.RandStat, result.RandDelete}
)

// need is the work (in the rate's unit, per copy) that makes the quickest
// of tests run target at rates; 0 when none of them has a rate. only, when
// not nil, keeps the tests it marks.
func need(tests []result.FSTest, r Rates, target time.Duration, copies int, only func(result.FSTest) bool) float64 {
	var w float64
	for _, t := range tests {
		if r[t] > 0 && (only == nil || only(t)) {
			w = max(w, r[t]*target.Seconds()/float64(copies))
		}
	}
	return w
}

// gridUp and gridDown round to the sizes people type, two to an octave:
// 1, 2, 3, 4, 6, 8, 12, 16, 24 ... 1024, 1536, 2048.
func gridUp(v float64) int64 {
	if !(v > 1) {
		return 1
	}
	for n := int64(1); ; n *= 2 {
		if float64(n) >= v {
			return n
		}
		if h := n + n/2; n >= 2 && float64(h) >= v {
			return h
		}
		if n > 1<<50 {
			return n
		}
	}
}

func gridDown(v float64) int64 {
	n := gridUp(v)
	for n > 1 && float64(n) > v {
		n = gridPrev(n)
	}
	return n
}

func gridPrev(n int64) int64 {
	if n <= 1 {
		return 1
	}
	p := int64(1)
	for p*2 <= n {
		p *= 2
	}
	if p == n { // a power of two: the step below is 3/4 of it
		if n >= 4 {
			return n / 4 * 3
		}
		return n / 2
	}
	return p // 3·2^k: the power of two below
}

// plan picks the sizes ch allows so that the quickest test of each kind
// runs target at rates r, within room (nil: not known) and the options'
// rules. It returns o with those sizes and a line for each size a limit
// kept below what its tests needed. only, when not nil, limits the tests
// that may grow a size (the advice grows only for tests that were short).
func plan(o Options, r Rates, target time.Duration, room *result.Room, ch Choose, only func(result.FSTest) bool) (Options, []string) {
	copies := max(o.Concurrency, 1)
	var limits []string
	if ch.Size && o.SizeMiB != 0 {
		o.SizeMiB = gridUp(need(sizeTests, r, target, copies, only) / 1024)
	}
	if ch.PerChar && o.ByteIOMiB > 0 {
		o.ByteIOMiB = gridUp(need(perCharTests, r, target, copies, only) / 1024)
	}
	if ch.Seeks && o.SizeMiB != 0 {
		o.Seeks = int(min(gridUp(need(seekTests, r, target, copies, only)), math.MaxInt32))
	}
	wantFilesK := int64(0)
	if ch.Files && o.FilesK > 0 {
		wantFilesK = gridUp(need(fileTests, r, target, copies, only) / 1024)
		o.FilesK = int(min(wantFilesK, MaxFilesK))
	}
	if o.SizeMiB > 0 {
		// bonnie++'s per-char tests write and read the big file.
		o.SizeMiB = max(o.SizeMiB, o.ByteIOMiB)
		if o.RAMMiB > 0 {
			o.SizeMiB = max(o.SizeMiB, gridUp(float64(2*o.RAMMiB)/float64(copies)))
		}
		o.SizeMiB = min(o.SizeMiB, MaxSizeMiB)
	}
	if o.FilesK > 0 && o.RAMMiB > 0 {
		// The RAM rule of -n: bonnie++ keeps every name in memory.
		if most := int(o.RAMMiB << 10 / (2 * bytesPerFileInMem)); o.FilesK > most {
			o.FilesK = int(gridDown(float64(most)))
			limits = append(limits, fmt.Sprintf("-n kept to %d by the RAM rule of -r %d", o.FilesK, o.RAMMiB))
		}
	}
	if room != nil {
		limits = append(limits, fitRoom(&o, *room, ch, minSizes(o))...)
	}
	if wantFilesK > MaxFilesK && o.FilesK == MaxFilesK {
		limits = append(limits, fmt.Sprintf("-n is at its maximum of %d", MaxFilesK))
	}
	return o, limits
}

// fitRoom shrinks the sizes ch allows, never below floor, until the run's
// peak space and inodes (Options.Needs) fit in roomUse of room.
func fitRoom(o *Options, room result.Room, ch Choose, floor Sizes) []string {
	var limits []string
	bytes := float64(room.FreeBytes) * roomUse
	overBytes := func() bool { return float64(o.Needs().Bytes) > bytes }
	overInodes := func() bool { return room.InodesKnown && float64(o.Needs().Inodes) > float64(room.FreeInodes)*roomUse }
	if ch.Size && overBytes() && o.SizeMiB > floor.SizeMiB {
		for o.SizeMiB > floor.SizeMiB && overBytes() {
			o.SizeMiB = max(gridPrev(o.SizeMiB), floor.SizeMiB)
			o.ByteIOMiB = max(min(o.ByteIOMiB, o.SizeMiB), floor.ByteIOMiB)
		}
		limits = append(limits, fmt.Sprintf("-s kept to %d MiB by the %s free in %s", o.SizeMiB, humanize.IBytes(room.FreeBytes), o.Dir))
	}
	if ch.Files && (overBytes() || overInodes()) && o.FilesK > floor.FilesK {
		what := humanize.IBytes(room.FreeBytes) + " free"
		if overInodes() {
			what = humanize.Comma(int64(room.FreeInodes)) + " free inodes"
		}
		for o.FilesK > floor.FilesK && (overBytes() || overInodes()) {
			o.FilesK = max(int(gridPrev(int64(o.FilesK))), floor.FilesK)
		}
		limits = append(limits, fmt.Sprintf("-n kept to %d by the %s in %s", o.FilesK, what, o.Dir))
	}
	return limits
}

// minSizes is the least plan may shrink o to: one MiB (and twice the RAM
// the size rule names, over the copies), one unit of files.
func minSizes(o Options) Sizes {
	s := Sizes{SizeMiB: 1, ByteIOMiB: min(o.ByteIOMiB, 1), FilesK: 1}
	if o.RAMMiB > 0 {
		c := int64(max(o.Concurrency, 1))
		s.SizeMiB = (2*o.RAMMiB + c - 1) / c
	}
	return s
}

// testTime is how long test t would run with o at rate (0 when it does
// not run or has no rate).
func testTime(o *Options, t result.FSTest, rate float64) time.Duration {
	if !(rate > 0) {
		return 0
	}
	var work float64
	switch {
	case t == result.PutChar || t == result.GetChar:
		work = float64(min(o.ByteIOMiB, o.SizeMiB)) * 1024
	case t == result.Seeks:
		work = float64(o.Seeks)
	case t.IsIO():
		work = float64(o.SizeMiB) * 1024
	default:
		work = float64(o.Files())
	}
	if (t.IsIO() && o.SizeMiB <= 0) || (!t.IsIO() && o.FilesK <= 0) {
		return 0
	}
	return time.Duration(work * float64(max(o.Concurrency, 1)) / rate * 1e9)
}

// estimate is the wall time of o at rates r: every test, plus overhead
// per run (setup, page-cache eviction, cleanup) as calibration measured
// it, plus a tenth for what the rates do not show.
func estimate(o Options, r Rates, overhead time.Duration) time.Duration {
	var d time.Duration
	for t := result.FSTest(0); t < result.FSTestCount; t++ {
		d += testTime(&o, t, r[t])
	}
	return time.Duration(float64(d+overhead)*1.1) * time.Duration(max(o.Iterations, 1))
}

// shortTests names the tests (among those only marks, nil: all) that
// would run under limit with o at r.
func shortTests(o Options, r Rates, limit time.Duration, only func(result.FSTest) bool) []string {
	var names []string
	for t := result.FSTest(0); t < result.FSTestCount; t++ {
		if only != nil && !only(t) {
			continue
		}
		if d := testTime(&o, t, r[t]); d > 0 && d < limit {
			names = append(names, fmt.Sprintf("%s about %.2f s", t.Name(), d.Seconds()))
		}
	}
	return names
}

// AutoChoice is what Auto (or AutoReuse) picked.
type AutoChoice struct {
	Sizes Sizes
	// Record goes into the result's configuration (FSConfig.Auto).
	Record result.FSAuto
}

// Apply sets o's sizes and records how they were chosen.
func (c AutoChoice) Apply(o *Options) {
	o.setSizes(c.Sizes)
	rec := c.Record
	o.Auto = &rec
}

// Auto calibrates on o.Dir with short runs that are not counted, then
// picks the sizes ch allows so that every test runs at least AutoTarget
// (or, when budget cannot hold that, no less than 0.6 s) within the free
// space and inodes and about budget of wall time, calibration included. o
// is the run as it will be made (chunk, -b, -D, -c, file sizes and
// directories); its RAMMiB holds for the size rule (0: none). Calibration
// goes through Run, so it takes the same run lock and leaves nothing.
func Auto(ctx context.Context, o Options, budget time.Duration, ch Choose) (AutoChoice, error) {
	if budget <= 0 {
		budget = DefaultAutoBudget
	}
	o.Resolve()
	if err := o.validateResolved(); err != nil {
		return AutoChoice{}, err
	}
	room := RoomOf(o.Dir)
	try := o
	try.Iterations, try.Progress, try.Live, try.RAMMiB, try.Auto = 1, nil, false, 0, nil
	try.calibrating = budget / 4 // a round past that is not started (below)
	if ch.Size && try.SizeMiB != 0 {
		try.SizeMiB = 16
	}
	if ch.Seeks && try.SizeMiB != 0 {
		try.Seeks = 512
	}
	if ch.PerChar && try.ByteIOMiB > 0 {
		try.ByteIOMiB = 1
	}
	try.ByteIOMiB = min(try.ByteIOMiB, try.SizeMiB)
	if ch.Files && try.FilesK > 0 {
		try.FilesK = 1
	}
	// Sizes the user gave need no calibration (and -s 8g would write 8 GiB
	// for it).
	if !ch.Size {
		try.SizeMiB, try.ByteIOMiB = 0, 0
	}
	if !ch.Files {
		try.FilesK = 0
	}
	var cal calibration
	var overhead time.Duration
	start := time.Now()
	rounds := 0
	for rounds < calRounds {
		t0 := time.Now()
		res, err := Run(ctx, try)
		if err != nil {
			return AutoChoice{}, fmt.Errorf("--auto calibration: %w", err)
		}
		rounds++
		wall := time.Since(t0)
		var measured time.Duration
		for _, tr := range res.Runs[0].Tests {
			if tr.Ran {
				measured += time.Duration(tr.ElapsedNs)
			}
		}
		cal.add(res.Runs[0])
		overhead = max(wall-measured, 0)
		next, grew := growCalibration(try, &cal, room, ch)
		// A round that would take the calibration past a quarter of the
		// budget is not run: the rates so far are what there is.
		_, slow := cal.rates()
		if !grew || time.Since(start)+estimate(next, slow, overhead) > budget/4 {
			break
		}
		try = next
	}
	rates, slow := cal.rates()
	calTime := time.Since(start)
	rec := result.FSAuto{BudgetNs: int64(budget), CalibrationNs: int64(calTime), CalibrationRuns: rounds,
		CalibrationRates: map[string]float64{}}
	for t, v := range rates {
		if v > 0 {
			rec.CalibrationRates[result.FSTest(t).Name()] = v
		}
	}
	avail := budget - calTime
	target := AutoTarget
	chosen, limits := plan(o, rates, target, room, ch, nil)
	if est := estimate(chosen, slow, overhead); est > avail {
		target = max(time.Duration(float64(target)*float64(avail)/float64(est)), autoFloor)
		chosen, limits = plan(o, rates, target, room, ch, nil)
		if est := estimate(chosen, slow, overhead); est > avail {
			limits = append(limits, fmt.Sprintf("the budget: every test at %.1f s needs about %s here, more than the %s left after calibration, so the run takes longer",
				target.Seconds(), roundDuration(est), roundDuration(max(avail, 0))))
		}
	}
	if short := shortTests(chosen, rates, autoFloor, nil); len(short) > 0 {
		limits = append(limits, "still short: "+strings.Join(short, ", "))
	}
	rec.TargetNs, rec.EstimatedNs, rec.Limits = int64(target), int64(estimate(chosen, slow, overhead)), limits
	return AutoChoice{Sizes: chosen.sizes(), Record: rec}, nil
}

// growCalibration is the next calibration round: the amounts of every kind
// with a test not yet done (calibration.done) grown towards calAim at the
// rates measured, at least calSpread and at most calGrowth times, within
// room; a kind already done is left out of the round (-f, -n 0, -s 0) so
// it costs no more time. grew is false when no kind needs another round.
func growCalibration(try Options, cal *calibration, room *result.Room, ch Choose) (Options, bool) {
	// pending is the kind's quickest test's longest measurement, and
	// whether the kind needs another round.
	pending := func(tests []result.FSTest) (time.Duration, bool) {
		q, need := time.Duration(math.MaxInt64), false
		for _, t := range tests {
			if len(cal[t]) == 0 {
				continue
			}
			q = min(q, cal.longest(t).elapsed)
			need = need || !cal.done(t)
		}
		return q, need
	}
	grow := func(cur int64, q time.Duration) int64 {
		f := min(max(calAim.Seconds()/max(q.Seconds(), 1e-6), calSpread), calGrowth)
		return max(cur+1, int64(float64(cur)*f))
	}
	next := try
	grew, ioNeeded := false, false
	if q, ok := pending(sizeTests); ok && ch.Size && try.SizeMiB > 0 {
		next.SizeMiB, grew, ioNeeded = grow(try.SizeMiB, q), true, true
	}
	if q, ok := pending(seekTests); ok && ch.Seeks && try.SizeMiB > 0 {
		next.Seeks, grew, ioNeeded = int(min(grow(int64(try.Seeks), q), math.MaxInt32)), true, true
	}
	if q, ok := pending(perCharTests); ok && ch.PerChar && try.ByteIOMiB > 0 {
		next.ByteIOMiB, grew, ioNeeded = grow(try.ByteIOMiB, q), true, true
	} else {
		next.ByteIOMiB = 0
	}
	if !ioNeeded {
		next.SizeMiB = 0
	}
	if q, ok := pending(fileTests); ok && ch.Files && try.FilesK > 0 {
		next.FilesK, grew = int(min(grow(int64(try.FilesK), q), MaxFilesK)), true
	} else {
		next.FilesK = 0
	}
	if next.SizeMiB > 0 {
		next.SizeMiB = max(next.SizeMiB, next.ByteIOMiB)
	}
	if room != nil {
		fitRoom(&next, *room, ch, minSizes(next))
	}
	return next, grew && next.sizes() != try.sizes()
}

func roundDuration(d time.Duration) time.Duration { return d.Round(time.Second) }

// AutoReuse takes the sizes of an earlier --auto run when it applies to o:
// made on this host and directory with the same options apart from the
// sizes ch lets Auto pick, and still fitting the free space and inodes.
// label names the earlier run in the record ("#12"). Nightly runs that
// reuse one run's sizes stay comparable, for the history and the
// regression check.
func AutoReuse(o Options, budget time.Duration, ch Choose, prev *result.FS, label string) (AutoChoice, bool) {
	if prev == nil || prev.Config.Auto == nil || len(prev.Runs) == 0 || prev.Interrupted {
		// A run a stop ended (a signal, its time bound) may have been
		// stopped because its sizes no longer fit the storage.
		return AutoChoice{}, false
	}
	o.Resolve()
	if prev.Provenance.Hostname != sysinfo.Hostname() || !sameDir(prev, o.Dir) {
		return AutoChoice{}, false
	}
	want := o.config()
	got := prev.Config
	s := Sizes{SizeMiB: got.FileSizeMiB, Seeks: got.Seeks, ByteIOMiB: got.ByteIOMiB, FilesK: got.FilesK}
	// Compare what the sizes do not cover.
	for _, c := range []*result.FSConfig{&want, &got} {
		c.Dir, c.MachineName, c.Seed, c.SeedFile, c.RAMMiB, c.Iterations, c.Auto = "", "", 0, "", 0, 0, nil
		if ch.Size {
			c.FileSizeMiB = min(c.FileSizeMiB, 1)
		}
		if ch.Seeks {
			c.Seeks = 0
		}
		if ch.PerChar {
			c.ByteIOMiB = min(c.ByteIOMiB, 1)
		}
		if ch.Files {
			c.FilesK = min(c.FilesK, 1)
		}
	}
	if want != got {
		return AutoChoice{}, false
	}
	next := o
	next.setSizes(s)
	if room := RoomOf(o.Dir); room != nil {
		need := next.Needs()
		if float64(need.Bytes) > float64(room.FreeBytes)*roomUse || room.InodesKnown && float64(need.Inodes) > float64(room.FreeInodes)*roomUse {
			return AutoChoice{}, false
		}
	}
	rec := *prev.Config.Auto
	rec.BudgetNs = int64(budget)
	rec.CalibrationNs, rec.CalibrationRuns = 0, 0
	if rec.ReusedFrom == "" {
		rec.ReusedFrom, rec.ReusedStart = label, prev.Provenance.StartTime
	}
	return AutoChoice{Sizes: s, Record: rec}, true
}

// sameDir is true when prev ran in dir: the same absolute path (symlinks
// resolved, as the provenance records it), or the same path as given.
func sameDir(prev *result.FS, dir string) bool {
	if prev.Config.Dir == dir {
		return true
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return prev.Provenance.Filesystem.Path != "" && prev.Provenance.Filesystem.Path == abs
}

// Summary is the line clyde fs prints about the choice: the options, in
// bonnie++'s spelling, and how they were found.
func (c AutoChoice) Summary(o Options) string {
	o.setSizes(c.Sizes)
	var b strings.Builder
	fmt.Fprintf(&b, "--auto: %s", sizeFlags(o))
	r := c.Record
	if r.ReusedFrom != "" {
		fmt.Fprintf(&b, " (the sizes of %s", r.ReusedFrom)
		if !r.ReusedStart.IsZero() {
			fmt.Fprintf(&b, " of %s", r.ReusedStart.Local().Format("2006-01-02 15:04"))
		}
		b.WriteString(", so the runs compare)")
	} else {
		runs := "runs"
		if r.CalibrationRuns == 1 {
			runs = "run"
		}
		fmt.Fprintf(&b, " (calibrated in %.1f s over %d short %s; each test sized for %.1f s; about %s in all, budget %s)",
			time.Duration(r.CalibrationNs).Seconds(), r.CalibrationRuns, runs, time.Duration(r.TargetNs).Seconds(),
			roundDuration(time.Duration(r.EstimatedNs)), roundDuration(time.Duration(r.BudgetNs)))
	}
	if len(r.Limits) > 0 {
		b.WriteString("; limited by " + strings.Join(r.Limits, "; "))
	}
	return b.String()
}

// sizeFlags spells o's sizes as clyde fs takes them.
func sizeFlags(o Options) string {
	var parts []string
	if o.SizeMiB > 0 {
		s := fmt.Sprintf("-s %d", o.SizeMiB)
		if o.Seeks != DefaultSeeks || o.ChunkBytes != DefaultChunkBytes {
			s = fmt.Sprintf("-s %d:%s:%d", o.SizeMiB, chunkText(o.ChunkBytes), o.Seeks)
		}
		parts = append(parts, s)
		if o.ByteIOMiB == 0 {
			parts = append(parts, "-f")
		} else {
			parts = append(parts, fmt.Sprintf("-f%d", o.ByteIOMiB))
		}
	} else {
		parts = append(parts, "-s 0")
	}
	parts = append(parts, fmt.Sprintf("-n %d", o.FilesK))
	return strings.Join(parts, " ")
}

func chunkText(n int) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dm", n>>20)
	case n%1024 == 0:
		return fmt.Sprintf("%dk", n>>10)
	}
	return fmt.Sprint(n)
}

// Suggest is what the too-short advice proposes for a run that had tests
// under 0.5 s: the same planner as Auto, at AutoTarget, growing only the
// sizes whose tests were short and never shrinking one, within room (the
// free space and inodes the run found; nil: unknown) and the options'
// rules, so the suggestion is never one the preflight refuses. It returns
// the configuration to try and what kept a size short of what its tests
// needed.
func Suggest(cfg result.FSConfig, run result.FSRun, room *result.Room) (result.FSConfig, []string) {
	o := optionsOf(cfg)
	rates := RatesOf(run)
	short := func(t result.FSTest) bool { return run.Tests[t].Ran && run.Tests[t].TooShort }
	next, limits := plan(o, rates, AutoTarget, room, Choose{Size: true, Seeks: true, PerChar: true, Files: true}, short)
	// Only ever grow: a kind with no short test keeps what it had.
	next.SizeMiB = max(next.SizeMiB, o.SizeMiB)
	next.Seeks = max(next.Seeks, o.Seeks)
	next.ByteIOMiB = max(next.ByteIOMiB, o.ByteIOMiB)
	next.FilesK = max(next.FilesK, o.FilesK)
	if room != nil {
		// Only what grew may shrink again: the run's own sizes fitted.
		limits = append(limits, fitRoom(&next, *room, Choose{Size: true, Files: true}, o.sizes())...)
	}
	out := cfg
	out.FileSizeMiB, out.Seeks, out.ByteIOMiB, out.FilesK = next.SizeMiB, next.Seeks, next.ByteIOMiB, next.FilesK
	if limits == nil {
		return out, nil
	}
	// Say which tests stay short at the rates measured.
	if still := shortTests(next, rates, AutoTarget, short); len(still) > 0 {
		limits = append(limits, "so "+strings.Join(still, ", "))
	}
	return out, dedupe(limits)
}

func dedupe(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// optionsOf is the options a result's configuration ran with, as far as
// sizing needs them; bonnie++ imports leave defaults at zero.
func optionsOf(cfg result.FSConfig) Options {
	o := DefaultOptions()
	o.Dir = cfg.Dir
	o.SizeMiB, o.FilesK, o.ByteIOMiB = cfg.FileSizeMiB, cfg.FilesK, cfg.ByteIOMiB
	o.MaxFileBytes, o.MinFileBytes = cfg.MaxFileBytes, cfg.MinFileBytes
	switch cfg.LinkMode {
	case "link":
		o.MaxFileBytes = LinkHard
	case "symlink":
		o.MaxFileBytes = LinkSymbolic
	}
	set := func(dst *int, v int) {
		if v > 0 {
			*dst = v
		}
	}
	set(&o.ChunkBytes, cfg.ChunkBytes)
	set(&o.Seeks, cfg.Seeks)
	set(&o.SeekProcs, cfg.SeekProcs)
	set(&o.Dirs, cfg.Dirs)
	set(&o.FileChunk, cfg.FileChunk)
	set(&o.Concurrency, cfg.Concurrency)
	set(&o.Iterations, cfg.Iterations)
	o.RAMMiB = max(cfg.RAMMiB, 0)
	return o
}
