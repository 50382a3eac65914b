package copybench

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"

	"github.com/clydebench/clyde/internal/buildinfo"
	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/lanes"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// side is one directory of the run: the source side (-d) or the
// destination side (--to). Without --to the runner uses one side for both.
type side struct {
	flag   string // "-d" or "--to", for messages
	path   string
	parent *rundir.Parent
	run    *rundir.Run
	fsType string
	// stack is what the side's files are read through beneath their own
	// page cache (a FUSE filesystem's device, loop devices), decided once
	// per run: the sources' eviction drops it too (evictSources).
	stack *pagecache.Stack
}

// runner holds one clyde copy run.
type runner struct {
	opts     Options
	src, dst *side
	buf      []byte // readwrite's buffer
	gen      []byte // source data and verification buffer
	lat      *latency.Recorder
	prog     *progress
	runnable []Method
	clock    func() int64
	cpu      func() (cpuclock.Usage, error)
	// step counts the timed copies for Phases; copied is the running
	// step's files so far, read by another goroutine.
	step   int
	copied atomic.Int64
}

// Run copies every set with every method opts asks for. A refused run
// (bad options, a method the directories cannot do) returns nil and a
// *result.UsageError, with nothing left behind. A run that fails or is
// cancelled returns what finished, marked Interrupted when ctx ended it.
// Both private directories are always removed before Run returns.
func Run(ctx context.Context, opts Options) (*result.Copy, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := Preflight(&opts); err != nil {
		return nil, err
	}
	r := &runner{opts: opts, lat: latency.New(), prog: &progress{w: opts.Progress},
		clock: cpuclock.Nanotime, cpu: cpuclock.ProcessCPU}
	if opts.clock != nil {
		r.clock = opts.clock
	}
	if opts.cpu != nil {
		r.cpu = opts.cpu
	}
	defer r.closeSides()
	if err := r.openSides(); err != nil {
		return nil, err
	}
	res := &result.Copy{
		SchemaVersion: result.SchemaVersion,
		Kind:          "copy",
		Provenance:    sysinfo.NewProvenance(commandLine(opts.CommandLine), buildinfo.Version(), buildinfo.Commit(), opts.Dir),
		Config:        opts.config(),
	}
	r.src.fsType = res.Provenance.Filesystem.Type
	r.src.stack = pagecache.StackOf(opts.Dir, res.Provenance.Filesystem)
	r.dst.fsType = r.src.fsType
	if opts.To != "" {
		fs, err := sysinfo.FilesystemOf(opts.To)
		if err != nil {
			fs = result.Filesystem{Path: opts.To}
		}
		res.ToFilesystem = &fs
		r.dst.fsType = fs.Type
	}
	if err := r.makePrivateDirs(); err != nil {
		return nil, r.removePrivateDirs(err)
	}
	// Every path below ends at the one removePrivateDirs that reports its
	// error.
	methods, err := r.probe(ctx)
	if err != nil {
		if ctx.Err() != nil {
			err = lanes.Interrupted(ctx, err)
		}
		return nil, r.removePrivateDirs(err)
	}
	res.Methods = methods
	r.buf = osio.AlignedBuffer(opts.BlockBytes)
	r.gen = osio.AlignedBuffer(genBytes)
	err = r.runSets(ctx, res)
	res.Notes = r.notes(res)
	if err != nil {
		if ctx.Err() != nil {
			res.Interrupted = true
			err = lanes.Interrupted(ctx, err)
		}
		res.Error = err.Error()
	}
	res.MaxRSSBytes, _ = cpuclock.MaxRSS()
	return res, r.removePrivateDirs(err)
}

// openSides opens -d (and --to) and takes the run lock on each, as clyde fs
// does on -d: a second run on either directory is refused and named.
func (r *runner) openSides() error {
	var err error
	shared := r.opts.Phases != nil
	if r.src, err = openSide("-d", r.opts.Dir, shared); err != nil {
		return err
	}
	r.dst = r.src
	if r.opts.To != "" {
		if r.dst, err = openSide("--to", r.opts.To, shared); err != nil {
			return err
		}
	}
	return nil
}

func openSide(flag, path string, shared bool) (*side, error) {
	// A job's ranks share the directory: the caller locks it. A
	// platform without such locks leaves the run unguarded.
	p, err := rundir.OpenParent(flag, path, !shared)
	if err != nil {
		return nil, err
	}
	return &side{flag: flag, path: path, parent: p}, nil
}

func (r *runner) closeSides() {
	for _, s := range r.sides() {
		_ = s.parent.Close()
		s.stack.Close()
	}
}

// sides lists the distinct sides, source first.
func (r *runner) sides() []*side {
	switch {
	case r.src == nil:
		return nil
	case r.dst == nil || r.dst == r.src:
		return []*side{r.src}
	}
	return []*side{r.src, r.dst}
}

func (r *runner) makePrivateDirs() error {
	cmd := strings.Join(r.opts.CommandLine, " ")
	if cmd == "" {
		cmd = strings.Join(os.Args, " ")
	}
	for _, s := range r.sides() {
		run, err := rundir.Create(s.parent.Dir, cmd)
		if err != nil {
			return fmt.Errorf("%s %s: %w", s.flag, s.path, err)
		}
		s.run = run
	}
	return nil
}

// removePrivateDirs removes both private directories and adds what could
// not be removed to err, with the command that removes it later.
func (r *runner) removePrivateDirs(err error) error {
	for _, s := range r.sides() {
		if s.run == nil {
			continue
		}
		if rmErr := s.run.Remove(); rmErr != nil {
			left := fmt.Errorf("cleanup: %w; remove what is left with clyde copy --cleanup -d %s", rmErr, s.path)
			if err == nil {
				err = left
			} else {
				err = fmt.Errorf("%w; %v", err, left)
			}
		}
		s.run = nil
	}
	return err
}

// where names the directories for messages: "ext4 at /mnt/a", or
// "ext4 at /mnt/a to btrfs at /mnt/b".
func (r *runner) where() string {
	at := func(s *side) string {
		if s.fsType == "" {
			return s.path
		}
		return s.fsType + " at " + s.path
	}
	if r.dst == r.src {
		return at(r.src)
	}
	return at(r.src) + " to " + at(r.dst)
}

// runSets copies each set with each runnable method: the set's sources are
// made once, and before each method they are evicted again and the
// previous method's copies removed.
func (r *runner) runSets(ctx context.Context, res *result.Copy) error {
	for si, set := range r.opts.Sets {
		src, err := r.makeSources(ctx, si, set)
		if err != nil {
			return fmt.Errorf("create %s sources: %w", set.Name(), err)
		}
		for _, m := range r.runnable {
			fig := result.CopyFigure{Set: set.Name(), Method: string(m)}
			err := r.copySet(ctx, si, set, m, src, &fig)
			fig.Interrupted = err != nil && ctx.Err() != nil
			fig.Finish()
			res.Results = append(res.Results, fig)
			if err != nil {
				return fmt.Errorf("copy %s with %s: %w", set.Name(), m, err)
			}
			if r.opts.Phases != nil {
				if err := r.opts.Phases.After(ctx, r.step, fig); err != nil {
					return err
				}
			}
			r.step++
		}
		if err := r.removeTree(r.src, src.root); err != nil {
			return fmt.Errorf("remove %s sources: %w", set.Name(), err)
		}
	}
	return nil
}

// removeTree removes a set's directory from a side's private directory and
// flushes the filesystem, so the next step's timing does not carry the
// removal's writeback.
func (r *runner) removeTree(s *side, name string) error {
	if err := s.run.Dir.RemoveAll(osio.Name(name)); err != nil {
		return err
	}
	_ = s.run.Dir.SyncFS()
	return nil
}

// notes explains what the figures mean where a reader could misread them.
func (r *runner) notes(res *result.Copy) []string {
	var notes []string
	switch r.opts.Sync {
	case SyncNone:
		notes = append(notes, "--no-fsync: a copy was counted once its data was in the page cache, not on the disk")
	case SyncFS:
		notes = append(notes, "--syncfs: one syncfs of the destination ends each set, inside the timed part (as cp followed by sync -f)")
	}
	if t := r.src.fsType; r.src.stack.Device() == "" && (strings.HasPrefix(t, "fuse") || strings.HasPrefix(t, "nfs") ||
		t == "cifs" || t == "smb3" || t == "9p" || t == "virtiofs") {
		notes = append(notes, "the sources are on "+t+": clyde dropped their pages here, but the server or FUSE daemon may keep them in a cache of its own")
	}
	var cloned, sharedCFR bool
	for _, f := range res.Results {
		cloned = cloned || f.Method == string(Clone) && f.Ran
		sharedCFR = sharedCFR || f.Method == string(CopyFileRange) && f.SharedFiles > 0
	}
	if cloned {
		notes = append(notes, "clone (FICLONE) makes each copy share the source's extents: no data is copied, so its times are not a copy rate")
	}
	if sharedCFR {
		notes = append(notes, "copy_file_range shared extents here: the kernel cloned rather than copied, so its times are not a copy rate")
	}
	return notes
}

// commandLine is what the provenance records: the caller's, else os.Args.
func commandLine(c []string) []string {
	if c == nil {
		return os.Args
	}
	return c
}
