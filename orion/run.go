package orion

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/outfile"
	"github.com/clydebench/clyde/result"
)

// set is one matrix to run: a small I/O size and its points.
type set struct {
	sizeKiB int
	prefix  string // output file prefix: T_<date>, or T_<N>k_<date> for a list of sizes
	label   string // job name prefix: "" or "8k "
	points  []Point
}

// Test is a validated ORION test, its LUNs read, its plan laid out and, when
// it writes files, their paths checked. Close it when it will not run.
type Test struct {
	opt     Options
	m       mapped
	luns    []LUN
	sets    []set
	started time.Time
	plan    blockbench.Plan
	groups  []groupInfo
	// byWorkers is set when the engine keeps one I/O in flight, so loads
	// run as that many workers.
	byWorkers bool
	// files are each set's five output files, checked before the run.
	files [][]*outfile.Target
	// runPlan is the package's runPlan when the test was prepared.
	runPlan func(context.Context, blockbench.Plan) (*result.Block, error)
}

// runPlan runs a plan; tests replace it with seeded synthetic workers.
var runPlan = blockbench.RunPlan

// FileSuffixes are the files ORION writes for a test, after its prefix.
var FileSuffixes = []string{"_summary.txt", "_iops.csv", "_mbps.csv", "_lat.csv", "_trace.txt", "_hist.txt"}

// Prepare validates o, reads T.lun, lays out the data points and checks
// every output file; any refusal is a usage error and nothing is created.
func Prepare(o Options) (*Test, error) { return PrepareContext(context.Background(), o) }

// PrepareContext is Prepare whose reading of T.lun ends at the first ^C.
func PrepareContext(ctx context.Context, o Options) (*Test, error) {
	m, err := o.mapping()
	if err != nil {
		return nil, err
	}
	t := &Test{opt: o, m: m, runPlan: runPlan}
	if len(o.LUNs) > 0 {
		for _, p := range o.LUNs {
			t.luns = append(t.luns, LUN{Path: p, SizeBytes: o.Size})
		}
	} else if t.luns, err = ReadLUNs(ctx, o.TestName); err != nil {
		return nil, err
	}
	if o.Write > 0 && !o.DestroyData && len(o.LUNs) == 0 {
		return nil, result.Usagef("--destroy-data", "-write %d writes to the LUNs of %s.lun, destroying what they hold; pass --destroy-data to allow it", o.Write, o.TestName)
	}
	if t.opt.NumDisks == 0 {
		t.opt.NumDisks = len(t.luns)
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	t.started = now()
	if err := t.checkStripe(); err != nil {
		return nil, err
	}
	if err := t.layout(); err != nil {
		return nil, err
	}
	if err := t.buildPlan(); err != nil {
		return nil, err
	}
	if err := t.checkFiles(); err != nil {
		return nil, err
	}
	if err := t.checkLUNsDistinct(); err != nil {
		return nil, err
	}
	return t, nil
}

// checkLUNsDistinct refuses a LUN listed twice: the volume of several
// LUNs would open it twice as two of its members.
func (t *Test) checkLUNsDistinct() error {
	seen := map[string]bool{}
	for _, l := range t.luns {
		if seen[l.Path] {
			return result.Usagef("-testname", "%s is listed twice in one volume", l.Path)
		}
		seen[l.Path] = true
	}
	return nil
}

// layout makes one set per small I/O size.
func (t *Test) layout() error {
	pts, err := Matrix(t.m.matrix, t.opt.NumDisks, t.m.numSmall, t.m.numLarge)
	if err != nil {
		return err
	}
	base := filepath.Base(t.opt.TestName)
	if base == "." || base == string(filepath.Separator) || base == "" {
		base = DefaultTestName
	}
	date := t.started.Format("20060102_1504")
	for _, size := range t.opt.SizeSmall {
		s := set{sizeKiB: size, prefix: base + "_" + date, points: pts}
		if len(t.opt.SizeSmall) > 1 {
			s.prefix = fmt.Sprintf("%s_%dk_%s", base, size, date)
			s.label = fmt.Sprintf("%dk ", size)
		}
		t.sets = append(t.sets, s)
	}
	return nil
}

// checkFiles checks the output files before anything runs.
func (t *Test) checkFiles() error {
	if t.opt.OutputDir == "" {
		return nil
	}
	seen := map[string]bool{}
	for _, s := range t.sets {
		var fs []*outfile.Target
		for _, suf := range FileSuffixes {
			p := filepath.Join(t.opt.OutputDir, s.prefix+suf)
			if seen[p] {
				t.Close()
				return result.Usagef("-output-dir", "%s would be written twice", p)
			}
			seen[p] = true
			f, err := outfile.Check("-output-dir", p)
			if err != nil {
				for _, g := range fs {
					g.Close()
				}
				t.Close()
				return err
			}
			fs = append(fs, f)
		}
		t.files = append(t.files, fs)
	}
	return nil
}

// Close releases the output files' directories; WriteFiles closes them too.
func (t *Test) Close() {
	for _, fs := range t.files {
		for _, f := range fs {
			f.Close()
		}
	}
}

// Points is the number of data points the test runs.
func (t *Test) Points() int {
	n := 0
	for _, s := range t.sets {
		n += len(s.points)
	}
	return n
}

// Estimate is how long the data points take (warm-ups not counted).
func (t *Test) Estimate() time.Duration { return time.Duration(t.Points()) * t.opt.Duration }

// Prefixes are the output file prefixes, one per set.
func (t *Test) Prefixes() []string {
	var out []string
	for _, s := range t.sets {
		out = append(out, s.prefix)
	}
	return out
}

// Run runs the data points and returns the block result with its Orion
// matrices filled; on interruption, what finished and an error.
func (t *Test) Run(ctx context.Context) (*result.Block, error) {
	p := t.plan
	switch {
	case t.opt.Verbose && t.opt.Out != nil:
		p.AfterGroup = t.progress
	case t.opt.Live != nil:
		p.AfterGroup = t.live
	}
	res, err := t.runPlan(ctx, p)
	if p.AfterGroup != nil && t.opt.Live != nil && !t.opt.Verbose {
		fmt.Fprint(t.opt.Live, "\r\033[K") // the live line goes; the summary follows
	}
	err = orionFlags(err)
	if res == nil {
		return nil, err
	}
	res.Orion = t.describe()
	res.Notes = append(res.Notes, t.opt.Notes()...)
	if t.byWorkers {
		res.Notes = append(res.Notes, "the engine keeps one I/O in flight, so each load of N outstanding I/Os ran as N workers of one I/O each")
	}
	t.fill(res)
	return res, err
}

// engineFlags are the block engine's option names in a refusal, and the
// ORION options that set them: a refusal names an option clyde orion has.
var engineFlags = map[string]string{
	"--bs": "-size_small/-size_large", "--size": "-testname (its LUNs' sizes)", "--offset": "-testname (its LUNs' sizes)",
	"--iodepth": "-num_small/-num_large", "--numjobs": "-num_streamIO", "--runtime": "-duration",
	"--filename": "-testname", "--ioengine": "--ioengine",
}

// orionFlags renames the flag of a refusal from the block engine to the
// ORION option it comes from.
func orionFlags(err error) error {
	var ue *result.UsageError
	if !errors.As(err, &ue) || ue.Flag == "" {
		return err
	}
	if f, ok := engineFlags[ue.Flag]; ok {
		return &result.UsageError{Flag: f, Msg: ue.Msg}
	}
	return err
}

// progress is -verbose: one line per data point as it finishes.
func (t *Test) progress(group int, jobs []result.BlockJob) {
	info := t.groups[group]
	if info.point < 0 || len(jobs) != len(info.roles) {
		return
	}
	pt := t.sets[info.set].points[info.point]
	var iops, bw float64
	for k, j := range jobs {
		if info.roles[k] == roleSmall {
			iops = j.Read.IOPS + j.Write.IOPS
		} else {
			bw += float64(j.Read.BWBytes+j.Write.BWBytes) / (1 << 20)
		}
	}
	n := 0
	for _, g := range t.groups[:group+1] {
		if g.point >= 0 {
			n++
		}
	}
	line := fmt.Sprintf("Point %d of %d: %sSmall=%d Large=%d:", n, t.Points(), t.sets[info.set].label, pt.Small, pt.Large)
	if pt.Small > 0 {
		line += fmt.Sprintf(" small %.0f IOPS", iops)
	}
	if pt.Large > 0 {
		line += fmt.Sprintf(" large %.2f MBPS", bw)
	}
	fmt.Fprintln(t.opt.Out, line)
}

// live is the terminal's progress without -verbose: one line, rewritten
// after each data point, with the points done and the time left at
// -duration per point.
func (t *Test) live(group int, _ []result.BlockJob) {
	info := t.groups[group]
	if info.point < 0 {
		return
	}
	n := 0
	for _, g := range t.groups[:group+1] {
		if g.point >= 0 {
			n++
		}
	}
	pt := t.sets[info.set].points[info.point]
	left := time.Duration(t.Points()-n) * t.opt.Duration
	fmt.Fprintf(t.opt.Live, "\r\033[KORION: point %d of %d done (%sSmall=%d Large=%d), about %s left", n, t.Points(), t.sets[info.set].label, pt.Small, pt.Large, left.Round(time.Second))
}

// describe is the test as it was mapped, its sets still without points.
func (t *Test) describe() *result.Orion {
	o := &result.Orion{Command: t.opt.Command, Run: t.opt.Run, TestName: t.opt.TestName, NumDisks: t.opt.NumDisks,
		SizeLargeKiB: t.opt.SizeLarge, Type: t.opt.Type, WritePct: t.opt.Write,
		DurationS: int(t.opt.Duration / time.Second), Matrix: t.m.matrix, NumSmall: t.m.numSmall, NumLarge: t.m.numLarge,
		CacheSizeMiB: t.opt.CacheSize, Simulate: t.opt.Simulate, Direct: t.opt.Direct, Started: t.started.Format("20060102_1504")}
	if t.opt.Type == "seq" {
		o.NumStreamIO = t.opt.NumStreamIO
	}
	if t.opt.Simulate == "raid0" {
		o.StripeKiB = int(t.stripe() >> 10)
	}
	for _, l := range t.luns {
		o.LUNs = append(o.LUNs, result.OrionLUN{Path: l.Path, SizeBytes: l.SizeBytes})
	}
	for _, s := range t.sets {
		sm, lg := axes(s.points)
		o.Sets = append(o.Sets, result.OrionSet{SizeSmallKiB: s.sizeKiB, Prefix: s.prefix, SmallLoads: sm, LargeLoads: lg,
			Points: []result.OrionPoint{}})
	}
	return o
}

// Banner is what ORION prints as it starts: the test's prefix and how long
// it will take.
func (t *Test) Banner() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ORION: ORacle IO Numbers -- clyde orion\n")
	for _, p := range t.Prefixes() {
		fmt.Fprintf(&b, "%s\n", p)
	}
	est := t.Estimate()
	if est < 2*time.Minute {
		fmt.Fprintf(&b, "Test will take approximately %d seconds (%d data points)\n", int(est.Round(time.Second)/time.Second), t.Points())
	} else {
		fmt.Fprintf(&b, "Test will take approximately %d minutes (%d data points)\n", int((est+time.Minute-1)/time.Minute), t.Points())
	}
	if t.opt.CacheSize > 0 && t.opt.Type == "seq" {
		fmt.Fprintf(&b, "Larger caches may take longer\n")
	}
	return b.String()
}
