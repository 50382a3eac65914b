package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/blockpreset"
	"github.com/clydebench/clyde/cdm"
	"github.com/clydebench/clyde/fiojob"
	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/outfile"
	"github.com/clydebench/clyde/result"
)

func init() { commandList = append(commandList, blockCommand()) }

func blockCommand() *cli.Command {
	d, dc := blockbench.NewJob(""), cdm.DefaultOptions()
	return &cli.Command{
		Name:      "block",
		Usage:     "raw block engine: fio-style jobs and job files, CrystalDiskMark, Iometer, ORION presets on a file or block device",
		ArgsUsage: "[JOBFILE.fio]",
		Description: "A path that does not exist yet is created (with a .NAME.clyde-run marker beside it), filled,\n" +
			"and removed at the end, if it is still the file clyde created; that needs no flag.\n\n" +
			"Needs --destroy-data: any job or preset that writes (--rw write, randwrite, rw, randrw; cdm,\n" +
			"iometer-mix; bs-sweep with a writing --rw) on a block device or on an existing file. Reads need nothing.\n\n" +
			"Always refused, even with --destroy-data: a target when anything it is stacked on or that is stacked\n" +
			"  on it (loop devices and their backing files or devices, partitions and their disk, an msdos extended\n" +
			"  partition's logical ones, dm, LVM, md; a file on an overlay is its real file) is mounted (in any mount\n" +
			"  namespace; a filesystem mounted straight from an image file too), swap, a device of a mounted btrfs,\n" +
			"  held by another process (a file open for writing, a device open at all; either mapped shared and\n" +
			"  writable, or registered in an io_uring), or claimed exclusively (O_EXCL busy); the refusal names\n" +
			"  the chain, e.g. /dev/loop9 -> /dev/loop8 -> mounted on /mnt;\n" +
			"  a file that is the image behind a loop device, even an idle one;\n" +
			"  a file of procfs, sysfs or another kernel interface, or a new file in one;\n" +
			"  a new file in /dev or on devtmpfs (a mistyped device name), or one its filesystem has no room for;\n" +
			"  a file left by a killed run (its marker is there): `clyde block --cleanup --filename F` removes\n" +
			"  it, when the marker names this host and its process is gone (--force: a marker from another host).\n\n" +
			"A fio job file runs as fio runs it: [global] and [job] sections, include, ${VAR}; jobs run at the same\n" +
			"time until one says stonewall. Flags after the file override every job's option of the same name.\n" +
			wrapWords("Options clyde reads: "+strings.Join(fiojob.Supported(), ", ")+".", 100) +
			"Any other option is refused with its line number.\n\n" +
			"--profile cdm is CrystalDiskMark: each test of the set (--cdm-preset) read, then written, then mixed\n" +
			"(--mix), an uncounted warm-up pass then --passes passes of --runtime (its Measure time), --interval idle\n" +
			"before each test, keeping the best pass (--passes-kept average: KDiskMark's). It makes its test file in a\n" +
			"private directory in --filename (a directory, or the directory of a new path), unbuffered; a filesystem that\n" +
			"would serve it from memory anyway (tmpfs, FUSE, a loop device without direct I/O) is refused unless --buffered\n" +
			"(through the cache) or --allow-cached (uncached anyway, noted). The Q8 and Q32 tests need a\n" +
			"queueing engine (io_uring on Linux 5.1+, windowsaio on Windows; --ioengine auto picks it): with psync, or\n" +
			"where none exists, they are refused (--cdm-preset real runs Q1 only). `clyde block --cleanup --filename DIR` removes the private\n" +
			"directories of killed runs in DIR.\n\n" +
			"  clyde block --filename /mnt/ssd --profile cdm\n" +
			"  clyde block --filename /mnt/ssd --profile cdm --test-data both --fill 50%\n" +
			"  clyde block --filename /dev/sdX --profile iometer-mix --direct --runtime 30 --destroy-data\n" +
			"  clyde block job.fio --output-format json --runtime 10",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "filename", Usage: "file or block device (symlinks and /dev/disk/by-* are resolved); a job file may name them instead"},
			&cli.StringFlag{Name: "name", Usage: "fio's --name: starts a fio job, and the whole line is then fio's command line, with fio's defaults (one pass over --size, psync, invalidate=1; see docs/block.md); without it the line is clyde's own, its differing defaults named in a note"},
			&cli.StringSliceFlag{Name: "section", Usage: "fio's --section: run only the jobs of this name (of a job file or of fio's command line); give it more than once for more"},
			&cli.StringFlag{Name: "eta", Value: "auto", Usage: "fio's --eta: the progress line on stderr: auto (on a terminal), always, never"},
			&cli.StringFlag{Name: "eta-interval", Usage: "fio's --eta-interval: redraw the progress line this often (default 500ms, at least 250ms; a job file or fio's command line)"},
			&cli.StringFlag{Name: "eta-newline", Usage: "fio's --eta-newline: start a new progress line this often instead of rewriting it (a job file or fio's command line)"},
			&cli.StringFlag{Name: "size", Usage: "region per job: 4k, 64m, 1g, 0x100000 (default: the whole existing target, 1g for a new file); units as fio reads them (--kb_base)"},
			&cli.StringFlag{Name: "kb_base", Value: "1024", Usage: "fio's kb_base: 1024 (fio's default) reads k, KB, MB as powers of 1024 and KiB, MiB as powers of 1000; 1000 the other way round"},
			&cli.StringFlag{Name: "offset", Value: "0", Usage: "start of the region"},
			&cli.StringFlag{Name: "rw", Value: string(d.RW), Usage: "read|write|randread|randwrite|rw (readwrite)|randrw"},
			&cli.IntFlag{Name: "rwmixread", Value: d.RWMixRead, Usage: "percent reads in rw/randrw; each I/O picks its direction on its own"},
			&cli.StringFlag{Name: "bs", Value: "4k", Usage: "block size, or a comma list that runs one job per size"},
			&cli.IntFlag{Name: "iodepth", Value: d.IODepth, Usage: "I/Os in flight per worker (io_uring, libaio, windowsaio)"},
			&cli.IntFlag{Name: "numjobs", Value: d.NumJobs, Usage: "workers per job, summed in the report"},
			&cli.StringFlag{Name: "ioengine", Value: string(d.IOEngine), Usage: "psync|io_uring|libaio|windowsaio|auto|null|mmap|posixaio (auto: io_uring on Linux, windowsaio on Windows, when iodepth > 1; the presets' default); libaio is Linux native AIO, as fio's (elsewhere it runs the queueing engine, with a note); null, mmap, posixaio are fio's (null opens no file and needs --size; posixaio is glibc's AIO model rebuilt in Go, with a note); fio's sync/pvsync run psync, with a note"},
			&cli.BoolFlag{Name: "direct", Usage: "bypass the page cache: O_DIRECT, F_NOCACHE on macOS, FILE_FLAG_NO_BUFFERING on Windows (bs and offset multiples of 512, of the sector size on Windows; cdm always runs so, unless --buffered)"},
			&cli.StringFlag{Name: "runtime", Value: "5", Usage: "measured time per job (cdm: per pass, its Measure time): seconds or 500ms, 2m (0: no limit)"},
			&cli.StringFlag{Name: "ramp_time", Value: "0", Usage: "unmeasured time before each job"},
			&cli.BoolFlag{Name: "time_based", Value: true, Usage: "run for --runtime; false also ends a job after --size bytes per worker"},
			&cli.StringFlag{Name: "buffer", Value: "random", Usage: "write data: random|zero|compressible:PCT (fio's zero_buffers, buffer_compress_percentage, refill_buffers work too)"},
			&cli.BoolFlag{Name: "zero_buffers", Usage: "write zeros (fio)"},
			&cli.BoolFlag{Name: "refill_buffers", Usage: "new data for every write, as fio refills (costs CPU in the I/O loop, as in fio)"},
			&cli.IntFlag{Name: "buffer_compress_percentage", Usage: "write data that compresses by PCT, refilled for every write (fio)"},
			&cli.IntFlag{Name: "fsync", Usage: "fsync after every N writes of a worker (0: never)"},
			&cli.BoolFlag{Name: "end_fsync", Usage: "fsync when a writing worker is done, inside its runtime (fio)"},
			&cli.IntFlag{Name: "fdatasync", Usage: "fdatasync after every N writes of a worker (fio; 0: never)"},
			&cli.IntFlag{Name: "iodepth_batch_submit", Aliases: []string{"iodepth_batch"}, Value: 1, Usage: "io_uring, libaio: I/Os queued before one submit call takes them (fio; 0: iodepth)"},
			&cli.IntFlag{Name: "iodepth_batch_complete_min", Aliases: []string{"iodepth_batch_complete"}, Value: 1, Usage: "io_uring, libaio: completions a reap waits for (fio; 0: poll, never sleep)"},
			&cli.IntFlag{Name: "iodepth_batch_complete_max", Usage: "io_uring, libaio: most completions a reap takes (fio; 0: the min)"},
			&cli.IntFlag{Name: "iodepth_low", Usage: "io_uring, libaio: once the queue is full, drain it to this many before refilling (fio; 0: iodepth)"},
			&cli.BoolFlag{Name: "fsync_on_close", Usage: "fsync at the end of the runtime and when the target is closed (fio)"},
			&cli.StringFlag{Name: "verify", Usage: "fio's verify: crc32c|crc32c-intel|md5 writes each block with a checksum and reads every written block back after the writes (0: none)"},
			&cli.BoolFlag{Name: "verify_fatal", Usage: "stop at the first block that fails --verify (fio)"},
			&cli.BoolFlag{Name: "do_verify", Value: true, Usage: "false: --verify writes its checksums but skips the read-back pass (fio)"},
			&cli.BoolFlag{Name: "invalidate", Usage: "drop the file's cached pages before each job (fio's default in job files)"},
			&cli.BoolFlag{Name: "fadvise_hint", Usage: "tell the kernel each job's access pattern: no readahead for random reads (fio's default in job files)"},
			&cli.Uint64Flag{Name: "seed", Aliases: []string{"randseed"}, Value: d.Seed, Usage: "random seed for offsets, directions and data"},
			&cli.BoolFlag{Name: "randrepeat", Value: true, Usage: "false: a new random seed each run, recorded as randseed (fio)"},
			&cli.StringFlag{Name: "random_distribution", Value: "random", Usage: "fio's: random|zipf[:theta[:center]]|pareto[:h]|normal[:dev%]|zoned:60/10:40/90|zoned_abs:60/1g:40/3g"},
			&cli.StringFlag{Name: "zonemode", Value: "none", Usage: "fio's: strided keeps the I/O in a zone of --zonerange until --zonesize bytes, then skips --zoneskip"},
			&cli.StringFlag{Name: "zonesize", Usage: "bytes per zone before the next (--zonemode strided)"},
			&cli.StringFlag{Name: "zonerange", Usage: "size of a zone (default: --zonesize)"},
			&cli.StringFlag{Name: "zoneskip", Usage: "bytes skipped after each zone"},
			&cli.StringFlag{Name: "percentile_list", Usage: "percentiles to report, fio style: 99:99.9:99.99 (default fio's 17)"},
			&cli.BoolFlag{Name: "clat_percentiles", Value: true, Usage: "percentiles under clat_ns (fio's default)"},
			&cli.BoolFlag{Name: "lat_percentiles", Usage: "percentiles under lat_ns too"},
			&cli.BoolFlag{Name: "slat_percentiles", Usage: "percentiles under slat_ns too"},
			&cli.StringFlag{Name: "write_bw_log", Usage: "write fio's bandwidth log PREFIX_bw.N.log per worker (no value: the job name)"},
			&cli.StringFlag{Name: "write_iops_log", Usage: "write fio's IOPS log PREFIX_iops.N.log per worker (no value: the job name)"},
			&cli.StringFlag{Name: "write_lat_log", Usage: "write fio's PREFIX_slat/clat/lat.N.log per worker (no value: the job name)"},
			&cli.IntFlag{Name: "log_avg_msec", Usage: "average the logs over windows of N ms (0: one line per I/O)"},
			&cli.BoolFlag{Name: "log_offset", Usage: "add each I/O's offset to the log lines"},
			&cli.BoolFlag{Name: "group_reporting", Usage: "accepted for fio's command lines: clyde always sums a job's numjobs workers"},
			&cli.BoolFlag{Name: "thread", Usage: "accepted for fio's command lines: clyde's workers are threads"},
			&cli.StringFlag{Name: "profile", Usage: "preset: cdm|iometer-mix|orion|bs-sweep|sustained (4k randrw 70/30, iodepth 32, direct, 30m, steady-state analysis)"},
			&cli.StringFlag{Name: "steadystate", Usage: "fio's ss= criterion, such as iops_slope:0.3% or iops:20%; reports it (--until-steady also stops there)"},
			&cli.StringFlag{Name: "ss_dur", Usage: "fio's ss_dur: the rolling window of --steadystate, such as 60s"},
			&cli.StringFlag{Name: "ss_ramp", Usage: "fio's ss_ramp: seconds of the series before --steadystate looks"},
			&cli.StringFlag{Name: "ss-round", Usage: "one round of SNIA's steady-state rule (5 rounds within 20%, slope within 10%; default 1m)"},
			&cli.BoolFlag{Name: "until-steady", Usage: "stop each job at steady state (--steadystate, else SNIA's rule); --runtime is the cap"},
			&cli.IntFlag{Name: "passes", Value: dc.Passes, Usage: "cdm: measured passes per test (1..9) after one uncounted warm-up"},
			&cli.StringFlag{Name: "cdm-preset", Value: string(dc.Preset), Usage: "cdm: test set: default|nvme|peak|peak-nvme|real|demo (CrystalDiskMark 8/9), cdm7|cdm6|cdm5"},
			&cli.StringFlag{Name: "test-data", Value: string(dc.Data), Usage: "cdm: random|zero (All 0x00, 0Fill)|both (each test with each, side by side)"},
			&cli.BoolFlag{Name: "mix", Usage: "cdm: add CrystalDiskMark's Mix rows (--mix-read percent reads)"},
			&cli.IntFlag{Name: "mix-read", Value: dc.MixRead, Usage: "cdm: read share of the Mix rows, 10..90"},
			&cli.StringFlag{Name: "interval", Value: "5", Usage: "cdm: idle time before each test (CrystalDiskMark's Interval)"},
			&cli.StringFlag{Name: "passes-kept", Value: string(dc.Aggregate), Usage: "cdm: best (CrystalDiskMark: highest MB/s, lowest latency) or average (KDiskMark)"},
			&cli.BoolFlag{Name: "buffered", Usage: "cdm: run through the page cache (CrystalDiskMark never does; every output says so)"},
			&cli.StringFlag{Name: "fill", Usage: "cdm: fill the filesystem to `PCT%|SIZE` in use with incompressible data first (removed after)"},
			&cli.BoolFlag{Name: "destroy-data", Usage: "allow writing to an unused block device or an existing file, destroying what it holds"},
			&cli.BoolFlag{Name: "allow-cached", Usage: "uncached I/O on a target a page cache serves anyway (tmpfs, a loop device without direct I/O over a file the host caches) is measured as it is, with the result saying so, instead of refused (cdm, iometer)"},
			&cli.BoolFlag{Name: "allow-sparse", Usage: "read an existing file with holes or never-written (fallocated) extents as it is; reads of those never reach the device, and the result says how much was so"},
			&cli.BoolFlag{Name: "cleanup", Usage: "remove the file a killed run left at --filename, and its marker (a directory: the private directories of killed cdm runs in it), then exit"},
			&cli.BoolFlag{Name: "force", Usage: "with --cleanup: also remove a file whose marker names another host (shared storage)"},
			&cli.StringFlag{Name: "output-format", Value: "text", Usage: "text (normal)|json|json+|csv, or fio's comma list such as normal,json"},
			&cli.StringFlag{Name: "output", Usage: "write the report to `FILE` instead of stdout (a file is replaced atomically once the run ends, a device or FIFO written in place)"},
		}, append(rankFlags(), keepFlags()...)...),
		Action: blockAction,
	}
}

// wrapWords breaks s into lines of at most width, each ending in a newline.
func wrapWords(s string, width int) string {
	var b, line strings.Builder
	for _, w := range strings.Fields(s) {
		if line.Len() > 0 && line.Len()+1+len(w) > width {
			b.WriteString(line.String() + "\n")
			line.Reset()
		}
		if line.Len() > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(w)
	}
	if line.Len() > 0 {
		b.WriteString(line.String() + "\n")
	}
	return b.String()
}

// checkBlockArgs prepares clyde block's arguments for the flag parser by
// fio's command-line rules (fiojob.NormalizeArgs); urfave/cli's side is
// which flags take a value, and the pasted-dash check of bare words. A
// fio command line (fiojob.IsFioCommandLine: a --name) is read by fio's
// rules (fiojob.ParseCommandLine): its jobs are returned as the job file
// they stand for, and only the other flags go on to the flag parser.
func checkBlockArgs(args []string) ([]string, *fiojob.File, error) {
	if len(args) < 2 || args[1] != "block" {
		return args, nil, nil
	}
	takesValue := map[string]bool{}
	for _, f := range blockCommand().Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	rest := args[2:]
	var fioLine *fiojob.File
	if fiojob.IsFioCommandLine(rest) {
		var err error
		fioLine, rest, err = fiojob.ParseCommandLine(rest, func(name string) (bool, bool) {
			v, known := takesValue[name]
			return known, v
		})
		if err != nil {
			return nil, nil, err
		}
	}
	rest, err := fiojob.NormalizeArgs(rest, func(name string) bool { return takesValue[name] }, pastedDash)
	if err != nil {
		return nil, nil, err
	}
	return append(append([]string(nil), args[:2]...), rest...), fioLine, nil
}

// prepareBlockArgs is checkBlockArgs, keeping a fio command line's jobs in
// app's Metadata for the block command's action (fioCommandLine).
func prepareBlockArgs(app *cli.App, args []string) ([]string, error) {
	args, fioLine, err := checkBlockArgs(args)
	if fioLine != nil {
		app.Metadata[fioLineKey] = fioLine
	}
	return args, err
}

// fioLineKey holds, in the app's Metadata, the jobs of a fio command line
// (checkBlockArgs), nil for any other.
const fioLineKey = "fio command line"

// fioCommandLine is the jobs of clyde block's fio command line, nil when
// the line is clyde's own.
func fioCommandLine(c *cli.Context) *fiojob.File {
	f, _ := c.App.Metadata[fioLineKey].(*fiojob.File)
	return f
}

// blockJob turns the flags into a Job, and the preset (--profile) that
// runs it, nil for none; every parse error is a usage error.
func blockJob(c *cli.Context) (blockbench.Job, *blockPreset, error) {
	j, p, err := blockJobFlags(c)
	if err != nil {
		return j, p, err
	}
	if p != nil {
		return j, p, p.validate(&j)
	}
	return j, nil, j.Validate()
}

// blockJobFlags reads the flags of blockJob.
func blockJobFlags(c *cli.Context) (blockbench.Job, *blockPreset, error) {
	j := blockbench.NewJob(c.String("filename"))
	j.Shape = fiojob.Shape // clyde's block JSON is fio's, for every preset
	var err error
	for _, f := range []string{"section", "eta-interval", "eta-newline"} {
		if c.IsSet(f) {
			return j, nil, result.Usagef("--"+f, "goes with a job file or fio's command line (a line with --name)")
		}
	}
	kb, err := fiojob.ParseKBBaseFlag("--kb_base", c.String("kb_base"))
	if err != nil {
		return j, nil, err
	}
	if s := c.String("size"); s != "" {
		if j.Size, err = fiojob.ParseSizeFlag("--size", s, kb); err != nil {
			return j, nil, err
		}
		j.SizeGiven = true
	}
	if j.Offset, err = fiojob.ParseSizeFlag("--offset", c.String("offset"), kb); err != nil {
		return j, nil, err
	}
	if j.RW, err = blockbench.ParseRW(c.String("rw")); err != nil {
		return j, nil, err
	}
	bsBase := kb
	if !c.IsSet("bs") {
		bsBase = fiojob.KBBase1024 // fio's default bs is 4096 under either kb_base
	}
	if j.BlockSizes, err = fiojob.ParseBSFlag("--bs", c.String("bs"), bsBase); err != nil {
		return j, nil, err
	}
	var note string
	if j.IOEngine, note, err = fiojob.Engine("--ioengine", c.String("ioengine")); err != nil {
		return j, nil, err
	}
	if note != "" {
		j.Notes = append(j.Notes, note)
		fmt.Fprintf(c.App.ErrWriter, "clyde: note: %s\n", note)
	}
	if j.Distribution, err = fiojob.ParseRandomDistribution("--random_distribution", c.String("random_distribution"), kb); err != nil {
		return j, nil, err
	}
	if j.Zones, err = fiojob.ParseZoneFlags(c.String("zonemode"), c.String("zonesize"), c.String("zonerange"), c.String("zoneskip"), kb); err != nil {
		return j, nil, err
	}
	if j.Runtime, err = blockbench.ParseDuration("--runtime", c.String("runtime")); err != nil {
		return j, nil, err
	}
	if j.RampTime, err = blockbench.ParseDuration("--ramp_time", c.String("ramp_time")); err != nil {
		return j, nil, err
	}
	if j.Buffer, err = blockBuffer(c); err != nil {
		return j, nil, err
	}
	p, err := parseBlockPreset(c.String("profile"))
	if err != nil {
		return j, nil, err
	}
	if j.Report, err = blockReport(c); err != nil {
		return j, p, err
	}
	j.RWMixRead = c.Int("rwmixread")
	j.IODepth = c.Int("iodepth")
	j.NumJobs = c.Int("numjobs")
	j.Direct = c.Bool("direct")
	j.TimeBased = c.Bool("time_based")
	j.Fsync = c.Int("fsync")
	j.EndFsync = c.Bool("end_fsync")
	j.Fdatasync = c.Int("fdatasync")
	j.FsyncOnClose = c.Bool("fsync_on_close")
	if err := fiojob.BatchFlags(&j, func(flag string) (int, bool) { return c.Int(flag), c.IsSet(flag) }); err != nil {
		return j, p, err
	}
	if s := c.String("verify"); s != "" {
		if j.Verify, err = fiojob.ParseVerifyFlag("--verify", s); err != nil {
			return j, p, err
		}
	}
	j.VerifyFatal = c.Bool("verify_fatal")
	j.NoVerifyPass = !c.Bool("do_verify")
	j.Invalidate = c.Bool("invalidate")
	j.FadviseHint = c.Bool("fadvise_hint")
	j.Seed = c.Uint64("seed")
	if !c.Bool("randrepeat") && !c.IsSet("seed") {
		j.Seed = blockbench.RandomSeed()
	}
	j.DestroyData = c.Bool("destroy-data")
	j.AllowSparse = c.Bool("allow-sparse")
	j.AllowCached = c.Bool("allow-cached")
	j.Log = blockLog(c, j.Name, string(j.RW))
	j.Warn = c.App.ErrWriter
	j.CommandLine = os.Args
	if j.Progress, err = blockProgress(c); err != nil {
		return j, p, err
	}
	if err := cdmOptions(c, p); err != nil {
		return j, p, err
	}
	if err := sustainedFlags(c, &j, p); err != nil {
		return j, p, err
	}
	if p == nil {
		if n := fiojob.ClydeStyleNote(&j, c.IsSet); n != "" {
			j.Notes = append(j.Notes, n)
		}
	}
	return j, p, nil
}

// blockProgress is where fio's --eta puts the progress line: stderr when
// it is a terminal (auto), always, or nowhere.
func blockProgress(c *cli.Context) (io.Writer, error) {
	switch eta := c.String("eta"); eta {
	case "auto":
		if isTerminal(c.App.ErrWriter) {
			return c.App.ErrWriter, nil
		}
		return nil, nil
	case "always":
		return c.App.ErrWriter, nil
	case "never":
		return nil, nil
	default:
		return nil, result.Usagef("--eta", "%q: give auto (on a terminal), always or never, as fio", eta)
	}
}

// sustainedFlags applies the sustained preset's settings to every flag not
// given, and the steady-state flags, which any job takes.
func sustainedFlags(c *cli.Context, j *blockbench.Job, p *blockPreset) error {
	if p != nil && p.name == blockpreset.SustainedName {
		preset := blockpreset.SustainedJob(j.Filename)
		if !c.IsSet("rw") {
			j.RW = preset.RW
		}
		if !c.IsSet("rwmixread") {
			j.RWMixRead = preset.RWMixRead
		}
		if !c.IsSet("bs") {
			j.BlockSizes = preset.BlockSizes
		}
		if !c.IsSet("iodepth") {
			j.IODepth = preset.IODepth
		}
		if !c.IsSet("runtime") {
			j.Runtime = preset.Runtime
		}
		if !c.IsSet("direct") {
			j.Direct = preset.Direct
		}
	}
	given := false
	for _, f := range []string{"steadystate", "ss_dur", "ss_ramp", "ss-round", "until-steady"} {
		given = given || c.IsSet(f)
	}
	if !given {
		return nil
	}
	ss := &blockpreset.SteadyState{Criterion: c.String("steadystate"), UntilSteady: c.Bool("until-steady")}
	for _, f := range []struct {
		name string
		dst  *time.Duration
	}{{"ss_dur", &ss.Dur}, {"ss_ramp", &ss.Ramp}, {"ss-round", &ss.Round}} {
		if c.IsSet(f.name) {
			d, err := blockbench.ParseDuration("--"+f.name, c.String(f.name))
			if err != nil {
				return err
			}
			*f.dst = d
		}
	}
	j.Analysis = ss
	return nil
}

// blockBuffer is --buffer, or fio's data flags; the two kinds do not mix.
func blockBuffer(c *cli.Context) (blockbench.Buffer, error) {
	fio := c.IsSet("zero_buffers") || c.IsSet("refill_buffers") || c.IsSet("buffer_compress_percentage")
	if fio && c.IsSet("buffer") {
		return blockbench.Buffer{}, result.Usagef("--buffer", "give --buffer or fio's --zero_buffers/--refill_buffers/--buffer_compress_percentage, not both")
	}
	if !fio {
		return blockbench.ParseBuffer(c.String("buffer"))
	}
	b := blockbench.Buffer{Kind: blockbench.BufferRandom, Refill: c.Bool("refill_buffers")}
	switch pct := c.Int("buffer_compress_percentage"); {
	case c.Bool("zero_buffers"):
		b.Kind = blockbench.BufferZero
	case pct != 0:
		// fio refills the buffers of buffer_compress_percentage.
		b.Kind, b.CompressPct, b.Refill = blockbench.BufferCompressible, pct, true
	}
	return b, nil
}

// blockReport reads fio's percentile flags.
func blockReport(c *cli.Context) (blockbench.ReportOptions, error) {
	r := blockbench.ReportOptions{NoClatPercentiles: !c.Bool("clat_percentiles"),
		LatPercentiles: c.Bool("lat_percentiles"), SlatPercentiles: c.Bool("slat_percentiles")}
	if s := c.String("percentile_list"); s != "" {
		for _, p := range strings.Split(s, ":") {
			v, err := strconv.ParseFloat(p, 64)
			if err != nil {
				return r, result.Usagef("--percentile_list", "%q: give percentages separated by ':' (99:99.9)", s)
			}
			r.PercentileList = append(r.PercentileList, v)
		}
	}
	return r, nil
}

// blockLog reads fio's log flags (fiojob.CommandLineLogs); clyde's job
// name is --name, else the rw mode.
func blockLog(c *cli.Context, name, rw string) fiojob.LogSpec {
	if name == "" {
		name = rw
	}
	return fiojob.CommandLineLogs(name, c.Int("log_avg_msec"), c.Bool("log_offset"),
		func(flag string) (string, bool) { return c.String(flag), c.IsSet(flag) })
}

// clydeOnlyFlags are clyde block's flags for its own command line and its
// presets, which a job file and fio's command line do not take.
var clydeOnlyFlags = []string{"profile", "passes", "buffer", "cdm-preset", "test-data", "mix", "mix-read", "interval",
	"passes-kept", "buffered", "fill", "steadystate", "ss_dur", "ss_ramp", "ss-round", "until-steady"}

// refuseClydeOnly refuses the clydeOnlyFlags given (and more) with what
// the line is.
func refuseClydeOnly(c *cli.Context, what string, more ...string) error {
	for _, f := range append(clydeOnlyFlags, more...) {
		if c.IsSet(f) {
			return result.Usagef("--"+f, "does not go with %s; its options say what each job does", what)
		}
	}
	return nil
}

// fioLinePlan compiles fio's command line (checkBlockArgs read its jobs)
// as the job file it stands for, with fio's defaults.
func fioLinePlan(c *cli.Context, f *fiojob.File) (blockbench.Plan, error) {
	if c.NArg() > 0 {
		return blockbench.Plan{}, result.Usagef(c.Args().First(), "a job file and --name: fio would run the command line's job and then the file's; clyde runs one or the other, so put the job in the file")
	}
	if c.IsSet("seed") {
		return blockbench.Plan{}, result.Usagef("--seed", "is clyde's own; fio's command line (a line with --name) says --randseed")
	}
	if err := refuseClydeOnly(c, "fio's command line (a line with --name)", "cleanup", "force"); err != nil {
		return blockbench.Plan{}, err
	}
	p, err := fiojob.Compile(f, fiojob.Options{})
	if err != nil {
		return p, err
	}
	return finishPlan(c, p)
}

// jobFilePlan compiles the job file with the flags given after it as
// overrides of every job's options.
func jobFilePlan(c *cli.Context, path string) (blockbench.Plan, error) {
	if err := refuseClydeOnly(c, "a job file"); err != nil {
		return blockbench.Plan{}, err
	}
	o := fiojob.Options{Sections: c.StringSlice("section"), Overrides: fiojob.FlagOverrides(func(flag string) (string, bool) {
		if !c.IsSet(flag) {
			return "", false
		}
		switch flagByName(c, flag).(type) {
		case *cli.BoolFlag:
			return boolFlagValue(c.Bool(flag)), true
		case *cli.IntFlag:
			return strconv.Itoa(c.Int(flag)), true
		case *cli.Uint64Flag:
			return strconv.FormatUint(c.Uint64(flag), 10), true
		}
		return c.String(flag), true
	})}
	p, err := fiojob.Load(path, fiojob.Env{Context: c.Context}, o)
	if err != nil {
		return p, err
	}
	return finishPlan(c, p)
}

// finishPlan adds to a compiled plan what the run's flags say: safety,
// where warnings and the progress line go (fio's --eta flags).
func finishPlan(c *cli.Context, p blockbench.Plan) (blockbench.Plan, error) {
	p.DestroyData = c.Bool("destroy-data")
	p.AllowSparse = c.Bool("allow-sparse")
	p.AllowCached = c.Bool("allow-cached")
	p.Warn = c.App.ErrWriter
	p.CommandLine = typedArgs(c)
	var err error
	if p.Progress, err = blockProgress(c); err != nil {
		return p, err
	}
	if p.ProgressEvery, p.ProgressNewline, err = fiojob.ParseEtaTimes(c.String("eta-interval"), c.String("eta-newline")); err != nil {
		return p, err
	}
	for _, n := range p.Notes {
		fmt.Fprintf(c.App.ErrWriter, "clyde: note: %s\n", n)
	}
	return p, nil
}

func flagByName(c *cli.Context, name string) cli.Flag {
	for _, f := range c.Command.Flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

func boolFlagValue(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// blockLogs checks the paths of every log the run will write, as output
// files (internal/outfile), before anything runs, and returns the plan's
// WriteLog, which writes each once its group is over.
func blockLogs(c *cli.Context, names []string, k *keeper) (func(string, func(io.Writer) error) error, func(), error) {
	targets := map[string]*outfile.Target{}
	closeAll := func() {
		for _, t := range targets {
			t.Close()
		}
	}
	for _, name := range names {
		flag := fiojob.LogFlag(name)
		t, err := outfile.Check(flag, name)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		for _, other := range append([]*outfile.Target{k.result, k.opts.Prom}, mapValues(targets)...) {
			if t.Same(other) {
				t.Close()
				closeAll()
				return nil, nil, result.Usagef(flag, "%s is also written by %s; give each output its own file", name, other.Flag)
			}
		}
		targets[name] = t
	}
	write := func(name string, fill func(io.Writer) error) error {
		t := targets[name]
		if t == nil {
			return fmt.Errorf("log %s was not checked before the run", name)
		}
		return t.Write(c.Context, c.App.Writer, fill)
	}
	return write, closeAll, nil
}

func mapValues(m map[string]*outfile.Target) []*outfile.Target {
	out := make([]*outfile.Target, 0, len(m))
	for _, t := range m {
		out = append(out, t)
	}
	return out
}

func blockAction(c *cli.Context) error {
	fioLine := fioCommandLine(c)
	if c.Bool("cleanup") && fioLine == nil {
		// The other flags are checked as for a run: an invalid one is
		// refused, not ignored.
		if c.NArg() == 0 {
			if _, _, err := blockJob(c); err != nil {
				return err
			}
		}
		return blockCleanup(c)
	}
	if c.Bool("force") {
		return result.Usagef("--force", "only goes with --cleanup")
	}
	if c.NArg() > 1 {
		return result.Usagef(c.Args().Get(1), "unexpected argument; clyde block takes one job file at most")
	}
	formats, err := blockreport.ParseFormats(c.String("output-format"))
	if err != nil {
		return err
	}
	var plan blockbench.Plan
	var job blockbench.Job
	var pr *blockPreset
	var logNames []string
	// planned: a job file or fio's command line, compiled into a plan.
	planned := c.NArg() == 1 || fioLine != nil
	if planned {
		if fioLine != nil {
			plan, err = fioLinePlan(c, fioLine)
		} else {
			plan, err = jobFilePlan(c, c.Args().First())
		}
		if err != nil {
			return err
		}
		logNames = fiojob.LogNames(plan)
	} else {
		if job, pr, err = blockJob(c); err != nil {
			return err
		}
		logNames = blockLogNames(&job, pr)
	}
	release, err := boundRun(c, 0, "")
	if err != nil {
		return err
	}
	defer release()
	// Many clients: every rank says hello with the job before any file is
	// made; ranks other than 0 keep no history and write no files.
	br, err := joinBlockRanks(c, planned, plan, job, logNames)
	if err != nil {
		return err
	}
	if br != nil {
		plan.Ranks, job.Ranks = br.place(), br.place()
		if br.rj.info.Rank != 0 {
			return rankBlockAction(c, br, planned, plan, job, formats)
		}
	}
	kp, err := beginKeep(c) // checks --output too, before anything is created
	if err != nil {
		if br != nil {
			br.rj.job.Abort(err)
			br.rj.release()
		}
		return err
	}
	defer kp.release()
	writeLog, closeLogs, err := blockLogs(c, logNames, kp)
	if err != nil {
		return err
	}
	defer closeLogs()
	var res *result.Block
	var runErr error
	ctx := c.Context
	if br != nil {
		ctx = br.rj.ctx // a lost rank stops this one too
	}
	if planned {
		plan.WriteLog = writeLog
		res, runErr = blockbench.RunPlan(ctx, plan)
	} else {
		job.WriteLog = writeLog
		run := blockbench.Run
		if pr != nil {
			run = pr.run // the preset's package: blockbench knows none
		}
		res, runErr = run(ctx, job)
	}
	if br != nil {
		runErr = br.finish(c.Context, res, runErr)
		if jobAborted(runErr) {
			return kp.noResult(c.App.Writer, runErr)
		}
	}
	if res == nil {
		return runErr
	}
	report := func(w io.Writer) error { return blockreport.WriteAll(w, formats, res) }
	run := compare.FromBlock(res)
	switch {
	case kp.result == nil && c.Bool("silent"): // cron: nothing unless something is wrong
	case kp.result == nil:
		if err := report(c.App.Writer); err != nil {
			return joinLine(runErr, fmt.Errorf("write report: %w", err))
		}
	default:
		// A run that failed while preparing leaves the previous output
		// file as it was (keeper.writeResult).
		if err := kp.writeResult(c.App.Writer, run, runErr, report); err != nil {
			return joinLine(runErr, err)
		}
	}
	return kp.after(c.Context, run, runErr)
}

// blockCleanup is `clyde block --cleanup`: what a killed run left at
// --filename, and nothing else.
func blockCleanup(c *cli.Context) error {
	file := c.String("filename")
	if file == "" {
		return result.Usagef("--filename", "missing; --cleanup removes what a killed run left at --filename")
	}
	clean := blockbench.Cleanup
	if fi, err := os.Stat(file); err == nil && fi.IsDir() {
		clean = blockbench.CleanupDir // the private directories of killed cdm runs
	}
	res, err := clean(file, c.Bool("force"))
	for _, p := range res.Removed {
		fmt.Fprintf(c.App.Writer, "removed %s\n", p)
	}
	for _, k := range res.Skipped {
		fmt.Fprintf(c.App.Writer, "kept %s\n", k)
	}
	if err == nil && len(res.Removed) == 0 {
		fmt.Fprintf(c.App.Writer, "nothing to clean up at %s: no clyde marker beside it\n", file)
	}
	return err
}
