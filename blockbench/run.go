package blockbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clydebench/clyde/internal/atexit"
	"github.com/clydebench/clyde/internal/blocksum"
	"github.com/clydebench/clyde/internal/buildinfo"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// Run runs one clyde block job: one workload per block size (Plan). It
// returns nil with a *result.UsageError when the job is refused before
// anything is touched, and on interruption what finished, with Interrupted
// set, and an error wrapping the context's cause.
func Run(ctx context.Context, j Job) (*result.Block, error) {
	if err := j.Validate(); err != nil {
		return nil, err
	}
	return RunPlan(ctx, j.Plan())
}

// Plan is the job as RunPlan runs it: one group of one workload per block
// size, with the job's safety, analysis, log, rank and reporting
// settings. A caller that needs the workloads before the run uses it
// (fiojob.JobLogNames: the names of fio's logs, checked as output files
// first), and a preset that plans workloads of its own starts from it.
func (j *Job) Plan() Plan {
	p := Plan{DestroyData: j.DestroyData, AllowSparse: j.AllowSparse, AllowCached: j.AllowCached, SizeGiven: j.SizeGiven, Warn: j.Warn, CommandLine: j.CommandLine, Analysis: j.Analysis,
		WriteLog: j.WriteLog, Notes: append([]string(nil), j.Notes...), Progress: j.Progress, Ranks: j.Ranks, Shape: j.Shape}
	for _, bs := range j.BlockSizes {
		p.Groups = append(p.Groups, Group{j.Workload(j.RW, bs)})
	}
	return p
}

// RunPlan runs a plan: it resolves every workload (target, region, engine,
// depth) and refuses the plan before anything is created when one is wrong,
// prepares every target (the safety rules, creating and filling a file that
// does not exist, the run lock), runs the groups in order, and cleans up.
func RunPlan(ctx context.Context, p Plan) (*result.Block, error) {
	groups, targets, notes, err := resolvePlan(&p)
	if err != nil {
		return nil, err
	}
	pd, err := planPrivate(&p, targets)
	if err != nil {
		return nil, err
	}
	if err := preflightNewFiles(&p, targets); err != nil {
		return nil, err
	}
	res, started := newBlockResult(&p, targets, notes)
	lv := newLive(&p, groups)
	// Registered before anything is created, so that an abort (a late
	// second ^C) still removes the files and markers of this run.
	cleanups := make([]func() error, len(targets))
	for i, t := range targets {
		cleanups[i] = atexit.Register(t.Cleanup)
	}
	runErr := prepareRun(ctx, &p, pd, targets, res, lv)
	stopped := map[int]bool{}
	if runErr == nil {
		// The notes are printed once every rule let the plan run: a
		// refusal is its one line, without notes on a run that never was.
		printNotes(p.Warn, notes)
		disks := diskStatsBefore(targets)
		runErr = runPlanGroups(ctx, &p, groups, res, stopped, lv)
		res.DiskUtil = disks.Util()
	}
	lv.close()
	analyse(p.Analysis, res, stopped)
	setElapsed(res, started)
	res.Target = targets[0].describe()
	runErr = cleanupRun(res, targets, cleanups, pd, runErr)
	if result.IsUsage(runErr) && len(res.Jobs) == 0 {
		return nil, runErr // refused by the safety rules: nothing ran
	}
	return res, runErr
}

// newBlockResult is the result of a plan about to run, with its
// provenance, the plan's and the resolution's notes, and the time it
// starts.
func newBlockResult(p *Plan, targets []*target, notes []string) (*result.Block, time.Time) {
	cmdline := p.CommandLine
	if cmdline == nil {
		cmdline = os.Args
	}
	res := &result.Block{SchemaVersion: result.SchemaVersion, Kind: "block",
		FioVersion:    result.FioVersionSlot(buildinfo.Version()),
		Provenance:    sysinfo.NewProvenance(cmdline, buildinfo.Version(), buildinfo.Commit(), provenancePath(targets[0])),
		GlobalOptions: p.GlobalOptions,
		Notes:         append(append([]string(nil), p.Notes...), notes...)}
	for _, t := range targets {
		if res.CacheNote == "" {
			res.CacheNote = t.CacheNote
		}
	}
	started := time.Now()
	res.Timestamp, res.TimestampMs = started.Unix(), started.UnixMilli()
	res.Time = started.Format(result.FioTime)
	return res, started
}

// prepareRun makes the private directory (which registers its own removal)
// and writes its fill, records the space of the filesystem under test, and
// prepares every target.
func prepareRun(ctx context.Context, p *Plan, pd *rundir.Private, targets []*target, res *result.Block, lv *live) error {
	err := pd.Prepare(ctx, lv.note, fillWriter(targets[0].seed))
	if pd != nil {
		res.Space = pd.Space
	} else {
		res.Space = pathSnapshot(targets[0])
	}
	if res.Space != nil {
		res.Space.MountPoint = res.Provenance.Filesystem.MountPoint
	}
	if err != nil {
		return err
	}
	return prepareTargets(ctx, targets, p.DestroyData, p.AllowSparse)
}

// cleanupRun cleans up every target (cleanups, registered with atexit)
// and removes the private directory; their notes, and what could not be
// cleaned up, go into res, the errors joined to runErr.
func cleanupRun(res *result.Block, targets []*target, cleanups []func() error, pd *rundir.Private, runErr error) error {
	for i, t := range targets {
		cerr := cleanups[i]()
		res.Notes = append(res.Notes, t.Notes...)
		if cerr != nil {
			res.Notes = append(res.Notes, "cleanup: "+cerr.Error())
			runErr = errors.Join(runErr, cerr)
		}
	}
	if pd != nil {
		res.Notes = append(res.Notes, pd.Notes...)
	}
	if err := pd.Remove(); err != nil {
		res.Notes = append(res.Notes, "cleanup: "+err.Error())
		runErr = errors.Join(runErr, err)
	}
	return runErr
}

// provenancePath is what the provenance describes: the target, or the
// directory a new file will be made in.
func provenancePath(t *target) string {
	if t.Exists {
		return t.Resolved // "" for a diskless target: no filesystem
	}
	return t.DirPath
}

// prepareTargets prepares every target, and checks that an existing file
// first read holds data on the device; the first failure stops.
func prepareTargets(ctx context.Context, targets []*target, destroy, allowSparse bool) error {
	for _, t := range targets {
		if err := t.prepare(ctx, destroy, t.fill, t.seed); err != nil {
			return err
		}
		if err := t.checkBacked(allowSparse); err != nil {
			return err
		}
	}
	return nil
}

func runGroups(ctx context.Context, groups [][]*workload, res *result.Block) error {
	return runPlanGroups(ctx, &Plan{}, groups, res, map[int]bool{}, nil)
}

// runPlanGroups runs the groups in order, with the plan's steady-state
// watch and AfterGroup, waiting p's idle time before each and showing them
// on lv (nil: no progress line); stopped records the groups a watch ended.
func runPlanGroups(ctx context.Context, p *Plan, groups [][]*workload, res *result.Block, stopped map[int]bool, lv *live) error {
	setStartTimes(groups)
	for i, ws := range groups {
		if i < len(p.Idle) && p.Idle[i] > 0 && ctx.Err() == nil {
			_ = lv.idle(ctx, i, ws, p.Idle[i]) // an interruption is caught below
		}
		if err := ctx.Err(); err != nil {
			res.Interrupted = true
			return fmt.Errorf("before group %d of %d: %w", i+1, len(groups), context.Cause(ctx))
		}
		if err := runPlanGroup(ctx, p, i, ws, res, stopped, lv); err != nil {
			if !errors.Is(err, errExitAll) {
				return err
			}
			// exit_what=all: the later groups' jobs never start, and
			// are reported with nothing done, as fio's (jobflow.go).
			for _, later := range groups[i+1:] {
				for _, w := range later {
					w.neverStarts = true
				}
			}
		}
	}
	return nil
}

// setStartTimes sets when each workload with a startdelay starts: fio
// counts startdelay from its genesis, once, before the first job starts
// (backend.c run_threads: set_genesis_time).
func setStartTimes(groups [][]*workload) {
	genesis := time.Now()
	for _, ws := range groups {
		for _, w := range ws {
			if w.StartDelay > 0 {
				w.startAt = genesis.Add(w.StartDelay)
			}
		}
	}
}

// runPlanGroup runs group i of the plan, ws: its caches dropped, under
// the steady-state watch, on the progress line, and between the ranks'
// common start and their gathering; its jobs go into res.
func runPlanGroup(ctx context.Context, p *Plan, i int, ws []*workload, res *result.Block, stopped map[int]bool, lv *live) error {
	res.Notes = append(res.Notes, invalidate(ws)...)
	stop := new(atomic.Bool)
	watch := watchGroup(p.Analysis, ws, stop)
	lv.begin(i, ws)
	var ready func(func() int64) error
	if p.Ranks != nil && p.Ranks.Phases != nil {
		ready = func(done func() int64) error { return p.Ranks.Phases.Before(ctx, i, done) }
	}
	jobs, end, runErr := runGroup(ctx, ws, stop, lv, ready)
	lv.end()
	if watch.finish() {
		stopped[i] = true
	}
	if p.AfterGroup != nil {
		p.AfterGroup(i, jobs)
	}
	if err := addGroupJobs(ctx, res, jobs, end.quiet, runErr, p.Shape); err != nil {
		return err
	}
	if end.all {
		return errExitAll
	}
	if ready != nil {
		if err := p.Ranks.Phases.After(ctx, i, jobs); err != nil {
			res.Error = err.Error()
			return err
		}
	}
	return nil
}

// addGroupJobs adds a group's jobs, its reporting groups and its jobs'
// notes to res, and says what ends the plan there: runErr (runGroup's), a
// job that did no I/O (then nothing is added) or was interrupted.
//
// quiet[k] says exitall stopped job k before it did any I/O (jobflow.go).
func addGroupJobs(ctx context.Context, res *result.Block, jobs []result.BlockJob, quiet []bool, runErr error, shape Shaper) error {
	first := len(res.Jobs)
	for k := range jobs {
		if runErr == nil && !jobs[k].Interrupted && !quiet[k] && jobs[k].Read.TotalIOs+jobs[k].Write.TotalIOs+jobs[k].Trim.TotalIOs == 0 {
			// Zeros would read as a measurement; there was none.
			err := fmt.Errorf("job %s: completed no I/O in its runtime of %s; give a longer --runtime", jobs[k].JobName, time.Duration(jobs[k].Config.RuntimeNs))
			res.Error = err.Error()
			return err
		}
	}
	res.Groups = append(res.Groups, blocksum.ReportGroups(jobs, first, shape)...)
	res.Jobs = append(res.Jobs, jobs...)
	for k := range jobs {
		res.Notes = append(res.Notes, jobs[k].Notes...)
	}
	if runErr != nil {
		res.Error = runErr.Error()
		return runErr
	}
	for k := range jobs {
		if jobs[k].Interrupted {
			res.Interrupted = true
			return fmt.Errorf("job %s: %w", jobs[k].JobName, context.Cause(ctx))
		}
	}
	return nil
}

// resolvePlan finds every target once, sizes the files to create, and
// resolves each workload's region, engine and depth; every refusal is a
// usage error and nothing is created.
func resolvePlan(p *Plan) ([][]*workload, []*target, []string, error) {
	if err := checkPlan(p); err != nil {
		return nil, nil, nil, err
	}
	pr := planResolver{p: p, byName: map[string]*target{}, reportGroup: -1, worker: 1}
	groups, err := pr.groups()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkTrimEntries(groups); err != nil { // trim.go
		return nil, nil, nil, err
	}
	if err := layFileSets(groups); err != nil { // files.go
		return nil, nil, nil, err
	}
	if err := sizeNewTargets(pr.targets, groups, p.SizeGiven); err != nil {
		return nil, nil, nil, err
	}
	notes, err := resolveGroups(p, groups)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := planFlows(groups); err != nil { // jobflow.go
		return nil, nil, nil, err
	}
	return groups, pr.targets, notes, nil
}

// checkPlan refuses a plan with nothing to run, and what its ranks and its
// analysis refuse.
func checkPlan(p *Plan) error {
	if len(p.Groups) == 0 {
		return result.Usagef("", "nothing to run: the plan has no workloads")
	}
	if err := p.Ranks.validate(p); err != nil {
		return err
	}
	if p.Analysis != nil {
		for _, g := range p.Groups {
			if err := p.Analysis.Check(g); err != nil {
				return err
			}
		}
	}
	return nil
}

// planResolver turns a plan's workloads into the run's, group by group:
// each checked, numbered (its report group, its first worker) and given
// its target, every target found once by name.
type planResolver struct {
	p           *Plan
	byName      map[string]*target
	targets     []*target
	reportGroup int
	worker      int
}

// groups resolves every group of the plan.
func (pr *planResolver) groups() ([][]*workload, error) {
	var groups [][]*workload
	for gi, g := range pr.p.Groups {
		if len(g) == 0 {
			return nil, result.Usagef("", "group %d has no workloads", gi+1)
		}
		var ws []*workload
		for k, w := range g {
			wl, err := pr.workload(w, k == 0)
			if err != nil {
				return nil, err
			}
			ws = append(ws, wl)
		}
		groups = append(groups, ws)
	}
	return groups, nil
}

// workload checks one workload and finds its target, or a volume's
// targets; first is true for a group's first workload, which starts a
// report group.
func (pr *planResolver) workload(w Workload, first bool) (*workload, error) {
	if err := w.validate(); err != nil {
		return nil, err
	}
	w.runsNoIO() // diskless.go
	if w.Log != nil && w.Log.Writes() && pr.p.WriteLog == nil {
		return nil, errors.New("job " + w.Name + " asks for logs, and the plan has no WriteLog to write them")
	}
	if first || w.NewGroup {
		pr.reportGroup++
	}
	wl := &workload{Workload: w, groupID: pr.reportGroup, firstWorker: pr.worker, writeLog: pr.p.WriteLog, shape: pr.p.Shape}
	switch {
	case w.Files != nil && !w.Diskless():
		ts, err := pr.fileSet(&w)
		if err != nil {
			return nil, err
		}
		wl.target, wl.vol = ts[0], ts
	case w.Volume != nil:
		ts, err := resolveVolume(w, pr.byName, &pr.targets, pr.p.Warn)
		if err != nil {
			return nil, err
		}
		for _, vt := range ts {
			vt.Direct = vt.Direct || w.Direct
		}
		wl.target, wl.vol = ts[0], ts
	default:
		t, err := pr.target(&w)
		if err != nil {
			return nil, err
		}
		t.Writes = t.Writes || w.RW.Writes()
		t.Direct = t.Direct || w.Direct
		wl.target = t
	}
	pr.worker += w.NumJobs
	return wl, nil
}

// fileSet resolves the files of a file set (files.go), each as a single target is
// (planResolver.target), in order; two names of one file are refused.
func (pr *planResolver) fileSet(w *Workload) ([]*target, error) {
	ts := make([]*target, 0, len(w.Files.Names))
	seen := map[*target]string{}
	for _, name := range w.Files.Names {
		m := Workload{Filename: name, IOEngine: w.IOEngine, RW: w.RW, Buffer: w.Buffer, Seed: w.Seed}
		t, err := pr.target(&m)
		if err != nil {
			return nil, err
		}
		if other, ok := seen[t]; ok {
			return nil, result.Usagef("--filename", "job %s: %s and %s are one file; give each file once", w.Name, other, name)
		}
		seen[t] = name
		t.Writes = t.Writes || w.RW.Writes()
		t.Direct = t.Direct || w.Direct
		ts = append(ts, t)
	}
	return ts, nil
}

// target is the one place a workload's target is decided: found once by
// name; a diskless engine's workloads share one that is nothing on disk,
// and across ranks each rank has its own file (ranks.go).
func (pr *planResolver) target(w *Workload) (*target, error) {
	key, resolve := w.Filename, resolveTarget
	switch {
	case w.Diskless():
		key, resolve = disklessKey, resolveDiskless
	case pr.p.PrivateDir:
		resolve = resolvePrivate
	}
	if t := pr.byName[key]; t != nil {
		return t, nil
	}
	name := w.Filename
	if !w.Diskless() {
		var err error
		if name, err = pr.p.Ranks.targetName(w.Filename); err != nil {
			return nil, err
		}
	}
	t, err := resolve(name, pr.p.Warn)
	if err != nil {
		return nil, err
	}
	pr.byName[key] = t
	pr.targets = append(pr.targets, t)
	t.fill, t.seed = w.Buffer, w.Seed
	t.readFirst = w.RW.Reads()
	return t, nil
}

// sizeNewTargets sizes each file clyde is to create so that it holds the
// regions of every workload on it.
func sizeNewTargets(targets []*target, groups [][]*workload, sizeGiven bool) error {
	for _, t := range targets {
		if t.Exists {
			continue
		}
		var on []*workload
		for _, ws := range groups {
			for _, w := range ws {
				if _, member := w.fileRegionOn(t); w.target == t || member {
					on = append(on, w)
				}
			}
		}
		if err := t.sizeNew(on, sizeGiven); err != nil {
			return err
		}
		if err := t.createOnOpen(on); err != nil {
			return err
		}
	}
	return nil
}

// resolveGroups resolves every workload (resolve) and refuses a group
// whose workloads do not fit the process's limits together. It returns the
// notes, each once, printed to p.Warn too.
func resolveGroups(p *Plan, groups [][]*workload) ([]string, error) {
	var notes []string
	for _, ws := range groups {
		for _, w := range ws {
			note, err := w.resolve()
			if err != nil {
				return nil, err
			}
			cacheNote := ""
			if !p.RequireUncached || p.AllowCached { // else refused instead (checkUncached)
				cacheNote = w.directCacheNote(p.AllowCached)
			}
			notes = addNotes(notes, note, cacheNote)
		}
		if err := checkGroupFootprint(ws); err != nil {
			return nil, err
		}
	}
	return notes, nil
}

// addNotes adds each note that is not there yet: fio's clones of one job,
// and a target's workloads, share their note.
func addNotes(notes []string, add ...string) []string {
	for _, note := range add {
		if note != "" && !slices.Contains(notes, note) {
			notes = append(notes, note)
		}
	}
	return notes
}

// printNotes prints each note to warn (nil: nowhere).
func printNotes(warn io.Writer, notes []string) {
	if warn == nil {
		return
	}
	for _, note := range notes {
		fmt.Fprintf(warn, "clyde: note: %s\n", note)
	}
}

// pickRegion is the workload's region: its file set's (files.go), its
// volume's, or its one target's.
func (w *workload) pickRegion() (region, error) {
	switch {
	case w.Files != nil:
		return w.fileSetRegion()
	case w.vol != nil:
		return w.volumeRegion()
	}
	return w.target.region(w)
}

// resolve fixes a workload's region on its target, its engine and the depth
// that engine keeps; it returns a note when the depth had to be capped.
func (w *workload) resolve() (string, error) {
	reg, err := w.pickRegion()
	if err != nil {
		return "", err
	}
	w.Offset, w.Size = reg.offset, reg.size
	if w.Volume != nil {
		w.vmap = newVolumeMap(w.Volume, w.vol, w.BS, reg)
	}
	if w.Sizes != nil && w.minBS() > w.Size {
		return "", result.Usagef("--bs", "the smallest block size, %d, is larger than the region of %d bytes; give a smaller block size or a larger --size", w.minBS(), w.Size)
	}
	if w.Sizes == nil && w.BS > w.Size {
		return "", result.Usagef("--bs", "%d is larger than the region of %d bytes; give a smaller --bs or a larger --size", w.BS, w.Size)
	}
	zoneNote, err := w.checkZones()
	if err != nil {
		return "", err
	}
	for _, t := range w.targets() {
		if err := t.checkAlign(w); err != nil {
			return "", err
		}
	}
	if w.Access != nil {
		if err := w.Access.CheckRegion(w.Offset, w.Size); err != nil {
			return "", err
		}
	}
	if w.engine, err = pickEngine(w.IOEngine, w.IODepth); err != nil {
		return "", err
	}
	if err := w.checkEngine(); err != nil {
		return "", err
	}
	if err := w.checkDataOptions(); err != nil {
		return "", err
	}
	w.depth = w.IODepth
	echoEngineOption(w)
	note := ""
	if w.IODepth > 1 && !w.engine.queues() {
		w.depth = 1
		note = fmt.Sprintf("job %s: iodepth %d asked for, but %s keeps one I/O in flight per worker, so it ran at iodepth 1 "+
			"(queueing engines here: %s)", w.Name, w.IODepth, w.engine.name(), orNone(queueingEngines()))
	}
	if zoneNote != "" {
		note = strings.TrimPrefix(note+"; "+zoneNote, "; ")
	}
	if n := w.engineNote(); n != "" {
		note = strings.TrimPrefix(note+"; "+n, "; ")
	}
	return note, nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// setElapsed fills fio's eta and elapsed of every job: the run is over, and
// it took this many whole seconds (rounded up, as fio's clock shows them).
func setElapsed(res *result.Block, started time.Time) {
	secs := int64((time.Since(started) + time.Second - 1) / time.Second)
	for i := range res.Jobs {
		res.Jobs[i].Eta, res.Jobs[i].Elapsed = 0, secs
	}
}
