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
	// Sections, when set, runs only the jobs it names, as fio's --section
	// (every [global] section still applies).
	Sections []string
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
// plan's GlobalOptions and each workload's JobOptions echo the options as
// fio's "global options" and "job options" do (echo.go): the overrides,
// which fio would have read from its command line first, and the [global]
// sections; each job's own section.
func Compile(f *File, o Options) (blockbench.Plan, error) {
	p := blockbench.Plan{SizeGiven: true, Shape: Shape}
	overrides := byFioPriority(o.Overrides)
	p.GlobalOptions = appendEcho(p.GlobalOptions, o.Overrides)
	var globals [][]Option
	thread := 1 // fio's thread_number of the next job
	seen := map[string]int{}
	exitAll := false
	for _, sec := range f.Sections {
		if isGlobal(sec.Name) {
			globals = append(globals, sec.parseOrder())
			p.GlobalOptions = appendEcho(p.GlobalOptions, sec.parseOrder())
			continue
		}
		if skipSection(o.Sections, sec.Name) {
			continue
		}
		j := newJob(sec, o)
		for i, list := range append(append(globals[:len(globals):len(globals)], sec.parseOrder()), overrides) {
			j.inGlobal = i < len(globals)
			for _, opt := range list {
				if err := j.apply(opt); err != nil {
					return blockbench.Plan{}, err
				}
			}
		}
		j.inGlobal = false
		w, notes, err := j.finish()
		if err != nil {
			return blockbench.Plan{}, err
		}
		if err := j.checkWaitFor(w, seen); err != nil { // flowopts.go
			return blockbench.Plan{}, err
		}
		seen[w.Name]++
		exitAll = exitAll || j.exitAll
		p.Notes = append(p.Notes, notes...)
		if len(p.Groups) == 0 || j.stonewall {
			p.Groups = append(p.Groups, blockbench.Group{})
		}
		g := &p.Groups[len(p.Groups)-1]
		ws := j.clones(w, thread)
		j.drawStartDelays(ws, thread) // runopts.go
		thread += len(ws)
		*g = append(*g, ws...)
	}
	finishExit(&p, exitAll)
	if err := checkSharedLogs(p, f.Path); err != nil {
		return blockbench.Plan{}, err
	}
	if len(p.Groups) == 0 {
		if f.Path == commandLinePath {
			return blockbench.Plan{}, result.Usagef("--name", "no job to run: every --name given is a global one or one --section skips")
		}
		return blockbench.Plan{}, result.Usagef(f.Path, "no job section; add one such as [randread] with its options")
	}
	return p, nil
}

// isGlobal is fio's test for a [global] section: its name starts with
// "global" (fio's strncmp(name, "global", 6)).
func isGlobal(name string) bool { return strings.HasPrefix(name, "global") }

// clones are the job's numjobs copies as fio makes them: one workload each
// (fio reports every clone on its own unless group_reporting), numbered
// from 0 so each draws its own offsets, on the job's files or, with no
// filename=, on files of its own (JOB.N.F, fio's names, N the clone's
// subjob number), its region moved by offset_increment times that number.
// thread is fio's number of the first (filesopts.go's draws).
func (j *job) clones(w blockbench.Workload, thread int) []blockbench.Workload {
	n := w.NumJobs
	if n <= 1 {
		j.cloneFiles(&w, 0, 1, thread)
		return []blockbench.Workload{w}
	}
	out := make([]blockbench.Workload, n)
	for i := range out {
		c := w
		c.NumJobs, c.CloneIndex, c.Region.Increments = 1, i, subjob(i, n)
		// fio's clones clear new_group (init.c add_job): they report in
		// the group of the job they copy.
		c.NewGroup = w.NewGroup && i == 0
		j.cloneFiles(&c, i, n, thread) // filesopts.go
		out[i] = c
	}
	return out
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
	logHist   Option
	// log is the job's fio logs, its workload's Log.
	log  LogSpec
	lfsr bool
	// inGlobal is true while a [global] section's options are applied.
	inGlobal bool
	// kb is fio's kb_base for the sizes of the options that follow.
	kb KBBase
	// ownFiles is true when the job names no filename=: fio gives each
	// clone files of its own, named by filenameFormat.
	ownFiles       bool
	filenameFormat Option
	// files are filename='s names in order, nrFiles fio's nr_files as the
	// options leave it; fileSize, service and openFiles are filesize,
	// file_service_type and openfiles (filesopts.go).
	files     []string
	nrFiles   int
	fileSize  blockbench.FileSize
	service   blockbench.FileService
	openFiles int
	compress  int
	zero      bool
	scramble  bool
	// zonemode is the job's zonemode= (distribution.go).
	zonemode Option
	// taus64 is random_generator=tausworthe64: fio's 64-bit draws.
	taus64 bool
	// offload is io_submit_mode=offload; experimentalVerify
	// experimental_verify=1; delayLow and delayHigh startdelay's range in
	// microseconds (runopts.go).
	offload            bool
	experimentalVerify bool
	delayLow           uint64
	delayHigh          uint64
	// bufferPattern, verifyPattern and verifyOffsets are buffer_pattern
	// and verify_pattern with its %o places; verifyDump verify_dump
	// (dataopts.go).
	bufferPattern string
	verifyPattern []byte
	verifyOffsets []int
	verifyDump    bool
	// sizes are the job's block-size options (sizeopts.go).
	sizes jobSizes
	// exitAll is exitall= (flowopts.go); trimRate a rate= or rate_iops=
	// with a trim value.
	exitAll  bool
	trimRate Option
}

func newJob(sec Section, o Options) *job {
	bs := blockbench.DefaultBS
	return &job{sec: sec, opts: o, set: map[string]Option{}, kb: KBBase1024, nrFiles: 1, sizes: jobSizes{bs: [3]int64{bs, bs, bs}}, w: blockbench.Workload{
		Name: sec.Name, RW: blockbench.Read, RWMixRead: blockbench.DefaultRWMixRead, BS: blockbench.DefaultBS,
		IODepth: 1, NumJobs: 1, IOEngine: blockbench.EnginePsync, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom},
		Seed: blockbench.DefaultSeed, Invalidate: true, FadviseHint: blockbench.CanAdviseAccess, RandomMap: true, Loops: 1,
		JobOptions: echoSection(sec),
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
	"rand_repeatable": "randrepeat", "fileoffset": "offset", "blockalign": "ba", "blocksize_range": "bsrange",
	"blocksize_unaligned": "bs_unaligned",
}

// refusals say why fio options clyde knows of are not supported.
var refusals = map[string]string{
	"create_only":          "clyde creates, fills and removes its file in one run; run the job itself, which creates the file it needs",
	"unified_rw_reporting": "clyde reports read and write apart, as fio does by default",
	"thinktime_spin":       "clyde sleeps through a thinktime; give thinktime alone",
	"rate_min":             "clyde caps a rate (rate=) but does not fail a job below one",
	"rate_process":         "clyde paces I/O linearly, fio's default rate_process=linear",
	"steadystate":          "use clyde block's steady-state preset instead",
	"ss":                   "use clyde block's steady-state preset instead",
	"exitall":              "clyde runs every job of a group to its end",
	"startdelay":           "clyde starts the jobs of a group together",
	"percentage_random":    "clyde's rw modes are all random or all sequential",
	"bwavgtime":            "clyde samples bandwidth every 500 ms, fio's default",
	"iopsavgtime":          "clyde samples IOPS every 500 ms, fio's default",
	"mem":                  "clyde allocates its own aligned buffers",
}

func init() {
	handlers = map[string]handler{
		"name":      (*job).name,
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
		"iodepth": func(j *job, o Option) error { return j.intIn(o, 1, blockbench.MaxIODepth, &j.w.IODepth) },
		"numjobs": func(j *job, o Option) error { return j.intIn(o, 1, 4096, &j.w.NumJobs) },
		"loops":   func(j *job, o Option) error { return j.intIn(o, 1, math.MaxInt32, &j.w.Loops) },
		"thinktime": func(j *job, o Option) error {
			if err := needValue(o); err != nil {
				return err
			}
			d, ok := parseFioTimeIn(o.Value, time.Microsecond)
			if !ok {
				return result.Usagef(o.Pos, "thinktime=%q is not a time; give microseconds or a number with s, ms or us", o.Value)
			}
			j.w.ThinkTime = d
			return nil
		},
		"thinktime_blocks": func(j *job, o Option) error { return j.intIn(o, 1, math.MaxInt32, &j.w.ThinkTimeBlocks) },
		"rate":             func(j *job, o Option) error { return j.rate(o, &j.w.Rate, true) },
		"rate_iops":        func(j *job, o Option) error { return j.rate(o, &j.w.RateIOPS, false) },
		"kb_base": func(j *job, o Option) error {
			kb, ok := parseKBBase(o.Value)
			if !ok {
				return result.Usagef(o.Pos, "kb_base=%q: give 1024 (fio's default: KB, MB are powers of 1024, KiB, MiB powers of 1000) or 1000 (KB powers of 1000, KiB of 1024)", o.Value)
			}
			j.kb = kb
			return nil
		},
		"unit_base":       (*job).unitBase,
		"filename_format": (*job).setFilenameFormat,
		"ioengine":        (*job).ioengine,
		"direct":          func(j *job, o Option) error { return boolean(o, &j.w.Direct) },
		"buffered":        func(j *job, o Option) error { var b bool; err := boolean(o, &b); j.w.Direct = !b; return err },
		"runtime":         func(j *job, o Option) error { return duration(o, &j.w.Runtime) },
		"ramp_time":       func(j *job, o Option) error { return duration(o, &j.w.RampTime) },
		"time_based":      func(j *job, o Option) error { return boolean(o, &j.w.TimeBased) },
		"stonewall":       func(j *job, o Option) error { return boolean(o, &j.stonewall) },
		"new_group":       func(j *job, o Option) error { return boolean(o, &j.w.NewGroup) },
		// group_reporting sums every job of the reporting group into one
		// entry, as fio's; without it every clone is an entry of its own.
		"group_reporting": func(j *job, o Option) error {
			if err := boolean(o, &j.w.GroupReporting); err != nil {
				return err
			}
			return nil
		},
		"thread": accept, // clyde's workers are threads
		// gtod_reduce=1 turns fio's latency and bandwidth clocks off (its
		// null example sets it); clyde keeps timing every I/O and says so.
		"gtod_reduce": func(j *job, o Option) error {
			var b bool
			if err := boolean(o, &b); err != nil {
				return err
			}
			if b {
				j.notes = append(j.notes, "job "+j.sec.Name+": gtod_reduce=1: fio would read no clock per I/O and report no latency; clyde still times every I/O, so its latencies are there and its IOPS pays for the clock reads fio skips")
			}
			return nil
		},
		"description": func(j *job, o Option) error {
			j.w.Desc = o.Value
			return nil
		},
		// random_generator: clyde draws with its own seeded generators
		// (fio's offsets are never the same as clyde's anyway); lfsr's
		// promise, each block once per pass, is clyde's random map.
		"random_generator": func(j *job, o Option) error {
			switch o.Value {
			case "tausworthe", "tausworthe64":
				j.lfsr, j.taus64 = false, o.Value == "tausworthe64"
			case "lfsr":
				j.lfsr, j.taus64 = true, false
			default:
				return result.Usagef(o.Pos, "random_generator=%q: give tausworthe, tausworthe64 or lfsr", o.Value)
			}
			return nil
		},
		"norandommap": func(j *job, o Option) error {
			var b bool
			if err := boolean(o, &b); err != nil {
				return err
			}
			j.w.RandomMap = !b
			return nil
		},
		"random_distribution": (*job).randomDistribution,
		"zonemode":            (*job).zoneMode,
		"zonesize":            func(j *job, o Option) error { return j.zoneSize(o, &j.w.Zones.Size) },
		"zonerange":           func(j *job, o Option) error { return j.zoneSize(o, &j.w.Zones.Range) },
		"zoneskip":            func(j *job, o Option) error { return j.zoneSize(o, &j.w.Zones.Skip) },
		"per_job_logs": func(j *job, o Option) error {
			var b bool
			err := boolean(o, &b)
			j.log.Shared = !b
			return err
		},
		"invalidate":   func(j *job, o Option) error { return boolean(o, &j.w.Invalidate) },
		"fadvise_hint": func(j *job, o Option) error { return boolean(o, &j.w.FadviseHint) },
		"buffer_compress_percentage": func(j *job, o Option) error {
			return j.percent(o, &j.compress)
		},
		"buffer_compress_chunk": func(j *job, o Option) error {
			var n int64
			if err := j.size(o, &n); err != nil {
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
		"fsync":            func(j *job, o Option) error { return j.intIn(o, 0, math.MaxInt32, &j.w.Fsync) },
		"end_fsync":        func(j *job, o Option) error { return boolean(o, &j.w.EndFsync) },
		"randrepeat":       (*job).randrepeat,
		"randseed": func(j *job, o Option) error {
			v, err := ParseSize(o.Value, j.kb)
			if err != nil || !o.HasValue {
				return result.Usagef(o.Pos, "randseed=%q is not a seed; give a whole number", o.Value)
			}
			j.w.Seed = uint64(v)
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
		"log_avg_msec":     func(j *job, o Option) error { return j.intIn(o, 0, math.MaxInt32, &j.log.AvgMsec) },
		"log_offset":       func(j *job, o Option) error { return boolean(o, &j.log.Offset) },
		"write_hist_log":   func(j *job, o Option) error { j.logHist = o; return nil },
		"log_hist_msec":    func(j *job, o Option) error { return j.intIn(o, 0, math.MaxInt32, &j.log.HistMsec) },
		"log_hist_coarseness": func(j *job, o Option) error {
			return j.intIn(o, 0, 6, &j.log.HistCoarseness)
		},
	}
	addDataOptions()   // dataopts.go
	addBatchOptions()  // batchopts.go
	addRWOptions()     // rwopts.go
	addRegionOptions() // regionopts.go
	addRunOptions()    // runopts.go
	addSizeOptions()   // sizeopts.go
	addFileOptions()   // filesopts.go
	addFlowOptions()   // flowopts.go
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
	if name != "filename_format" {
		for _, k := range fileKeywords {
			if indexFold(o.Value, k) >= 0 {
				return result.Usagef(o.Pos, "option %s=%s: fio expands %s only in filename_format", o.Name, o.Value, k)
			}
		}
	}
	h, ok := handlers[name]
	if !ok && blockbench.EngineOption(name) {
		h = (*job).engineOption
	} else if !ok {
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

// accept is the handler of an option that changes nothing clyde runs
// (thread: clyde's workers are threads); the job's options echo it.
func accept(*job, Option) error { return nil }

func needValue(o Option) error {
	if !o.HasValue || o.Value == "" {
		return result.Usagef(o.Pos, "%s needs a value (%s=...)", o.Name, o.Name)
	}
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

// intIn reads fio's whole number: decimal even with leading zeros
// (iodepth=010 is 10), hexadecimal with 0x, with fio's units (ParseSize).
func (j *job) intIn(o Option, lo, hi int, dst *int) error {
	if err := needValue(o); err != nil {
		return err
	}
	v, err := ParseSize(o.Value, j.kb)
	if err != nil || v < int64(lo) || v > int64(hi) {
		return result.Usagef(o.Pos, "%s=%q: give a whole number from %d to %d", o.Name, o.Value, lo, hi)
	}
	*dst = int(v)
	return nil
}

func (j *job) percent(o Option, dst *int) error { return j.intIn(o, 0, 100, dst) }

// size reads fio's size under the job's kb_base (ParseSize).
func (j *job) size(o Option, dst *int64) error {
	if err := needValue(o); err != nil {
		return err
	}
	v, err := ParseSize(o.Value, j.kb)
	if err != nil {
		return sizeError(o, err)
	}
	*dst = v
	return nil
}

// sizeError says why o's value is not a size clyde reads.
func sizeError(o Option, err error) error {
	switch {
	case errors.Is(err, errPercent), errors.Is(err, errExpression):
		return result.Usagef(o.Pos, "%s=%s: clyde takes a size in bytes or with k, m, g, t, not a percentage or an expression", o.Name, o.Value)
	case errors.Is(err, errFraction):
		return result.Usagef(o.Pos, "%s=%s: fio reads no fraction (it would take 1.5g as 1 byte); give a whole number with a smaller unit (1536m)", o.Name, o.Value)
	case errors.Is(err, errTooLarge):
		return result.Usagef(o.Pos, "%s=%s is too large; give at most 8 EiB", o.Name, o.Value)
	}
	return result.Usagef(o.Pos, "%s=%q is not a size; give bytes, 0x hexadecimal, or a number with k, m, g, t, p (4k, 64m, 1g; KiB, MiB by kb_base)", o.Name, o.Value)
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

func parseFioTime(s string) (time.Duration, bool) { return parseFioTimeIn(s, time.Second) }

// rate reads fio's rate= or rate_iops=: one value for reads and writes
// each, or "READ,WRITE" with either left empty (rate=,500k caps writes
// only). bytes says the values are sizes (rate) rather than counts.
func (j *job) rate(o Option, dst *[2]int64, bytes bool) error {
	if err := needValue(o); err != nil {
		return err
	}
	parts := strings.Split(o.Value, ",")
	if len(parts) > 3 {
		return result.Usagef(o.Pos, "%s=%s: give one rate, or READ,WRITE,TRIM", o.Name, o.Value)
	}
	if len(parts) == 3 {
		// fio's trim rate: nothing to cap in a job that trims nothing;
		// a job that trims is refused in finish (trimRateRefused).
		if strings.TrimSpace(parts[2]) != "" {
			j.trimRate = o
		}
		parts = parts[:2]
	}
	var out [2]int64
	for d, p := range parts {
		if strings.TrimSpace(p) == "" {
			continue
		}
		v, err := ParseSize(p, j.kb)
		if err != nil {
			if bytes {
				return sizeError(o, err)
			}
			return result.Usagef(o.Pos, "%s=%s: give I/Os per second, a whole number", o.Name, o.Value)
		}
		out[d] = v
	}
	if len(parts) == 1 {
		out[1] = out[0] // one value caps each direction, as fio's
	}
	*dst = out
	return nil
}

// parseFioTimeIn reads fio's time with unit for a bare number: seconds for
// runtime=, microseconds for thinktime=.
func parseFioTimeIn(s string, unitless time.Duration) (time.Duration, bool) {
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
	case "":
		unit = unitless
	case "s", "sec":
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

// unescapeColons reads fio's filename list: ':' separates files, '\:' is
// a colon in a name. several is true when the value names more than one.
func unescapeColons(v string) (name string, several bool) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v) && v[i+1] == ':':
			b.WriteByte(':')
			i++
		case v[i] == ':':
			return "", true
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String(), false
}

func (j *job) setDirectory(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	dir, several := unescapeColons(o.Value)
	if several {
		return result.Usagef(o.Pos, "directory=%s names several directories (':'); clyde runs each job in one", o.Value)
	}
	j.directory = dir
	return nil
}

// ioengine checks the engine's name; which engine runs is decided when the
// job is complete (resolveEngine), since libaio where it is not available
// depends on direct=.
func (j *job) ioengine(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	if _, _, err := Engine(o.Pos, o.Value); err != nil {
		return err
	}
	return nil
}

// engineOption keeps an option of one of the built-in engines (fio's
// per-engine options: cpuio's cpuload) for the engine, which checks it;
// resolveEngine holds it to the job's engine.
func (j *job) engineOption(o Option) error {
	if j.w.EngineOptions == nil {
		j.w.EngineOptions = map[string]string{}
	}
	j.w.EngineOptions[o.Name] = o.Value
	return nil
}

// checkEngineOptions refuses an engine's option on a job whose engine is
// another (fio: the option is unknown to it).
func (j *job) checkEngineOptions(w *blockbench.Workload) error {
	for name := range w.EngineOptions {
		if !blockbench.EngineTakes(w.IOEngine, name) {
			return result.Usagef(j.set[name].Pos, "job %s: option %s belongs to another engine than ioengine=%s, which has no such option", j.sec.Name, name, w.IOEngine)
		}
	}
	return nil
}

// resolveEngine sets the engine the job's last ioengine= names. libaio
// runs clyde's libaio engine, buffered too, as fio's does. Where libaio is
// not available, buffered libaio, which is synchronous in the kernel
// (io_submit returns once the page-cache copy is done), runs as what that
// is, psync at depth 1, and says so, rather than a queueing engine that
// would be several times faster than fio.
func (j *job) resolveEngine(w *blockbench.Workload) error {
	o, ok := j.set["ioengine"]
	if !ok {
		return j.checkEngineOptions(w)
	}
	if o.Value == "libaio" && !w.Direct && blockbench.EngineAvailable(blockbench.EngineLibaio) != nil {
		w.IOEngine = blockbench.EnginePsync
		j.notes = append(j.notes, "job "+j.sec.Name+": ioengine libaio with direct=0: clyde has no libaio engine here, and buffered libaio is synchronous in the kernel (io_submit returns when the copy is done), so clyde ran psync, one I/O at a time, as fio's buffered libaio runs")
		return nil
	}
	e, note, err := Engine(o.Pos, o.Value)
	if err != nil {
		return err
	}
	w.IOEngine = e
	if note != "" {
		j.notes = append(j.notes, "job "+j.sec.Name+": "+note)
	}
	return j.checkEngineOptions(w)
}

// name renames the job in the report, as fio's name= in a job section;
// its files keep the section's name, as fio's do. In [global] it does
// nothing: fio gives every job its section's name after the globals.
func (j *job) name(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	if !j.inGlobal {
		j.w.Name = o.Value
	}
	return nil
}

// unitBase is fio's unit_base: whether fio's text report counts bits (8)
// or bytes (1; 0 is fio's automatic choice, bytes). It changes none of
// fio's JSON, which counts bytes; clyde's text report stays in bytes, and
// a note says so for 8.
func (j *job) unitBase(o Option) error {
	switch o.Value {
	case "0", "1":
	case "8":
		j.notes = append(j.notes, "job "+j.sec.Name+": unit_base=8: fio would print its text report in bits; clyde's text report is in bytes (the JSON counts bytes in both)")
	default:
		return result.Usagef(o.Pos, "unit_base=%q: give 0 (automatic), 1 (bytes) or 8 (bits)", o.Value)
	}
	return nil
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
	if err := j.resolveEngine(&w); err != nil {
		return w, nil, err
	}
	if err := j.finishSizes(&w); err != nil { // sizeopts.go
		return w, nil, err
	}
	if err := j.finishBatch(&w); err != nil { // batchopts.go
		return w, nil, err
	}
	if err := j.finishFiles(&w); err != nil { // filesopts.go
		return w, nil, err
	}
	switch {
	case j.zero:
		w.Buffer.Kind = blockbench.BufferZero
	case j.compress > 0:
		// fio turns refill_buffers on with buffer_compress_percentage.
		w.Buffer.Kind, w.Buffer.CompressPct, w.Buffer.Refill = blockbench.BufferCompressible, j.compress, true
	}
	j.finishData(&w) // dataopts.go
	if j.scramble && !w.Buffer.Refill && w.Buffer.Kind != blockbench.BufferZero {
		return w, nil, result.Usagef(j.set["scramble_buffers"].Pos, "scramble_buffers=1: clyde does not scramble buffers; give refill_buffers=1 (new data for every write) or scramble_buffers=0")
	}
	for _, l := range []struct {
		o   Option
		dst *string
	}{{j.logBW, &j.log.BW}, {j.logIOPS, &j.log.IOPS}, {j.logLat, &j.log.Lat}, {j.logHist, &j.log.Hist}} {
		switch {
		case l.o.Name == "":
		case !l.o.HasValue || l.o.Value == "":
			*l.dst = w.Name // fio's default prefix: the job's name
		default:
			*l.dst = l.o.Value
		}
	}
	if j.lfsr {
		w.RandomMap = true // fio's lfsr visits each block once, random map or not
	}
	if err := j.finishZones(&w); err != nil {
		return w, nil, err
	}
	if j.log.Hist == "" {
		j.log.HistMsec, j.log.HistCoarseness = 0, 0 // nothing to see without write_hist_log, as in fio
	}
	if j.log.AvgMsec > 0 && j.log.BW == "" && j.log.IOPS == "" && j.log.Lat == "" {
		j.log.AvgMsec = 0 // fio's log_avg_msec without a log does nothing to see
	}
	w.Log = j.log
	if w.Size == 0 && w.Diskless() && !w.NoIO() && w.Files == nil {
		return w, nil, result.Usagef(j.sec.Pos, "job %s: ioengine=null opens no file, so size= is the whole region; give size=", j.sec.Name)
	}
	// size=N% of a file a job before lays out is blockbench's to check
	// (Target.sizeNew).
	if w.Size == 0 && w.Region.SizePercent == 0 && w.Files == nil && !w.Diskless() && !j.exists(w.Filename) {
		return w, nil, result.Usagef(j.sec.Pos, "job %s: %s does not exist and the job gives no size=; give the size of the file to create", j.sec.Name, w.Filename)
	}
	if j.trimRate.Name != "" && w.RW.Discards() {
		return w, nil, result.Usagef(j.trimRate.Pos, "%s=%s: clyde caps reads and writes, not trims; leave out the trim rate (the third value)", j.trimRate.Name, j.trimRate.Value)
	}
	j.notes = append(j.notes, j.verifyNotes(w)...) // dataopts.go
	j.notes = append(j.notes, j.dumpNote(w)...)
	j.notes = append(j.notes, j.rwNotes(w)...)   // rwopts.go
	j.notes = append(j.notes, j.runNotes(w)...)  // runopts.go
	j.notes = append(j.notes, j.sizeNotes(w)...) // sizeopts.go
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
