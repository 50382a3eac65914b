package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/fiojob"
	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/orion"
	"github.com/clydebench/clyde/result"
)

func init() { commandList = append(commandList, orionCommand()) }

func orionCommand() *cli.Command {
	d := orion.DefaultOptions("")
	return &cli.Command{
		Name:      "orion",
		Usage:     "Oracle ORION's I/O calibration test: small random and large I/O load matrices, ORION's output files",
		UsageText: "clyde orion -run simple|normal|advanced|dss|oltp [-testname T] [-num_disks N] [-size_small KiB[,KiB...]] [-size_large KiB] [-type rand|seq] [-num_streamIO N] [-write PCT] [-duration S] [-matrix basic|detailed|point|col|row|max] [-num_small N] [-num_large N] [-cache_size MB] [-simulate concat|raid0] [-stripe KiB] [-hugenotneeded] [-verbose]",
		Description: "Takes ORION's flags (single dash) with their meanings and defaults. T.lun lists the files or block\n" +
			"devices to test, one per line; they must exist. Writes T_<yyyymmdd_hhmm>_summary.txt, _iops.csv,\n" +
			"_mbps.csv, _lat.csv, _trace.txt and ORION 12c's _hist.txt in the current directory (or -output-dir). Every data point runs\n" +
			"its small and large I/O at once. -write above 0 on an existing file or a device needs --destroy-data;\n" +
			"anything mounted or in use is always refused. -size_small 1,2,4,8 writes one set of files per size.\n\n" +
			"  clyde orion -run normal -testname ssd -num_disks 1\n" +
			"  clyde orion -run advanced -testname ssd -size_small 4 -size_large 1024 -type rand -write 30 \\\n" +
			"      -matrix point -num_small 32 -num_large 4 -duration 60 --destroy-data\n\n" +
			exitCodeList,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "run", Usage: "simple: small then large random I/O alone; normal: every combination; advanced: as the other flags say; dss: large random I/O; oltp: small random I/O"},
			&cli.StringFlag{Name: "testname", Value: d.TestName, Usage: "reads `T`.lun and names the output files T_<date>_*"},
			&cli.IntFlag{Name: "num_disks", Usage: "physical disks behind the LUNs: loads run 1..5xN small and 1..2xN large", DefaultText: "the number of LUNs"},
			&cli.StringFlag{Name: "size_small", Value: strconv.Itoa(orion.DefaultSizeSmall), Usage: "small I/O size in KiB, or a list (1,2,4,8) for one matrix per size"},
			&cli.IntFlag{Name: "size_large", Value: d.SizeLarge, Usage: "large I/O size in KiB"},
			&cli.StringFlag{Name: "type", Value: d.Type, Usage: "large I/O: rand (random I/Os) or seq (sequential streams)"},
			&cli.IntFlag{Name: "num_streamIO", Value: d.NumStreamIO, Usage: "I/Os in flight per sequential stream (-type seq)"},
			&cli.IntFlag{Name: "write", Usage: "percentage of writes, 0..100 (writing needs --destroy-data)"},
			&cli.IntFlag{Name: "duration", Value: int(d.Duration / time.Second), Usage: "seconds of each data point"},
			&cli.StringFlag{Name: "matrix", Usage: "with -run advanced: basic, detailed, point, col, row or max (default basic)"},
			&cli.IntFlag{Name: "num_small", Usage: "small I/Os in flight (-matrix col, point, max)"},
			&cli.IntFlag{Name: "num_large", Usage: "large I/Os in flight, or streams with -type seq (-matrix row, point, max)"},
			&cli.IntFlag{Name: "cache_size", Usage: "array cache in MB: before each point with sequential streams, read that much at random, unmeasured"},
			&cli.StringFlag{Name: "simulate", Value: d.Simulate, Usage: "several LUNs as one volume: concat or raid0 (1 MiB stripes)"},
			&cli.IntFlag{Name: "stripe", Usage: "-simulate raid0's stripe depth in KiB", DefaultText: "1024, or -size_large when larger"},
			&cli.BoolFlag{Name: "hugenotneeded", Usage: "run without large pages configured (clyde never needs them: read and noted)"},
			&cli.BoolFlag{Name: "verbose", Usage: "print each data point as it finishes"},
			&cli.StringFlag{Name: "output-dir", Value: d.OutputDir, Usage: "where ORION's files go"},
			&cli.BoolFlag{Name: "destroy-data", Usage: "allow -write above 0 on existing files and devices, destroying what they hold"},
			&cli.BoolFlag{Name: "allow_cached", Aliases: []string{"allow-cached"}, Usage: "run -direct I/O on a LUN a page cache serves anyway (a loop device without direct I/O over a file the host caches) as it is; the result says so either way"},
			&cli.BoolFlag{Name: "allow_sparse", Aliases: []string{"allow-sparse"}, Usage: "read an existing file with holes or never-written (fallocated) extents as it is; reads of those never reach the device, and the result says how much was so"},
			&cli.BoolFlag{Name: "direct", Value: true, Usage: "open the LUNs with O_DIRECT, as ORION does (--direct=false for tmpfs)"},
			&cli.StringFlag{Name: "ioengine", Value: string(d.IOEngine), Usage: "psync|io_uring|libaio|auto; without a queueing engine a load of N runs as N workers"},
			&cli.Uint64Flag{Name: "seed", Value: d.Seed, Usage: "random seed for offsets, directions and data"},
			&cli.StringFlag{Name: "json", Usage: "write the whole result, with latency percentiles per point, to `FILE` (- for stdout)"},
		}, keepFlags()...),
		Action: noArgs(orionAction),
	}
}

// orionOptions turns the flags into orion.Options; every malformed value is
// a usage error naming its flag.
func orionOptions(c *cli.Context) (orion.Options, error) {
	// ORION reads its word values in any case (-simulate RAID0).
	o := orion.DefaultOptions(strings.ToLower(c.String("run")))
	o.Shape = fiojob.Shape // clyde's block JSON is fio's
	var err error
	o.TestName = c.String("testname")
	o.NumDisks = c.Int("num_disks")
	if o.SizeSmall, err = orion.ParseSizeList("-size_small", c.String("size_small")); err != nil {
		return o, err
	}
	o.SizeLarge, o.Type, o.NumStreamIO, o.Write = c.Int("size_large"), strings.ToLower(c.String("type")), c.Int("num_streamIO"), c.Int("write")
	if s := c.Int("duration"); s < 1 || int64(s) > int64(blockbench.MaxRuntime/time.Second) {
		return o, result.Usagef("-duration", "%d is outside 1..%d; give the seconds of each data point", s, int64(blockbench.MaxRuntime/time.Second))
	}
	o.Duration = time.Duration(c.Int("duration")) * time.Second
	o.Matrix = strings.ToLower(c.String("matrix"))
	for _, f := range []struct {
		name string
		dst  *int
	}{{"num_small", &o.NumSmall}, {"num_large", &o.NumLarge}, {"cache_size", &o.CacheSize}} {
		if c.IsSet(f.name) {
			if *f.dst = c.Int(f.name); *f.dst < 0 {
				return o, result.Usagef("-"+f.name, "%d is negative", *f.dst)
			}
		}
	}
	o.Simulate, o.Verbose = strings.ToLower(c.String("simulate")), c.Bool("verbose")
	o.HugeNotNeeded = c.Bool("hugenotneeded")
	if c.IsSet("stripe") {
		if o.Stripe = c.Int("stripe"); o.Stripe < 1 {
			return o, result.Usagef("-stripe", "%d is not a stripe depth in KiB; give one such as 1024", o.Stripe)
		}
	}
	o.OutputDir, o.DestroyData, o.Direct, o.Seed = c.String("output-dir"), c.Bool("destroy-data"), c.Bool("direct"), c.Uint64("seed")
	o.AllowSparse = c.Bool("allow_sparse")
	o.AllowCached = c.Bool("allow_cached")
	if o.OutputDir == "" {
		return o, result.Usagef("-output-dir", "empty; give a directory, such as .")
	}
	if o.IOEngine, err = blockbench.ParseEngine(c.String("ioengine")); err != nil {
		return o, err
	}
	o.Command = orionCommandLine(typedArgs(c), c.Command.Name)
	o.Out, o.Warn, o.CommandLine = c.App.Writer, c.App.ErrWriter, os.Args
	if isTerminal(c.App.ErrWriter) { // a person watching; cron and pipes get nothing
		o.Live = c.App.ErrWriter
	}
	return o, o.Validate()
}

// orionCommandLine is the command as typed after the command's name, as
// ORION's summary echoes its own arguments under "Commandline:".
func orionCommandLine(args []string, command string) string {
	for i := 1; i < len(args); i++ {
		if args[i] == command {
			return strings.Join(args[i+1:], " ")
		}
	}
	return strings.Join(args[min(1, len(args)):], " ")
}

func orionAction(c *cli.Context) error {
	opts, err := orionOptions(c)
	if err != nil {
		return err
	}
	release, err := boundRun(c, 0, "")
	if err != nil {
		return err
	}
	defer release()
	kp, err := beginKeep(c) // checks --json and the history before anything runs
	if err != nil {
		return err
	}
	defer kp.release()
	test, err := orion.PrepareContext(c.Context, opts)
	if err != nil {
		return err
	}
	defer test.Close()
	fmt.Fprint(c.App.Writer, test.Banner())
	res, runErr := test.Run(c.Context)
	if res == nil {
		return runErr
	}
	run := compare.FromBlock(res)
	if !measured(run, runErr) {
		// Failed while preparing: ORION's files are not made, and
		// --json keeps what it held (keeper.writeResult's rule).
		return runErr
	}
	if err := test.WriteFiles(c.Context, c.App.Writer, res); err != nil {
		return joinLine(runErr, err)
	}
	orionClosing(c.App.Writer, opts.OutputDir, res)
	if err := kp.writeResult(c.App.Writer, run, runErr, func(w io.Writer) error { return result.EncodeJSON(w, res) }); err != nil {
		return joinLine(runErr, err)
	}
	return kp.after(c.Context, run, runErr)
}

// orionClosing prints the files written and each set's closing lines, as
// its summary ends.
func orionClosing(w io.Writer, dir string, res *result.Block) {
	for i := range res.Orion.Sets {
		s := &res.Orion.Sets[i]
		var names []string
		for _, suf := range orion.FileSuffixes {
			names = append(names, filepath.Join(dir, s.Prefix+suf))
		}
		fmt.Fprintf(w, "wrote %s\n", strings.Join(names, " "))
		_ = blockreport.OrionPeaks(w, s)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
}
