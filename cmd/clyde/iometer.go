package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/fiojob"
	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/iometer"
	"github.com/clydebench/clyde/result"
)

func init() { commandList = append(commandList, iometerCommand()) }

func iometerCommand() *cli.Command {
	return &cli.Command{
		Name:      "iometer",
		Usage:     "run an Iometer configuration file (.icf) on a file or block device",
		ArgsUsage: "FILE.icf",
		Description: "Runs the file's access specifications in order, each on every disk worker that has it, for the\n" +
			"file's run time after its ramp-up, at each worker's outstanding I/Os (or through the file's cycling of\n" +
			"them, or of workers), on the disk region its maximum size and starting sector say. Every worker runs on\n" +
			"--filename in place of the file's (Windows) targets, uncached as Iometer's Linux Dynamo runs (--buffered:\n" +
			"through the page cache, said in every output). What the file holds and clyde does not use is listed as\n" +
			"ignored in the result and on one stderr line. The same safety rules as clyde block: writing to a device or\n" +
			"an existing file needs --destroy-data; anything mounted or in use is refused.\n\n" +
			"  clyde iometer docs/iometer/4k-random-write-mixes.icf --filename /dev/sdX --destroy-data\n" +
			"  clyde iometer mixes.icf --filename /mnt/ssd/iobw.tst --size 8g --runtime 60 --output-format csv",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "filename", Usage: "file or block device every worker runs on", Required: true},
			&cli.StringFlag{Name: "size", Usage: "region of a worker whose disk maximum size is 0: the rest of an existing target, or the size of a new file (default 1g)"},
			&cli.StringFlag{Name: "runtime", Usage: "run time of each test, replacing the file's"},
			&cli.StringFlag{Name: "ramp_time", Usage: "ramp up time of each test, replacing the file's"},
			&cli.StringFlag{Name: "ioengine", Value: string(blockbench.EngineAuto), Usage: "psync|io_uring|libaio|windowsaio|auto (auto: io_uring on Linux, windowsaio on Windows, for more than 1 outstanding I/O)"},
			&cli.BoolFlag{Name: "buffered", Usage: "run through the page cache instead of uncached"},
			&cli.Uint64Flag{Name: "seed", Value: blockbench.DefaultSeed, Usage: "random seed of the workers without a fixed seed"},
			&cli.BoolFlag{Name: "destroy-data", Usage: "allow writing to an unused block device or an existing file, destroying what it holds"},
			&cli.BoolFlag{Name: "allow-cached", Usage: "uncached I/O on a target a page cache serves anyway (tmpfs, a loop device without direct I/O over a file the host caches) is measured as it is, with the result saying so, instead of refused (cdm, iometer)"},
			&cli.BoolFlag{Name: "allow-sparse", Usage: "read an existing file with holes or never-written (fallocated) extents as it is; reads of those never reach the device, and the result says how much was so"},
			&cli.StringFlag{Name: "output-format", Value: "text", Usage: "text|json|json+|csv (csv: Iometer's results columns), or a comma list such as text,json"},
			&cli.StringFlag{Name: "output", Usage: "write the report to `FILE` instead of stdout"},
		}, keepFlags()...),
		Action: iometerAction,
	}
}

// rewriteIometerArgs moves the configuration file of `clyde iometer
// FILE.icf --filename T` behind the flags: urfave/cli stops reading flags at
// the first argument.
func rewriteIometerArgs(args []string) []string {
	if len(args) < 4 || args[1] != "iometer" || strings.HasPrefix(args[2], "-") {
		return args
	}
	out := append(append([]string(nil), args[:2]...), args[3:]...)
	return append(out, args[2])
}

// iometerOptions turns the flags into the file's run options.
func iometerOptions(c *cli.Context) (iometer.Options, error) {
	o := iometer.Options{Filename: c.String("filename"), Direct: !c.Bool("buffered"), DestroyData: c.Bool("destroy-data"), AllowSparse: c.Bool("allow-sparse"), AllowCached: c.Bool("allow-cached"),
		Seed: c.Uint64("seed"), Warn: c.App.ErrWriter, CommandLine: os.Args}
	var err error
	if s := c.String("size"); s != "" {
		if o.Size, err = blockbench.ParseSize("--size", s); err != nil {
			return o, err
		}
		o.SizeGiven = true
	}
	if s := c.String("runtime"); s != "" {
		if o.Runtime, err = blockbench.ParseDuration("--runtime", s); err != nil {
			return o, err
		}
		if o.Runtime == 0 {
			return o, result.Usagef("--runtime", "0 would run until stopped; give a run time")
		}
	}
	if s := c.String("ramp_time"); s != "" {
		d, err := blockbench.ParseDuration("--ramp_time", s)
		if err != nil {
			return o, err
		}
		o.RampTime = &d
	}
	if o.IOEngine, err = blockbench.ParseEngine(c.String("ioengine")); err != nil {
		return o, err
	}
	if isTerminal(c.App.ErrWriter) {
		o.Progress = c.App.ErrWriter
	}
	return o, nil
}

func iometerAction(c *cli.Context) error {
	if c.NArg() != 1 {
		return result.Usagef("FILE.icf", "give one Iometer configuration file, then --filename TARGET")
	}
	formats, err := blockreport.ParseFormats(c.String("output-format"))
	if err != nil {
		return err
	}
	o, err := iometerOptions(c)
	if err != nil {
		return err
	}
	cfg, err := iometer.Load(c.Context, c.Args().First())
	if err != nil {
		return err
	}
	setup, err := cfg.Setup(o)
	if err != nil {
		return err
	}
	setup.Shape = fiojob.Shape // clyde's block JSON is fio's
	release, err := boundRun(c, 0, "")
	if err != nil {
		return err
	}
	defer release()
	keep, err := beginKeep(c) // checks --output too, before anything is created
	if err != nil {
		return err
	}
	defer keep.release()
	if n := len(setup.Ignored); n > 0 {
		fmt.Fprintf(c.App.ErrWriter, "clyde: note: %s: %d setting(s) or section(s) clyde does not use were ignored (listed in the result): %s\n",
			cfg.Source, n, strings.Join(setup.Ignored, "; "))
	}
	res, runErr := iometer.Run(c.Context, setup)
	if res == nil {
		return runErr
	}
	report := func(w io.Writer) error { return blockreport.WriteAll(w, formats, res) }
	run := compare.FromBlock(res)
	switch {
	case keep.result == nil && c.Bool("silent"): // cron: nothing unless something is wrong
	case keep.result == nil:
		if err := report(c.App.Writer); err != nil {
			return joinLine(runErr, fmt.Errorf("write report: %w", err))
		}
	default:
		if err := keep.writeResult(c.App.Writer, run, runErr, report); err != nil {
			return joinLine(runErr, err)
		}
	}
	return keep.after(c.Context, run, runErr)
}
