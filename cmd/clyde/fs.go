package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/fsbench"
	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/fsreport"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

func init() { commandList = append(commandList, fsCommand()) }

func fsCommand() *cli.Command {
	return &cli.Command{
		Name:      "fs",
		Usage:     "the bonnie++ suite: sequential and random I/O on one big file, then create/stat/delete of many small files",
		UsageText: "clyde fs [-d dir] [-s size[:chunk[:seeks[:procs]]]] [-n num[:max[:min[:dirs[:chunk]]]]] [-m name] [-r ram] [-x n] [-f[N]] [-b] [-D] [-z seed | -Z file] [-q] [-c n] [-u user]",
		Description: "Takes bonnie++ 2.00a's flags with the same letters and meanings. Sizes without a unit follow\n" +
			"bonnie++ (-s in MiB, -n in units of 1024 files); units such as 4g or 2GiB work too.\n" +
			"Prints bonnie++'s text tables and its 1.98 CSV line; --json FILE keeps everything.\n" +
			exitCodeList,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "dir", Aliases: []string{"d"}, Value: ".", Usage: "directory to test in (clyde works in a private directory inside it)"},
			&cli.StringFlag{Name: "size", Aliases: []string{"s"}, Usage: "size[:chunk[:seeks[:procs]]]: big-file size (MiB unless a unit is given; default 2x RAM), chunk, seeks, seek workers; 0 skips the I/O tests"},
			&cli.StringFlag{Name: "files", Aliases: []string{"n"}, Value: "16", Usage: "num[:max[:min[:dirs[:chunk]]]]: 1024s of small files, their max/min size, directories, I/O chunk; 0 skips the file tests"},
			&cli.StringFlag{Name: "machine", Aliases: []string{"m"}, Usage: "machine name for the report (default: host name)"},
			&cli.StringFlag{Name: "ram", Aliases: []string{"r"}, Usage: "RAM in MiB for the 2x-RAM size rule, which holds only with --no-evict or where the page cache cannot be dropped (default: detected, the smaller of physical RAM and the cgroup limit); 0 disables the rule"},
			&cli.IntFlag{Name: "iterations", Aliases: []string{"x"}, DefaultText: "not set: text tables, then one CSV line", Usage: "run the suite N times and print only CSV (a header first when N > 1)"},
			&cli.StringFlag{Name: "per-char", Usage: "MiB for the per-char tests (bonnie++ -fN); 0 skips them (bonnie++ -f)"},
			&cli.BoolFlag{Name: "fast", Usage: "skip the per-char tests (bonnie++ -f)"},
			&cli.BoolFlag{Name: "sync", Aliases: []string{"b"}, Usage: "no write buffering: fsync after every write, create and delete"},
			&cli.BoolFlag{Name: "direct", Aliases: []string{"D"}, Usage: "O_DIRECT for the big file's block phases (chunk must be a multiple of 4k)"},
			&cli.StringFlag{Name: "seed", Aliases: []string{"z"}, Usage: "seed for glibc-compatible rand(): same names, sizes and seek offsets as bonnie++ -z"},
			&cli.StringFlag{Name: "seed-file", Aliases: []string{"Z"}, Usage: "draw the random numbers from `FILE` (big-endian 32-bit numbers, cycled), as bonnie++ -Z"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress; text tables to stderr, CSV alone on stdout"},
			&cli.IntFlag{Name: "concurrency", Aliases: []string{"c"}, Value: 1, Usage: "run N copies of every test at once and report the aggregate"},
			&cli.StringFlag{Name: "user", Aliases: []string{"u"}, Usage: "user[:group] to run as when started as root (not required)"},
			&cli.StringFlag{Name: "group", Aliases: []string{"g"}, Usage: "group to run as when started as root"},
			&cli.StringFlag{Name: "json", Usage: "write the full result, with its provenance, to `FILE` (- for stdout; a file is replaced atomically, a device or FIFO written in place)"},
			&cli.BoolFlag{Name: "percentiles", Usage: "after the tables, print each test's latency distribution (min, mean, p50, p90, p99, p99.9, max)"},
			&cli.BoolFlag{Name: "random-data", Usage: "write incompressible data instead of bonnie++'s near-zero blocks"},
			&cli.BoolFlag{Name: "no-evict", Usage: "do not drop the big file from the page cache before read phases"},
			&cli.BoolFlag{Name: "creation-order", Usage: "the sequential stat and delete visit the files by name in the order they were made, as mdtest does, instead of bonnie++'s readdir order (hash order on ext4); recorded, and a run with it is not compared with one without"},
			&cli.Float64Flag{Name: "stonewall", Usage: "mdtest's -W: each create phase stops after `SECONDS` (or once a worker has made all its files), then every worker makes files up to the most any made, so later phases see equal trees; the JSON and a line below the tables give the stonewall rate"},
			&cli.StringFlag{Name: "auto", Usage: "--auto[=BUDGET]: pick -s, its seek count, -f and -n so every test runs about a second here, within the free space and inodes and about BUDGET of wall time (default 2m), after short uncounted calibration runs; a later --auto run on this host and directory reuses the sizes in the history; sizes given with -s, -f or -n are kept; the 2x-RAM rule is off unless -r is given"},
			&cli.BoolFlag{Name: "cleanup", Usage: "remove what killed clyde runs left in -d, then exit"},
			&cli.BoolFlag{Name: "force", Usage: "with --cleanup: also remove what runs on other hosts left (a shared filesystem)"},
			&cli.StringFlag{Name: "p", Hidden: true},
			&cli.StringFlag{Name: "y", Hidden: true},
		}, append(jobFlags(), keepFlags()...)...),
		Action: noArgs(fsAction),
	}
}

// autoDefault is what a bare --auto stands for.
const autoDefault = "default"

// rewriteBonnieArgs turns bonnie++'s getopt-only spellings into flags the
// parser knows: -fN (argument attached) and bare -f.
func rewriteBonnieArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case a == "-f":
			out = append(out, "--fast")
		case a == "--auto" || a == "-auto":
			// --auto without a budget; urfave/cli's flags need a value.
			out = append(out, "--auto="+autoDefault)
		case strings.HasPrefix(a, "-f") && len(a) > 2 && a[2] >= '0' && a[2] <= '9':
			out = append(out, "--per-char", a[2:])
		default:
			out = append(out, a)
		}
	}
	return out
}

// fsOptions turns the flags into engine options; every malformed value is a
// usage error naming its flag.
func fsOptions(c *cli.Context) (fsbench.Options, error) {
	o := fsbench.DefaultOptions()
	if c.IsSet("p") || c.IsSet("y") {
		return o, result.Usagef("-p/-y", "semaphore-synchronised bonnie++ processes are not needed: use -c N, which runs N copies of every test at once")
	}
	o.Dir = c.String("dir")
	if c.IsSet("size") {
		spec, err := fsbench.ParseSizeSpec(c.String("size"))
		if err != nil {
			return o, err
		}
		o.ApplySizeSpec(spec)
	}
	spec, err := fsbench.ParseFilesSpec(c.String("files"))
	if err != nil {
		return o, err
	}
	o.ApplyFilesSpec(spec)
	o.MachineName = c.String("machine")
	if c.IsSet("ram") {
		n, err := fsbench.ParseMiB(c.String("ram"))
		if err != nil {
			return o, result.Usagef("-r", "%v; want RAM in MiB (or with a unit), e.g. -r 1024 or -r 1g", err)
		}
		o.RAMMiB = n
	}
	if c.IsSet("iterations") {
		o.Iterations = c.Int("iterations")
		if o.Iterations < 1 {
			return o, result.Usagef("-x", "iterations must be 1 or more, got %d", o.Iterations)
		}
	}
	if c.Bool("fast") {
		o.ByteIOMiB = 0
	}
	if c.IsSet("per-char") {
		n, err := parseWhole(c.String("per-char"))
		if err != nil {
			return o, result.Usagef("-f", "%v; want -f (skip per-char) or -fN with N in MiB, e.g. -f20", err)
		}
		o.ByteIOMiB = n
	}
	o.SyncWrites = c.Bool("sync")
	o.Direct = c.Bool("direct")
	switch {
	case c.IsSet("seed") && c.IsSet("seed-file"):
		return o, result.Usagef("-Z", "-z and -Z both choose the random numbers; give one")
	case c.IsSet("seed-file"):
		nums, err := fsbench.ReadSeedFile(c.Context, c.String("seed-file"))
		if err != nil {
			return o, err
		}
		o.SeedNumbers, o.SeedFile, o.SeedSet = nums, c.String("seed-file"), true
	case c.IsSet("seed"):
		n, err := parseWhole(c.String("seed"))
		if err != nil || n > 1<<32-1 {
			return o, result.Usagef("-z", "seed must be a whole number from 0 to 4294967295, got %q", c.String("seed"))
		}
		o.Seed, o.SeedSet = uint32(n), true
	}
	o.Concurrency = c.Int("concurrency")
	o.RankShift = c.Int("rank-shift")
	o.SharedDir = c.Bool("shared-dir")
	o.Stonewall = time.Duration(c.Float64("stonewall") * float64(time.Second))
	o.RandomData = c.Bool("random-data")
	o.NoEvict = c.Bool("no-evict")
	o.CreationOrder = c.Bool("creation-order")
	o.CommandLine = os.Args
	if c.IsSet("auto") && !c.IsSet("ram") {
		// The read phases start from an evicted page cache, so the
		// sizes need not be twice RAM: --auto sizes for time instead.
		o.RAMMiB = 0
	}
	return o, o.Validate()
}

// autoRequest is --auto[=BUDGET]: the budget, and which sizes it may pick
// (those the command line did not give).
type autoRequest struct {
	budget time.Duration
	choose fsbench.Choose
}

// bound is --max-time's default under --auto=BUDGET, autoBoundFactor
// times the budget, and where it comes from; none without --auto.
func (req *autoRequest) bound() (time.Duration, string) {
	if req == nil {
		return 0, ""
	}
	return autoBoundFactor * req.budget, fmt.Sprintf("the default under --auto=%s: %d x the budget", roundDuration(req.budget), autoBoundFactor)
}

func autoFlag(c *cli.Context) (*autoRequest, error) {
	if !c.IsSet("auto") {
		return nil, nil
	}
	req := &autoRequest{budget: fsbench.DefaultAutoBudget, choose: fsbench.Choose{
		Size: !c.IsSet("size"), Seeks: !c.IsSet("size"),
		PerChar: !c.IsSet("size") && !c.Bool("fast") && !c.IsSet("per-char"), Files: !c.IsSet("files"),
	}}
	if v := c.String("auto"); v != autoDefault {
		d, err := time.ParseDuration(v)
		if err != nil || d < 5*time.Second || d > 7*24*time.Hour {
			return nil, result.Usagef("--auto", "want --auto or --auto=BUDGET with a wall time from 5s to 168h, such as --auto=5m, got %q", v)
		}
		req.budget = d
	}
	if !req.choose.Size && !req.choose.Files {
		return nil, result.Usagef("--auto", "-s and -n are both given, so there is nothing left for --auto to pick")
	}
	return req, nil
}

// autoChoose reuses the sizes of an earlier --auto run on this host and
// directory (from the history) or calibrates new ones (fsbench.Auto).
func autoChoose(c *cli.Context, kp *keeper, o fsbench.Options, req *autoRequest) (fsbench.AutoChoice, error) {
	earlier, err := kp.opts.Earlier(c.Context, "fs", sysinfo.Hostname(), 50)
	if err != nil {
		return fsbench.AutoChoice{}, fmt.Errorf("--auto: reading earlier sizes: %w", err)
	}
	for _, r := range earlier {
		if choice, ok := fsbench.AutoReuse(o, req.budget, req.choose, r.FS, r.Label); ok {
			return choice, nil
		}
	}
	if o.Progress != nil {
		fmt.Fprintln(o.Progress, "clyde: --auto: calibrating with short runs that are not counted...")
	}
	return fsbench.Auto(c.Context, o, req.budget, req.choose)
}

// parseWhole reads a whole number without a unit (internal/units), at most 2^40.
func parseWhole(s string) (int64, error) {
	n, err := units.Parse(s, nil)
	if err == nil && n > 1<<40 {
		err = fmt.Errorf("%q is too large", s)
	}
	return n, err
}

func fsAction(c *cli.Context) error {
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	if c.Bool("cleanup") {
		// The other flags are checked as for a run (an invalid one is
		// refused, not ignored), and -u drops privileges as a run would:
		// the cleanup removes what that user's runs left, as that user.
		if _, err := fsOptions(c); err != nil {
			return err
		}
		if err := switchUser(c.String("user"), c.String("group")); err != nil {
			return err
		}
		rep, err := fsbench.Cleanup(c.String("dir"), c.Bool("force"))
		for _, p := range rep.Removed {
			fmt.Fprintf(stdout, "removed %s\n", p)
		}
		for _, p := range rep.Skipped {
			fmt.Fprintf(stdout, "skipped %s\n", p)
		}
		if err == nil && len(rep.Removed) == 0 && len(rep.Skipped) == 0 {
			fmt.Fprintf(stdout, "nothing to clean up in %s\n", c.String("dir"))
		}
		return err
	}
	if c.Bool("force") {
		return result.Usagef("--force", "goes with --cleanup: it removes what runs on other hosts left")
	}
	o, err := fsOptions(c)
	if err != nil {
		return err
	}
	auto, err := autoFlag(c)
	if err != nil {
		return err
	}
	def, why := auto.bound()
	release, err := boundRun(c, def, why)
	if err != nil {
		return err
	}
	defer release()
	o.Behind = &fsbench.Behind{W: stderr}
	if note := dropDefaultHistory(c); note != "" {
		fmt.Fprintln(stderr, note)
	}
	if err := switchUser(c.String("user"), c.String("group")); err != nil {
		return err
	}
	// Many clients: every rank says hello with its options before any
	// file is made; ranks other than 0 keep no history and write no files.
	rj, err := startRanks(c, o)
	if err != nil {
		return err
	}
	if rj != nil {
		o.Phases = rj
		rj.jobSeed(&o)
		if rj.info.Rank != 0 {
			return rankAction(c, rj, o)
		}
	}
	kp, err := beginKeep(c)
	if err != nil {
		if rj != nil {
			rj.job.Abort(err)
			rj.release()
		}
		return err
	}
	defer kp.release()
	quiet, silent := c.Bool("quiet"), c.Bool("silent")
	// Progress is for a person watching: cron and pipes get none unless
	// CLYDE_PROGRESS=1 asks for it.
	if !quiet && !silent && (isTerminal(stderr) || os.Getenv("CLYDE_PROGRESS") == "1") {
		o.Progress = stderr
		o.Live = isTerminal(stderr)
		fmt.Fprintf(stderr, "Using uid:%d, gid:%d.\n", os.Geteuid(), os.Getegid())
	}
	if auto != nil {
		choice, err := autoChoose(c, kp, o, auto)
		if err != nil && stopped(err) {
			return fmt.Errorf("%w; --auto was still calibrating, so nothing was measured or kept", err)
		}
		if err != nil {
			return err
		}
		choice.Apply(&o)
		if !silent {
			fmt.Fprintln(stderr, "clyde: "+choice.Summary(o))
		}
	}
	ctx := c.Context
	if rj != nil {
		ctx = rj.ctx
	}
	res, runErr := fsbench.Run(ctx, o)
	if rj != nil {
		runErr = rj.finish(c.Context, res, runErr)
		if jobAborted(runErr) {
			return kp.noResult(stdout, runErr)
		}
	}
	if res == nil {
		return runErr
	}
	text, csv := stdout, stdout
	switch {
	case silent: // cron: nothing unless something is wrong
		text, csv = io.Discard, io.Discard
	case quiet:
		text = stderr // bonnie++ -q: tables to stderr, CSV alone on stdout
	}
	if err := fsreport.Write(text, csv, res, fsreport.Options{CSVOnly: c.IsSet("iterations"), Percentiles: c.Bool("percentiles")}); err != nil && runErr == nil {
		runErr = err
	}
	run := compare.FromFS(res)
	if err := kp.writeResult(stdout, run, runErr, func(w io.Writer) error { return result.EncodeJSON(w, res) }); err != nil {
		runErr = joinLine(runErr, err) // --json, checked before the run
	}
	return kp.after(c.Context, run, runErr)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && sysinfo.IsTerminal(f)
}

// joinLine adds err to prev on the same line: errors.Join would print two.
func joinLine(prev, err error) error {
	if prev == nil {
		return err
	}
	return fmt.Errorf("%w; %w", prev, err)
}

// dropDefaultHistory turns the history off, with the note it returns, when
// root runs as another user (-u) with the default history: that database
// is under root's HOME, which the user cannot write, and the run failed at
// its end. Opening it before dropping privileges would not do: SQLite
// writes its journal beside the database at every insert. --db PATH (a
// place the user can write) keeps the history.
func dropDefaultHistory(c *cli.Context) string {
	user := c.String("user")
	if user == "" || os.Geteuid() != 0 || c.String("db") != "" || c.Bool("no-history") {
		return ""
	}
	if err := c.Set("no-history", "true"); err != nil {
		return ""
	}
	return fmt.Sprintf("clyde: note: -u %s: the run is not added to the default history (under root's HOME, which %s cannot write); give --db PATH to keep it", user, user)
}
