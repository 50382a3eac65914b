package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/result"
)

func init() { commandList = append(commandList, blockCommand()) }

func blockCommand() *cli.Command {
	d := blockbench.NewJob("")
	return &cli.Command{
		Name:  "block",
		Usage: "raw block engine: fio-style jobs and CrystalDiskMark, Iometer, ORION presets on a file or block device",
		Description: "A path that does not exist yet is created (with a .NAME.clyde-run marker beside it), filled,\n" +
			"and removed at the end, if it is still the file clyde created; that needs no flag.\n\n" +
			"Needs --destroy-data: any job or preset that writes (--rw write, randwrite, rw, randrw; cdm,\n" +
			"iometer-mix; bs-sweep with a writing --rw) on a block device or on an existing file. Reads need nothing.\n\n" +
			"Always refused, even with --destroy-data:\n" +
			"  a device that is mounted, or whose partition or holder (dm, LVM, md) is, that is swap, held open\n" +
			"  by another process, or claimed exclusively (O_EXCL busy);\n" +
			"  a loop device whose image is also behind another loop device that is mounted or in use;\n" +
			"  a file that is the image behind a loop device (so of a mounted filesystem too), a swap file,\n" +
			"  or open for writing (or mapped shared) by another process;\n" +
			"  a file left by a killed run (its marker is there): `clyde block --cleanup --filename F` removes\n" +
			"  it, when the marker names this host and its process is gone (--force: a marker from another host).\n\n" +
			"--profile cdm is CrystalDiskMark: each test of the set (--cdm-preset) read, then written, then mixed\n" +
			"(--mix), an uncounted warm-up pass then --passes passes of --runtime (its Measure time), --interval idle\n" +
			"before each test, keeping the best pass (--passes-kept average: KDiskMark's). It makes its test file in a\n" +
			"private directory in --filename (a directory, or the directory of a new path), unbuffered; a filesystem that\n" +
			"would serve it from memory anyway (tmpfs, FUSE) is refused unless --buffered. The Q8 and Q32 tests need a\n" +
			"queueing engine (io_uring, Linux 5.1+; --ioengine auto picks it): with psync, or where none exists, they are\n" +
			"refused (--cdm-preset real runs Q1 only). `clyde block --cleanup --filename DIR` removes the private\n" +
			"directories of killed runs in DIR.\n\n" +
			"  clyde block --filename /mnt/ssd --profile cdm\n" +
			"  clyde block --filename /mnt/ssd --profile cdm --test-data both --fill 50%\n" +
			"  clyde block --filename /dev/sdX --profile iometer-mix --direct --runtime 30 --destroy-data",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "filename", Usage: "file or block device (symlinks and /dev/disk/by-* are resolved)", Required: true},
			&cli.StringFlag{Name: "name", Usage: "job name prefix (default: the rw mode)"},
			&cli.StringFlag{Name: "size", Usage: "region per job: 4k, 64m, 1g (default: the whole existing target, 1g for a new file)"},
			&cli.StringFlag{Name: "offset", Value: "0", Usage: "start of the region"},
			&cli.StringFlag{Name: "rw", Value: string(d.RW), Usage: "read|write|randread|randwrite|rw (readwrite)|randrw"},
			&cli.IntFlag{Name: "rwmixread", Value: d.RWMixRead, Usage: "percent reads in rw/randrw; each I/O picks its direction on its own"},
			&cli.StringFlag{Name: "bs", Value: "4k", Usage: "block size, or a comma list that runs one job per size"},
			&cli.IntFlag{Name: "iodepth", Value: d.IODepth, Usage: "I/Os in flight per worker (io_uring)"},
			&cli.IntFlag{Name: "numjobs", Value: d.NumJobs, Usage: "workers per job, summed in the report"},
			&cli.StringFlag{Name: "ioengine", Value: string(d.IOEngine), Usage: "psync|io_uring|auto (auto: io_uring when iodepth > 1; the presets' default)"},
			&cli.BoolFlag{Name: "direct", Usage: "O_DIRECT: bypass the page cache (bs and offset must be multiples of 512)"},
			&cli.StringFlag{Name: "runtime", Value: "5", Usage: "measured time per job (cdm: per pass, its Measure time): seconds or 500ms, 2m (0: no limit)"},
			&cli.StringFlag{Name: "ramp_time", Value: "0", Usage: "unmeasured time before each job"},
			&cli.BoolFlag{Name: "time_based", Value: true, Usage: "run for --runtime; false also ends a job after --size bytes per worker"},
			&cli.StringFlag{Name: "buffer", Value: "random", Usage: "write data: random|zero|compressible:PCT"},
			&cli.IntFlag{Name: "fsync", Usage: "fsync after every N writes of a worker (0: never)"},
			&cli.Uint64Flag{Name: "seed", Value: d.Seed, Usage: "random seed for offsets, directions and data"},
			&cli.StringFlag{Name: "profile", Usage: "preset: cdm|iometer-mix|orion|bs-sweep"},
			&cli.IntFlag{Name: "passes", Value: d.Passes, Usage: "cdm: measured passes per test (1..9) after one uncounted warm-up"},
			&cli.StringFlag{Name: "cdm-preset", Value: string(d.CDM.Preset), Usage: "cdm: test set: default|nvme|peak|peak-nvme|real|demo (CrystalDiskMark 8/9), cdm7|cdm6|cdm5"},
			&cli.StringFlag{Name: "test-data", Value: string(d.CDM.Data), Usage: "cdm: random|zero (All 0x00, 0Fill)|both (each test with each, side by side)"},
			&cli.BoolFlag{Name: "mix", Usage: "cdm: add CrystalDiskMark's Mix rows (--mix-read percent reads)"},
			&cli.IntFlag{Name: "mix-read", Value: d.CDM.MixRead, Usage: "cdm: read share of the Mix rows, 10..90"},
			&cli.StringFlag{Name: "interval", Value: "5", Usage: "cdm: idle time before each test (CrystalDiskMark's Interval)"},
			&cli.StringFlag{Name: "passes-kept", Value: string(d.CDM.Aggregate), Usage: "cdm: best (CrystalDiskMark: highest MB/s, lowest latency) or average (KDiskMark)"},
			&cli.BoolFlag{Name: "buffered", Usage: "cdm: run through the page cache (CrystalDiskMark never does; every output says so)"},
			&cli.StringFlag{Name: "fill", Usage: "cdm: fill the filesystem to `PCT%|SIZE` in use with incompressible data first (removed after)"},
			&cli.BoolFlag{Name: "destroy-data", Usage: "allow writing to an unused block device or an existing file, destroying what it holds"},
			&cli.BoolFlag{Name: "cleanup", Usage: "remove the file a killed run left at --filename, and its marker, then exit"},
			&cli.BoolFlag{Name: "force", Usage: "with --cleanup: also remove a file whose marker names another host (shared storage)"},
			&cli.StringFlag{Name: "output-format", Value: "text", Usage: "text|json|csv"},
			&cli.StringFlag{Name: "output", Usage: "write the report to `FILE` instead of stdout (a file is replaced atomically once the run ends, a device or FIFO written in place)"},
		}, keepFlags()...),
		Action: blockAction,
	}
}

// blockJob turns the flags into a Job; every parse error is a usage error.
func blockJob(c *cli.Context) (blockbench.Job, error) {
	j := blockbench.NewJob(c.String("filename"))
	var err error
	j.Name = c.String("name")
	if s := c.String("size"); s != "" {
		if j.Size, err = blockbench.ParseSize("--size", s); err != nil {
			return j, err
		}
		j.SizeGiven = true
	}
	if j.Offset, err = blockbench.ParseSize("--offset", c.String("offset")); err != nil {
		return j, err
	}
	if j.RW, err = blockbench.ParseRW(c.String("rw")); err != nil {
		return j, err
	}
	if j.BlockSizes, err = blockbench.ParseBSList(c.String("bs")); err != nil {
		return j, err
	}
	if j.IOEngine, err = blockbench.ParseEngine(c.String("ioengine")); err != nil {
		return j, err
	}
	if j.Runtime, err = blockbench.ParseDuration("--runtime", c.String("runtime")); err != nil {
		return j, err
	}
	if j.RampTime, err = blockbench.ParseDuration("--ramp_time", c.String("ramp_time")); err != nil {
		return j, err
	}
	if j.Buffer, err = blockbench.ParseBuffer(c.String("buffer")); err != nil {
		return j, err
	}
	if j.Profile, err = blockbench.ParseProfile(c.String("profile")); err != nil {
		return j, err
	}
	j.RWMixRead = c.Int("rwmixread")
	j.IODepth = c.Int("iodepth")
	j.NumJobs = c.Int("numjobs")
	j.Direct = c.Bool("direct")
	j.TimeBased = c.Bool("time_based")
	j.Fsync = c.Int("fsync")
	j.Seed = c.Uint64("seed")
	j.Passes = c.Int("passes")
	j.DestroyData = c.Bool("destroy-data")
	j.Warn = c.App.ErrWriter
	j.CommandLine = os.Args
	if isTerminal(c.App.ErrWriter) {
		j.Progress = c.App.ErrWriter
	}
	if err := cdmOptions(c, &j); err != nil {
		return j, err
	}
	return j, j.Validate()
}

// cdmOptions reads the flags only --profile cdm takes.
func cdmOptions(c *cli.Context, j *blockbench.Job) error {
	names := []string{"cdm-preset", "test-data", "mix", "mix-read", "interval", "passes-kept", "buffered", "fill"}
	if j.Profile != blockbench.ProfileCDM {
		for _, n := range append(names, "passes") {
			if c.IsSet(n) {
				return result.Usagef("--"+n, "only goes with --profile cdm")
			}
		}
		return nil
	}
	o := &j.CDM
	var err error
	if o.Preset, err = blockbench.ParseCDMPreset(c.String("cdm-preset")); err != nil {
		return err
	}
	if o.Data, err = blockbench.ParseCDMData(c.String("test-data")); err != nil {
		return err
	}
	if o.Aggregate, err = blockbench.ParseCDMAggregate(c.String("passes-kept")); err != nil {
		return err
	}
	if o.Interval, err = blockbench.ParseDuration("--interval", c.String("interval")); err != nil {
		return err
	}
	if s := c.String("fill"); s != "" {
		if o.Fill, err = blockbench.ParseFill(s); err != nil {
			return err
		}
	}
	o.Mix, o.MixRead, o.Buffered = c.Bool("mix"), c.Int("mix-read"), c.Bool("buffered")
	if c.IsSet("mix-read") && !o.Mix {
		return result.Usagef("--mix-read", "only goes with --mix")
	}
	return nil
}

func blockAction(c *cli.Context) error {
	if c.Bool("cleanup") {
		return blockCleanup(c)
	}
	if c.Bool("force") {
		return result.Usagef("--force", "only goes with --cleanup")
	}
	format := c.String("output-format")
	if !slices.Contains(blockreport.Formats, format) {
		return result.Usagef("--output-format", "unknown format %q; accepted: %s", format, strings.Join(blockreport.Formats, ", "))
	}
	job, err := blockJob(c)
	if err != nil {
		return err
	}
	keep, err := beginKeep(c) // checks --output too, before anything is created
	if err != nil {
		return err
	}
	defer keep.release()
	res, runErr := blockbench.Run(c.Context, job)
	if res == nil {
		return runErr
	}
	report := func(w io.Writer) error { return blockreport.Write(w, format, res) }
	if keep.result == nil {
		if err := report(c.App.Writer); err != nil {
			return joinLine(runErr, fmt.Errorf("write report: %w", err))
		}
	} else if err := keep.result.Write(c.App.Writer, report); err != nil {
		return joinLine(runErr, err)
	}
	return keep.after(c.Context, res, runErr)
}

// blockCleanup is `clyde block --cleanup`: what a killed run left at
// --filename, and nothing else.
func blockCleanup(c *cli.Context) error {
	file := c.String("filename")
	clean := blockbench.Cleanup
	if fi, err := os.Stat(file); err == nil && fi.IsDir() {
		clean = blockbench.CleanupDir // the private directories of killed cdm runs
	}
	res, err := clean(file, c.Bool("force"))
	for _, p := range res.Removed {
		fmt.Fprintf(c.App.Writer, "removed %s\n", p)
	}
	for _, k := range res.Kept {
		fmt.Fprintf(c.App.Writer, "kept %s\n", k)
	}
	if err == nil && len(res.Removed) == 0 {
		fmt.Fprintf(c.App.Writer, "nothing to clean up at %s: no clyde marker beside it\n", file)
	}
	return err
}
