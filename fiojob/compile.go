package fiojob

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// Compile options.
type Options struct {
	// Overrides are options from the command line, applied to every job
	// after the file's own, so they win (Pos is the flag).
	Overrides []Option
	// RandomSeed draws the seed of a job with randrepeat=0; nil uses
	// blockbench.RandomSeed.
	RandomSeed func() uint64
	// Exists says whether a target path exists, for the "no size for a new
	// file" refusal; nil asks the filesystem.
	Exists func(path string) bool
}

// Load reads and compiles the job file at path.
func Load(path string, env Env, o Options) (blockbench.Plan, error) {
	f, err := ParseFile(path, env)
	if err != nil {
		return blockbench.Plan{}, err
	}
	return Compile(f, o)
}

// Compile turns a parsed job file into a plan, as fio runs the file: every
// job section is a workload with fio's defaults under the [global]
// sections before it, its own options and the overrides; jobs run at the
// same time until one has stonewall, which starts the next group. The
// plan's GlobalOptions echo the [global] options that have values, as fio's
// "global options" does.
func Compile(f *File, o Options) (blockbench.Plan, error) {
	p := blockbench.Plan{SizeGiven: true, GlobalOptions: map[string]string{}}
	var globals []Option
	for _, sec := range f.Sections {
		if sec.Name == "global" {
			globals = append(globals, sec.Options...)
			for _, opt := range sec.Options {
				if opt.HasValue {
					p.GlobalOptions[opt.Name] = opt.Value
				}
			}
			continue
		}
		j := newJob(sec, o)
		for _, list := range [][]Option{globals, sec.Options, o.Overrides} {
			for _, opt := range list {
				if err := j.apply(opt); err != nil {
					return blockbench.Plan{}, err
				}
			}
		}
		w, notes, err := j.finish()
		if err != nil {
			return blockbench.Plan{}, err
		}
		p.Notes = append(p.Notes, notes...)
		if len(p.Groups) == 0 || j.stonewall {
			p.Groups = append(p.Groups, blockbench.Group{})
		}
		g := &p.Groups[len(p.Groups)-1]
		*g = append(*g, w)
	}
	if len(p.Groups) == 0 {
		return blockbench.Plan{}, result.Usagef(f.Path, "no job section; add one such as [randread] with its options")
	}
	return p, nil
}

// job is one section as its options are applied.
type job struct {
	w    blockbench.Workload
	sec  Section
	opts Options
	// set are the options given, by name, for the rules between them.
	set       map[string]Option
	stonewall bool
	directory string
	notes     []string
	logBW     Option
	logIOPS   Option
	logLat    Option
	compress  int
	zero      bool
	scramble  bool
}

func newJob(sec Section, o Options) *job {
	return &job{sec: sec, opts: o, set: map[string]Option{}, w: blockbench.Workload{
		Name: sec.Name, RW: blockbench.Read, RWMixRead: blockbench.DefaultRWMixRead, BS: blockbench.DefaultBS,
		IODepth: 1, NumJobs: 1, IOEngine: blockbench.EnginePsync, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom},
		Seed: blockbench.DefaultSeed, Invalidate: true, FadviseHint: blockbench.CanAdviseAccess, Options: map[string]string{},
	}}
}

// handler applies one option to a job.
type handler func(j *job, o Option) error

// handlers are the options clyde runs as fio does, by fio's names and
// aliases.
var handlers map[string]handler

// aliases are fio's other names for an option.
var aliases = map[string]string{
	"readwrite": "rw", "blocksize": "bs", "timeout": "runtime", "wait_for_previous": "stonewall",
	"rand_repeatable": "randrepeat", "fileoffset": "offset",
}

// refusals say why fio options clyde knows of are not supported.
var refusals = map[string]string{
	"create_only":          "clyde creates, fills and removes its file in one run; run the job itself, which creates the file it needs",
	"unified_rw_reporting": "clyde reports read and write apart, as fio does by default",
	"bssplit":              "clyde runs one block size per job",
	"bsrange":              "clyde runs one block size per job",
	"verify":               "clyde does not verify data",
	"rate":                 "clyde does not throttle I/O",
	"rate_iops":            "clyde does not throttle I/O",
	"thinktime":            "clyde does not pause between I/Os",
	"iodepth_batch_submit": "clyde submits one I/O per call, fio's default",
	"iodepth_batch":        "clyde submits one I/O per call, fio's default",
	"iodepth_low":          "clyde refills the queue after every completion",
	"steadystate":          "use clyde block's steady-state preset instead",
	"ss":                   "use clyde block's steady-state preset instead",
	"exitall":              "clyde runs every job of a group to its end",
	"startdelay":           "clyde starts the jobs of a group together",
	"loops":                "clyde runs each job once (loops=1)",
	"percentage_random":    "clyde's rw modes are all random or all sequential",
	"random_generator":     "clyde draws offsets with its own seeded generator",
	"bwavgtime":            "clyde samples bandwidth every 500 ms, fio's default",
	"iopsavgtime":          "clyde samples IOPS every 500 ms, fio's default",
	"write_hist_log":       "clyde keeps the histograms in its JSON (lat_ns.hdr) and json+ bins",
	"filesize":             "give size=, the region each job uses",
	"io_size":              "give size=: clyde's jobs do one pass over their region, or run for runtime= with time_based",
	"nrfiles":              "clyde runs each job on one file",
	"mem":                  "clyde allocates its own aligned buffers",
	"kb_base":              "clyde's sizes are powers of 1024, fio's default kb_base=1024",
}

func init() {
	handlers = map[string]handler{
		"name":      func(j *job, o Option) error { return str(o, &j.w.Name) },
		"filename":  (*job).filename,
		"directory": (*job).setDirectory,
		"rw":        (*job).rw,
		"rwmixread": func(j *job, o Option) error { return j.percent(o, &j.w.RWMixRead) },
		"rwmixwrite": func(j *job, o Option) error {
			var v int
			if err := j.percent(o, &v); err != nil {
				return err
			}
			j.w.RWMixRead = 100 - v
			return nil
		},
		"bs":         (*job).bs,
		"size":       func(j *job, o Option) error { return size(o, &j.w.Size) },
		"offset":     func(j *job, o Option) error { return size(o, &j.w.Offset) },
		"iodepth":    func(j *job, o Option) error { return intIn(o, 1, blockbench.MaxIODepth, &j.w.IODepth) },
		"numjobs":    func(j *job, o Option) error { return intIn(o, 1, 4096, &j.w.NumJobs) },
		"ioengine":   (*job).ioengine,
		"direct":     func(j *job, o Option) error { return boolean(o, &j.w.Direct) },
		"buffered":   func(j *job, o Option) error { var b bool; err := boolean(o, &b); j.w.Direct = !b; return err },
		"runtime":    func(j *job, o Option) error { return duration(o, &j.w.Runtime) },
		"ramp_time":  func(j *job, o Option) error { return duration(o, &j.w.RampTime) },
		"time_based": func(j *job, o Option) error { return boolean(o, &j.w.TimeBased) },
		"stonewall":  func(j *job, o Option) error { return boolean(o, &j.stonewall) },
		"new_group":  func(j *job, o Option) error { return boolean(o, &j.w.NewGroup) },
		// group_reporting: clyde always sums a job's numjobs clones into
		// one entry (and jobs of a group in "groups"), which is what
		// fio's option does for clones.
		"group_reporting": echo,
		"thread":          echo, // clyde's workers are threads
		"description":     echo,
		"norandommap":     echo, // clyde never keeps a random map: each offset is drawn on its own
		"random_distribution": func(j *job, o Option) error {
			if o.Value != "random" {
				return result.Usagef(o.Pos, "random_distribution=%s: clyde draws offsets uniformly (random) only", o.Value)
			}
			return echo(j, o)
		},
		"per_job_logs": func(j *job, o Option) error {
			var b bool
			if err := boolean(o, &b); err != nil || !b {
				return orErr(err, result.Usagef(o.Pos, "per_job_logs=0: clyde writes one log per worker, fio's default"))
			}
			return nil
		},
		"invalidate":   func(j *job, o Option) error { return boolean(o, &j.w.Invalidate) },
		"fadvise_hint": func(j *job, o Option) error { return boolean(o, &j.w.FadviseHint) },
		"buffer_compress_percentage": func(j *job, o Option) error {
			return j.percent(o, &j.compress)
		},
		"buffer_compress_chunk": func(j *job, o Option) error {
			var n int64
			if err := size(o, &n); err != nil {
				return err
			}
			if n != 512 {
				return result.Usagef(o.Pos, "buffer_compress_chunk=%s: clyde mixes data in fio's default 512-byte chunks only", o.Value)
			}
			return nil
		},
		"zero_buffers":     func(j *job, o Option) error { return boolean(o, &j.zero) },
		"refill_buffers":   func(j *job, o Option) error { return boolean(o, &j.w.Buffer.Refill) },
		"scramble_buffers": func(j *job, o Option) error { return boolean(o, &j.scramble) },
		"fsync":            func(j *job, o Option) error { return intIn(o, 0, math.MaxInt32, &j.w.Fsync) },
		"end_fsync":        func(j *job, o Option) error { return boolean(o, &j.w.EndFsync) },
		"randrepeat":       (*job).randrepeat,
		"randseed": func(j *job, o Option) error {
			v, err := strconv.ParseUint(o.Value, 0, 64)
			if err != nil || !o.HasValue {
				return result.Usagef(o.Pos, "randseed=%q is not a seed; give a whole number", o.Value)
			}
			j.w.Seed = v
			return nil
		},
		"percentile_list": (*job).percentileList,
		"clat_percentiles": func(j *job, o Option) error {
			var b bool
			err := boolean(o, &b)
			j.w.Report.NoClatPercentiles = !b
			return err
		},
		"lat_percentiles":  func(j *job, o Option) error { return boolean(o, &j.w.Report.LatPercentiles) },
		"slat_percentiles": func(j *job, o Option) error { return boolean(o, &j.w.Report.SlatPercentiles) },
		"write_bw_log":     func(j *job, o Option) error { j.logBW = o; return nil },
		"write_iops_log":   func(j *job, o Option) error { j.logIOPS = o; return nil },
		"write_lat_log":    func(j *job, o Option) error { j.logLat = o; return nil },
		"log_avg_msec":     func(j *job, o Option) error { return intIn(o, 0, math.MaxInt32, &j.w.Log.AvgMsec) },
		"log_offset":       func(j *job, o Option) error { return boolean(o, &j.w.Log.Offset) },
	}
}

// Supported lists the option names (and aliases) clyde reads, sorted.
func Supported() []string {
	var out []string
	for k := range handlers {
		out = append(out, k)
	}
	for k := range aliases {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (j *job) apply(o Option) error {
	name := o.Name
	if a, ok := aliases[name]; ok {
		name = a
	}
	h, ok := handlers[name]
	if !ok {
		if why, known := refusals[name]; known {
			return result.Usagef(o.Pos, "option %s is not supported: %s", o.Name, why)
		}
		return result.Usagef(o.Pos, "option %s is not one clyde block supports, so it is refused rather than ignored (see clyde block --help for the list)", o.Name)
	}
	if err := h(j, o); err != nil {
		return err
	}
	j.set[name] = o
	return nil
}

func orErr(err, other error) error {
	if err != nil {
		return err
	}
	return other
}

func echo(j *job, o Option) error {
	if o.HasValue {
		j.w.Options[o.Name] = o.Value
	} else {
		j.w.Options[o.Name] = "1"
	}
	return nil
}

func needValue(o Option) error {
	if !o.HasValue || o.Value == "" {
		return result.Usagef(o.Pos, "%s needs a value (%s=...)", o.Name, o.Name)
	}
	return nil
}

func str(o Option, dst *string) error {
	if err := needValue(o); err != nil {
		return err
	}
	*dst = o.Value
	return nil
}

// boolean reads fio's bool: no value is 1, else 0 or 1.
func boolean(o Option, dst *bool) error {
	if !o.HasValue {
		*dst = true
		return nil
	}
	switch o.Value {
	case "1":
		*dst = true
	case "0":
		*dst = false
	default:
		return result.Usagef(o.Pos, "%s=%q: give 0 or 1", o.Name, o.Value)
	}
	return nil
}

func intIn(o Option, lo, hi int, dst *int) error {
	if err := needValue(o); err != nil {
		return err
	}
	v, err := strconv.ParseInt(o.Value, 0, 64)
	if err != nil || v < int64(lo) || v > int64(hi) {
		return result.Usagef(o.Pos, "%s=%q: give a whole number from %d to %d", o.Name, o.Value, lo, hi)
	}
	*dst = int(v)
	return nil
}

func (j *job) percent(o Option, dst *int) error { return intIn(o, 0, 100, dst) }

// size reads fio's size: bytes or k, m, g, t (powers of 1024, fio's
// default kb_base).
func size(o Option, dst *int64) error {
	if err := needValue(o); err != nil {
		return err
	}
	if strings.HasSuffix(o.Value, "%") || strings.HasPrefix(o.Value, "(") {
		return result.Usagef(o.Pos, "%s=%s: clyde takes a size in bytes or with k, m, g, t, not a percentage or an expression", o.Name, o.Value)
	}
	v, err := blockbench.ParseSize(o.Pos, o.Value)
	if err != nil {
		return result.Usagef(o.Pos, "%s=%q is not a size; give bytes or a number with k, m, g or t (4k, 64m, 1g)", o.Name, o.Value)
	}
	*dst = v
	return nil
}

// duration reads fio's time: seconds, or a number with d, h, m, s, ms
// (msec) or us (usec).
func duration(o Option, dst *time.Duration) error {
	if err := needValue(o); err != nil {
		return err
	}
	d, ok := parseFioTime(o.Value)
	if !ok {
		return result.Usagef(o.Pos, "%s=%q is not a time; give seconds or a number with d, h, m, s, ms or us", o.Name, o.Value)
	}
	*dst = d
	return nil
}

func parseFioTime(s string) (time.Duration, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	var unit time.Duration
	switch strings.ToLower(s[i:]) {
	case "", "s", "sec":
		unit = time.Second
	case "ms", "msec":
		unit = time.Millisecond
	case "us", "usec":
		unit = time.Microsecond
	case "m", "min":
		unit = time.Minute
	case "h":
		unit = time.Hour
	case "d":
		unit = 24 * time.Hour
	default:
		return 0, false
	}
	if n > int64(math.MaxInt64/unit) {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

func (j *job) filename(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	if strings.Contains(o.Value, ":") {
		return result.Usagef(o.Pos, "filename=%s names several files (':'); clyde runs each job on one file", o.Value)
	}
	j.w.Filename = o.Value
	return nil
}

func (j *job) setDirectory(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	if strings.Contains(o.Value, ":") {
		return result.Usagef(o.Pos, "directory=%s names several directories (':'); clyde runs each job in one", o.Value)
	}
	j.directory = o.Value
	return nil
}

func (j *job) rw(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	mode, run, hasRun := strings.Cut(o.Value, ":")
	if hasRun && run != "1" {
		return result.Usagef(o.Pos, "rw=%s: clyde draws a new offset for every I/O (rw=MODE:%s is not supported)", o.Value, run)
	}
	switch mode {
	case "trim", "randtrim", "trimwrite", "randtrimwrite":
		return result.Usagef(o.Pos, "rw=%s: clyde issues no trims", mode)
	}
	rw, err := blockbench.ParseRW(mode)
	if err != nil {
		return result.Usagef(o.Pos, "rw=%s: accepted: read, write, randread, randwrite, rw (readwrite), randrw", o.Value)
	}
	j.w.RW = rw
	return nil
}

func (j *job) bs(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	parts := strings.Split(o.Value, ",")
	var sizes []int64
	for _, p := range parts {
		if p == "" {
			continue // fio's "bs=,8k" keeps a direction's default; refused below unless all agree
		}
		var n int64
		if err := size(Option{Name: "bs", Value: p, HasValue: true, Pos: o.Pos}, &n); err != nil {
			return err
		}
		if n <= 0 {
			return result.Usagef(o.Pos, "bs=%s: a block size is above 0", o.Value)
		}
		sizes = append(sizes, n)
	}
	if len(sizes) == 0 || len(sizes) != len(parts) {
		return result.Usagef(o.Pos, "bs=%s: give one block size for every direction", o.Value)
	}
	for _, n := range sizes[1:] {
		if n != sizes[0] {
			return result.Usagef(o.Pos, "bs=%s: clyde uses one block size for reads and writes", o.Value)
		}
	}
	j.w.BS = sizes[0]
	return nil
}

func (j *job) ioengine(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	e, note, err := blockbench.FioEngine(o.Pos, o.Value)
	if err != nil {
		return err
	}
	j.w.IOEngine = e
	j.notes = removeEngineNote(j.notes)
	if note != "" {
		j.notes = append(j.notes, "job "+j.sec.Name+": "+note)
	}
	return nil
}

// removeEngineNote drops the note of an engine a later ioengine= replaced.
func removeEngineNote(notes []string) []string {
	out := notes[:0]
	for _, n := range notes {
		if !strings.Contains(n, ": ioengine ") {
			out = append(out, n)
		}
	}
	return out
}

func (j *job) randrepeat(o Option) error {
	var b bool
	if err := boolean(o, &b); err != nil {
		return err
	}
	if b {
		j.w.Seed = blockbench.DefaultSeed
		return nil
	}
	seed := blockbench.RandomSeed
	if j.opts.RandomSeed != nil {
		seed = j.opts.RandomSeed
	}
	j.w.Seed = seed()
	return nil
}

func (j *job) percentileList(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	var ps []float64
	for _, p := range strings.Split(o.Value, ":") {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || !(v >= 0 && v <= 100) {
			return result.Usagef(o.Pos, "percentile_list=%s: give percentages 0..100 separated by ':' (99:99.9)", o.Value)
		}
		ps = append(ps, v)
	}
	if len(ps) > 20 {
		return result.Usagef(o.Pos, "percentile_list: %d points; fio takes at most 20", len(ps))
	}
	j.w.Report.PercentileList = ps
	return nil
}

// finish resolves what depends on several options: the file name, the
// data, the logs.
func (j *job) finish() (blockbench.Workload, []string, error) {
	w := j.w
	if w.Filename == "" {
		// fio names a job's file NAME.JOB.FILE in directory= (or here).
		if w.NumJobs > 1 {
			return w, nil, result.Usagef(j.sec.Pos, "job %s has numjobs=%d and no filename=: fio gives each clone a file of its own, clyde's clones share one; give filename=", j.sec.Name, w.NumJobs)
		}
		w.Filename = w.Name + ".0.0"
	}
	if j.directory != "" && !filepath.IsAbs(w.Filename) {
		w.Filename = joinDirectory(j.directory, w.Filename)
	}
	switch {
	case j.zero:
		w.Buffer.Kind = blockbench.BufferZero
	case j.compress > 0:
		// fio turns refill_buffers on with buffer_compress_percentage.
		w.Buffer.Kind, w.Buffer.CompressPct, w.Buffer.Refill = blockbench.BufferCompressible, j.compress, true
	}
	if j.scramble && !w.Buffer.Refill && w.Buffer.Kind != blockbench.BufferZero {
		return w, nil, result.Usagef(j.set["scramble_buffers"].Pos, "scramble_buffers=1: clyde does not scramble buffers; give refill_buffers=1 (new data for every write) or scramble_buffers=0")
	}
	for _, l := range []struct {
		o   Option
		dst *string
	}{{j.logBW, &w.Log.BW}, {j.logIOPS, &w.Log.IOPS}, {j.logLat, &w.Log.Lat}} {
		switch {
		case l.o.Name == "":
		case !l.o.HasValue || l.o.Value == "":
			*l.dst = w.Name // fio's default prefix: the job's name
		default:
			*l.dst = l.o.Value
		}
	}
	if w.Log.AvgMsec > 0 && !w.Log.Any() {
		w.Log.AvgMsec = 0 // fio's log_avg_msec without a log does nothing to see
	}
	if w.Size == 0 && !j.exists(w.Filename) {
		return w, nil, result.Usagef(j.sec.Pos, "job %s: %s does not exist and the job gives no size=; give the size of the file to create", j.sec.Name, w.Filename)
	}
	return w, j.notes, nil
}

func (j *job) exists(path string) bool {
	if j.opts.Exists != nil {
		return j.opts.Exists(path)
	}
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// joinDirectory puts name in directory=. A ".." in it is left for the
// path rule (internal/safepath) to resolve through the real parent, as fio
// and the kernel do: filepath.Join would cut "link/.." to "", the
// directory the job file is in rather than the parent of link's target.
func joinDirectory(dir, name string) string {
	for _, c := range strings.Split(filepath.ToSlash(dir), "/") {
		if c == ".." {
			return strings.TrimRight(dir, `/\`) + string(filepath.Separator) + name
		}
	}
	return filepath.Join(dir, name)
}
