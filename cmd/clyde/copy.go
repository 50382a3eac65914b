package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/copybench"
	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/copyreport"
	"github.com/clydebench/clyde/result"
)

func init() { commandList = append(commandList, copyCommand()) }

func copyCommand() *cli.Command {
	d := copybench.DefaultOptions()
	return &cli.Command{
		Name:  "copy",
		Usage: "file-copy test with CopySpdBench's sets: copies files and reports MB/s, files/s and per-file latency",
		UsageText: "clyde copy [-d dir] [--to dir2] [--set size:count,...] [--dirs n] [--method readwrite|copy_file_range|clone|all]\n" +
			"           [--bs size] [--buffer random|zero] [--no-fsync | --syncfs] [--json FILE] [-q]",
		Description: "Creates each set's source files (incompressible data), writes them back and evicts them from the\n" +
			"page cache, then copies them file by file: open, read, create, write, fsync, close. MB/s is 10^6\n" +
			"bytes/s. Every copy is checked against its source afterwards. Sizes are powers of 1024 (100m is\n" +
			"100 MiB). The default sets are CopySpdBench's: Copy 100Mx1, Copy 512Kx200, Copy 4Kx1000.\n\n" +
			"  clyde copy -d /mnt/ssd --json ssd.json\n" +
			"  clyde copy -d /mnt/ssd --to /mnt/hdd --method all",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "dir", Aliases: []string{"d"}, Value: d.Dir, Usage: "directory of the sources (and copies); clyde works in a private directory inside it"},
			&cli.StringFlag{Name: "to", Usage: "copy into this directory (another volume) instead, in a private directory of its own"},
			&cli.StringFlag{Name: "set", Value: copybench.DefaultSetSpec, Usage: "sets to copy, SIZE:COUNT,... (sizes in bytes or with k, m, g: powers of 1024)"},
			&cli.IntFlag{Name: "dirs", Value: d.Dirs, Usage: "spread each set's files over `N` directories"},
			&cli.StringFlag{Name: "method", Value: string(d.Method), Usage: "readwrite|copy_file_range|clone|all (all: each that works here, side by side)"},
			&cli.StringFlag{Name: "bs", Value: "1m", Usage: "readwrite's buffer: each read and write moves this much"},
			&cli.StringFlag{Name: "buffer", Value: string(d.Buffer), Usage: "source data: random (incompressible) or zero"},
			&cli.BoolFlag{Name: "no-fsync", Usage: "do not fsync the copies: count them once in the page cache, as a file manager does"},
			&cli.BoolFlag{Name: "syncfs", Usage: "instead of an fsync per copy, one syncfs of the destination at the end of each set (as cp; sync -f)"},
			&cli.StringFlag{Name: "seed", Usage: "seed of the sources' random data (default: a new one each run)"},
			&cli.StringFlag{Name: "json", Usage: "write the full result, with its provenance, to `FILE`"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress; the table to stderr, CSV alone on stdout"},
			&cli.BoolFlag{Name: "cleanup", Usage: "remove what killed clyde runs left in -d (and --to), then exit"},
			&cli.BoolFlag{Name: "force", Usage: "with --cleanup: also remove what runs on other hosts left (a shared filesystem)"},
		}, append(rankFlags(), keepFlags()...)...),
		Action: noArgs(copyAction),
	}
}

// copyOptions turns the flags into engine options; every malformed value
// is a usage error naming its flag.
func copyOptions(c *cli.Context) (copybench.Options, error) {
	o := copybench.DefaultOptions()
	var err error
	o.Dir, o.To = c.String("dir"), c.String("to")
	if o.Sets, err = copybench.ParseSets(c.String("set")); err != nil {
		return o, err
	}
	o.Dirs = c.Int("dirs")
	if o.Method, err = copybench.ParseMethod(c.String("method")); err != nil {
		return o, err
	}
	bs, err := copybench.ParseSize("--bs", c.String("bs"))
	if err != nil {
		return o, err
	}
	if bs < 1 || bs > copybench.MaxBlockBytes {
		return o, result.Usagef("--bs", "%q: give 1 byte to 64m", c.String("bs"))
	}
	o.BlockBytes = int(bs)
	if o.Buffer, err = copybench.ParseBuffer(c.String("buffer")); err != nil {
		return o, err
	}
	switch {
	case c.Bool("no-fsync") && c.Bool("syncfs"):
		return o, result.Usagef("--syncfs", "--no-fsync and --syncfs both say how copies reach the disk; give one")
	case c.Bool("no-fsync"):
		o.Sync = copybench.SyncNone
	case c.Bool("syncfs"):
		o.Sync = copybench.SyncFS
	}
	if s := c.String("seed"); s != "" {
		if o.Seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			return o, result.Usagef("--seed", "%q is not a whole number from 0 to 18446744073709551615", s)
		}
	} else {
		o.Seed = uint64(time.Now().UnixNano()) ^ uint64(os.Getpid())<<40
	}
	o.CommandLine = os.Args
	return o, o.Validate()
}

func copyAction(c *cli.Context) error {
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	if c.Bool("cleanup") {
		// The other flags are checked as for a run: an invalid one is
		// refused, not ignored.
		if _, err := copyOptions(c); err != nil {
			return err
		}
		dirs := []string{c.String("dir")}
		if to := c.String("to"); to != "" {
			dirs = append(dirs, to)
		}
		var errs error
		for _, dir := range dirs {
			rep, err := copybench.Cleanup(dir, c.Bool("force"))
			printCleanup(stdout, dir, rep)
			errs = joinLine(errs, err)
		}
		return errs
	}
	if c.Bool("force") {
		return result.Usagef("--force", "goes with --cleanup: it removes what runs on other hosts left")
	}
	o, err := copyOptions(c)
	if err != nil {
		return err
	}
	release, err := boundRun(c, 0, "")
	if err != nil {
		return err
	}
	defer release()
	// Many clients: every rank says hello with the copy before any file is
	// made; ranks other than 0 keep no history and write no files.
	cr, err := startCopyRanks(c, o)
	if err != nil {
		return err
	}
	ctx := c.Context
	if cr != nil {
		o.Phases, o.Sharers, ctx = cr, cr.rj.info.Size, cr.rj.ctx
		if cr.rj.info.Rank != 0 {
			return rankCopyAction(c, cr, o)
		}
	}
	kp, err := beginKeep(c) // checks --json too; copybench.Run locks -d and --to itself
	if err != nil {
		if cr != nil {
			cr.rj.job.Abort(err)
			cr.rj.release()
		}
		return err
	}
	defer kp.release()
	quiet := c.Bool("quiet")
	if !quiet && (isTerminal(stderr) || os.Getenv("CLYDE_PROGRESS") == "1") {
		o.Progress = stderr
	}
	res, runErr := copybench.Run(ctx, o)
	if cr != nil {
		runErr = cr.finish(c.Context, res, runErr)
		if jobAborted(runErr) {
			return kp.noResult(stdout, runErr)
		}
	}
	if res == nil {
		return runErr
	}
	// A run that failed before any set was copied has no table to print;
	// its JSON says what failed on standard output or a FIFO, and a --json
	// file keeps the previous run's (keeper.writeResult).
	if len(res.Results) > 0 {
		text := stdout
		if quiet {
			text = stderr
			if err := copyreport.CSV(stdout, res); err != nil {
				runErr = joinLine(runErr, fmt.Errorf("write CSV: %w", err))
			}
		}
		if err := copyreport.Text(text, res); err != nil {
			runErr = joinLine(runErr, fmt.Errorf("write report: %w", err))
		}
	}
	run := compare.FromCopy(res)
	if err := kp.writeResult(stdout, run, runErr, func(w io.Writer) error { return result.EncodeJSON(w, res) }); err != nil {
		runErr = joinLine(runErr, err) // --json, checked before the run
	}
	return kp.after(c.Context, run, runErr)
}

// printCleanup prints what a --cleanup removed and left in dir.
func printCleanup(w io.Writer, dir string, rep copybench.CleanupReport) {
	for _, p := range rep.Removed {
		fmt.Fprintf(w, "removed %s\n", p)
	}
	for _, p := range rep.Skipped {
		fmt.Fprintf(w, "skipped %s\n", p)
	}
	if len(rep.Removed) == 0 && len(rep.Skipped) == 0 {
		fmt.Fprintf(w, "nothing to clean up in %s\n", dir)
	}
}
