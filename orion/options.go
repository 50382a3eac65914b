// Package orion is Oracle ORION's I/O calibration test on clyde's block
// engine: ORION's command line (-run, -testname reading T.lun, -num_disks,
// -size_small, -size_large, -type, -num_streamIO, -write, -duration,
// -matrix, -num_small, -num_large, -cache_size, -simulate, -stripe,
// -hugenotneeded, -verbose), its
// load matrices, its data points (small random I/O and large random I/O or
// sequential streams at once, one blockbench group each) and its output
// files (T_<yyyymmdd_hhmm>_summary.txt, _iops.csv, _mbps.csv, _lat.csv,
// _trace.txt, and 12c's _hist.txt). clyde adds latency percentiles per point to the JSON result,
// a list of small I/O sizes (one matrix per size), and its safety rules:
// writing needs DestroyData, and no LUN is ever created.
package orion

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// The run levels of -run.
const (
	RunSimple   = "simple"
	RunNormal   = "normal"
	RunAdvanced = "advanced"
	RunDSS      = "dss"
	RunOLTP     = "oltp"
)

// Runs lists the -run values.
var Runs = []string{RunSimple, RunNormal, RunAdvanced, RunDSS, RunOLTP}

// ORION's defaults (orion -help).
const (
	DefaultTestName    = "orion"
	DefaultSizeSmall   = 8    // KiB
	DefaultSizeLarge   = 1024 // KiB
	DefaultNumStreamIO = 4
	DefaultDuration    = 60 * time.Second
	// MaxNumDisks bounds -num_disks: the small loads go up to 5 I/Os in
	// flight per disk, each a worker with its buffers, histograms and
	// thread, and the matrix grows with the square of the levels; 7000
	// disks exhausted 300 MiB while planning, 10^9 any machine.
	MaxNumDisks = 1000
	// MaxOutstanding bounds -num_small, -num_large and -num_streamIO:
	// 5 x MaxNumDisks I/Os in flight.
	MaxOutstanding = 5 * MaxNumDisks
	// StripeBytes is -simulate raid0's stripe depth, ASM's 1 MB
	// allocation unit, as ORION simulates it.
	StripeBytes = 1 << 20
)

// NotGiven marks -num_small, -num_large and -cache_size left out.
const NotGiven = -1

// Options is one clyde orion invocation. Field names follow ORION's flags;
// Validate holds every rule between them.
type Options struct {
	Run string
	// TestName names T.lun (read from the current directory, or the path
	// given) and prefixes the output files.
	TestName string
	// LUNs, when set, are the targets themselves and no .lun file is read
	// (clyde block --profile orion); Size is then the region of each, 0 the
	// whole of an existing one, and a LUN that does not exist is created
	// as clyde block creates its files.
	LUNs []string
	Size int64
	// NumDisks sets the load levels; 0 is the number of LUNs.
	NumDisks int
	// SizeSmall is the small I/O size in KiB, one matrix per entry.
	SizeSmall   []int
	SizeLarge   int
	Type        string // rand or seq
	NumStreamIO int
	// Write is the percentage of writes, in small and large I/O alike.
	Write    int
	Duration time.Duration
	// Matrix is -matrix; "" is what the run level implies.
	Matrix             string
	NumSmall, NumLarge int // NotGiven when left out
	CacheSize          int // MiB; NotGiven when left out
	Simulate           string
	// Stripe is -stripe, -simulate raid0's stripe depth in KiB; 0 when
	// not given (StripeBytes, or the large I/O size when larger).
	Stripe int
	// HugeNotNeeded is -hugenotneeded: ORION then runs without large
	// pages configured. clyde allocates none, so it changes nothing and is
	// noted in the result.
	HugeNotNeeded bool
	Verbose       bool
	// OutputDir is where the output files go; "" writes none (clyde block
	// --profile orion prints its table instead).
	OutputDir   string
	DestroyData bool
	// AllowSparse reads an existing file with holes or never-written
	// extents as it is (Plan.AllowSparse).
	AllowSparse bool
	// AllowCached measures a target whose uncached I/O a page cache
	// serves anyway as it is, noted (Plan.AllowCached).
	AllowCached bool
	// Direct opens the LUNs with O_DIRECT, as ORION does.
	Direct   bool
	IOEngine blockbench.Engine
	Seed     uint64
	// Command is ORION's part of the command line, echoed in the summary.
	Command string
	// Out gets ORION's progress lines (-verbose: one per data point); Warn
	// the lines the user must see. Either may be nil.
	Out, Warn io.Writer
	// Live, when set (a terminal) and -verbose is not, gets one line
	// rewritten after each data point: how many are done, the last one,
	// and about how long the rest take.
	Live io.Writer
	// CommandLine is recorded in the provenance; nil records os.Args.
	CommandLine []string
	// Now is the clock for the date in the file names; nil is time.Now.
	Now func() time.Time
	// Shape is blockbench.Plan.Shape (fiojob.Shape: fio's fields of the
	// result's jobs).
	Shape blockbench.Shaper `json:"-"`
}

// DefaultOptions is ORION's defaults for a run level.
func DefaultOptions(run string) Options {
	return Options{
		Run: run, TestName: DefaultTestName, SizeSmall: []int{DefaultSizeSmall}, SizeLarge: DefaultSizeLarge,
		Type: "rand", NumStreamIO: DefaultNumStreamIO, Duration: DefaultDuration,
		NumSmall: NotGiven, NumLarge: NotGiven, CacheSize: NotGiven, Simulate: "concat",
		OutputDir: ".", Direct: true, IOEngine: blockbench.EngineAuto, Seed: blockbench.DefaultSeed,
	}
}

// ParseSizeList reads -size_small: KiB, one number or a comma list.
func ParseSizeList(flag, s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > 1<<20 {
			return nil, result.Usagef(flag, "%q is not a size in KiB between 1 and 1048576; give one such as 8, or a list such as 1,2,4,8", part)
		}
		if slices.Contains(out, n) {
			return nil, result.Usagef(flag, "%d KiB is listed twice", n)
		}
		out = append(out, n)
	}
	return out, nil
}

// mapped is what a run level stands for: ORION's own mapping of simple,
// normal, oltp and dss to an advanced test (11.2 Performance Tuning Guide).
type mapped struct {
	matrix             string
	numSmall, numLarge int
	smallIO, largeIO   bool
}

// Validate checks every rule that needs no look at the LUNs; the first
// broken one comes back as a usage error naming the flag.
func (o *Options) Validate() error {
	_, err := o.mapping()
	return err
}

func (o *Options) mapping() (mapped, error) {
	var m mapped
	if !slices.Contains(Runs, o.Run) {
		if o.Run == "" {
			return m, result.Usagef("-run", "missing; ORION's one mandatory parameter: simple, normal, advanced, dss or oltp")
		}
		return m, result.Usagef("-run", "unknown run level %q; accepted: simple, normal, advanced, dss, oltp", o.Run)
	}
	switch {
	case strings.TrimSpace(o.TestName) == "" && len(o.LUNs) == 0:
		return m, result.Usagef("-testname", "empty; give the name T of T.lun")
	case o.NumDisks < 0:
		return m, result.Usagef("-num_disks", "%d is negative; give the number of physical disks (default: the number of LUNs)", o.NumDisks)
	case o.NumDisks > MaxNumDisks:
		return m, result.Usagef("-num_disks", "%d is above %d; the load levels (up to 5 outstanding I/Os a disk) would not fit in memory and threads", o.NumDisks, MaxNumDisks)
	case o.NumStreamIO > MaxOutstanding:
		return m, result.Usagef("-num_streamIO", "%d is above %d I/Os in flight per stream", o.NumStreamIO, MaxOutstanding)
	case o.NumSmall > MaxOutstanding:
		return m, result.Usagef("-num_small", "%d is above %d outstanding small I/Os", o.NumSmall, MaxOutstanding)
	case o.NumLarge > MaxOutstanding:
		return m, result.Usagef("-num_large", "%d is above %d outstanding large I/Os", o.NumLarge, MaxOutstanding)
	case o.Duration > blockbench.MaxRuntime:
		return m, result.Usagef("-duration", "%v is longer than the %v a data point may last", o.Duration, blockbench.MaxRuntime)
	case len(o.SizeSmall) == 0:
		return m, result.Usagef("-size_small", "missing; give the small I/O size in KiB, such as 8")
	case o.SizeLarge < 1 || o.SizeLarge > 1<<20:
		return m, result.Usagef("-size_large", "%d is not a size in KiB between 1 and 1048576, such as 1024", o.SizeLarge)
	case o.Type != "rand" && o.Type != "seq":
		return m, result.Usagef("-type", "unknown type %q; accepted: rand, seq", o.Type)
	case o.NumStreamIO < 1:
		return m, result.Usagef("-num_streamIO", "%d is below 1; give the I/Os in flight per sequential stream (default 4)", o.NumStreamIO)
	case o.Write < 0 || o.Write > 100:
		return m, result.Usagef("-write", "%d is outside 0..100; give the percentage of writes", o.Write)
	case o.Duration < blockbench.MinRuntime:
		return m, result.Usagef("-duration", "%v is too short; give the seconds of each data point, 1 or more", o.Duration)
	case o.CacheSize < NotGiven:
		return m, result.Usagef("-cache_size", "%d is negative; give the array cache in MB, or 0 for no warm-up", o.CacheSize)
	case o.Simulate != "concat" && o.Simulate != "raid0":
		return m, result.Usagef("-simulate", "unknown array type %q; accepted: concat, raid0", o.Simulate)
	case o.Stripe < 0 || o.Stripe > 1<<20:
		return m, result.Usagef("-stripe", "%d is not a stripe depth in KiB between 1 and 1048576, such as 1024", o.Stripe)
	case o.NumSmall < NotGiven:
		return m, result.Usagef("-num_small", "%d is negative", o.NumSmall)
	case o.NumLarge < NotGiven:
		return m, result.Usagef("-num_large", "%d is negative", o.NumLarge)
	}
	for _, s := range o.SizeSmall {
		if s < 1 || s > 1<<20 {
			return m, result.Usagef("-size_small", "%d is not a size in KiB between 1 and 1048576", s)
		}
	}
	if o.Matrix != "" && !slices.Contains(Matrices, o.Matrix) {
		return m, result.Usagef("-matrix", "unknown matrix %q; accepted: basic, detailed, point, col, row, max", o.Matrix)
	}
	if o.Run != RunAdvanced {
		for _, c := range []struct {
			flag  string
			given bool
		}{{"-matrix", o.Matrix != ""}, {"-num_small", o.NumSmall != NotGiven}, {"-num_large", o.NumLarge != NotGiven}} {
			if c.given {
				return m, result.Usagef(c.flag, "only goes with -run advanced; -run %s sets the matrix itself (simple: basic, normal: detailed, oltp: row, dss: col)", o.Run)
			}
		}
	}
	m = mapped{matrix: o.Matrix, numSmall: max(o.NumSmall, 0), numLarge: max(o.NumLarge, 0), smallIO: true, largeIO: true}
	switch o.Run {
	case RunSimple:
		m.matrix = MatrixBasic
	case RunNormal:
		m.matrix = MatrixDetailed
	case RunOLTP:
		m.matrix, m.numLarge, m.largeIO = MatrixRow, 0, false
	case RunDSS:
		m.matrix, m.numSmall, m.smallIO = MatrixCol, 0, false
	default:
		if m.matrix == "" {
			m.matrix = MatrixBasic
		}
	}
	// ORION's -help: num_small goes with col, point and max; num_large
	// with row, point and max.
	if o.Run == RunAdvanced {
		if o.NumSmall != NotGiven && !slices.Contains([]string{MatrixCol, MatrixPoint, MatrixMax}, m.matrix) {
			return m, result.Usagef("-num_small", "only goes with -matrix col, point or max (this is -matrix %s)", m.matrix)
		}
		if o.NumLarge != NotGiven && !slices.Contains([]string{MatrixRow, MatrixPoint, MatrixMax}, m.matrix) {
			return m, result.Usagef("-num_large", "only goes with -matrix row, point or max (this is -matrix %s)", m.matrix)
		}
		switch m.matrix {
		case MatrixPoint, MatrixMax:
			if m.numSmall == 0 && m.numLarge == 0 {
				return m, result.Usagef("-num_small", "-matrix %s needs -num_small or -num_large above 0", m.matrix)
			}
		case MatrixCol:
			m.smallIO = m.numSmall > 0
		case MatrixRow:
			m.largeIO = m.numLarge > 0
		}
		if m.matrix == MatrixPoint || m.matrix == MatrixMax {
			m.smallIO, m.largeIO = m.numSmall > 0, m.numLarge > 0
		}
	}
	return m, nil
}

// Notes says what the flags that change nothing in clyde were read as:
// -hugenotneeded always, -stripe without -simulate raid0. The result and
// its text carry them (Run).
func (o *Options) Notes() []string {
	var notes []string
	if o.Stripe > 0 && o.Simulate != "raid0" {
		notes = append(notes, fmt.Sprintf("-stripe %d was read and changes nothing: only -simulate raid0 stripes the LUNs (this is -simulate %s)", o.Stripe, o.Simulate))
	}
	if o.HugeNotNeeded {
		notes = append(notes, "-hugenotneeded was read and changes nothing: clyde allocates no large pages, so it never needs them configured")
	}
	return notes
}
