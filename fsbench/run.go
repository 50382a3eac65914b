package fsbench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/clydebench/clyde/internal/buildinfo"
	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/glibcrand"
	"github.com/clydebench/clyde/internal/lanes"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// MarkerName is the file inside every private run directory that lets
// Cleanup recognise a directory clyde made; nothing without it is touched.
const MarkerName = rundir.MarkerName

// PrivateDirPrefix starts the name of every private run directory.
const PrivateDirPrefix = rundir.Prefix

// copyState is one concurrent copy of the suite: its own directory, big file,
// random stream, buffers and latency recorders, touched only by its workers.
type copyState struct {
	index   int
	dir     osio.Dir // the copy's directory: the private directory or copy.NNN in it
	bigName []byte   // the big file's name in dir, NUL-terminated
	bigPath string   // the big file's path, for messages only
	testDir string   // name of the file-test directory inside dir
	rng     *glibcrand.Rand
	buf     []byte // chunk buffer, aligned for O_DIRECT
	pool    []byte // random data pool (RandomData)
	lat     []*latency.Recorder
	done    atomic.Int64 // operations finished in the current phase, for the live line

	file    osio.File   // the big file, while lane 0 of a phase has it open
	seekFDs []osio.File // one per seek lane, each opened on its lane's thread
	tickets []int32     // seek tickets; negative writes back
	names   *nameSet
	scanner *osio.Scanner
	// flushed says what the phase's closing flush covered (flush.go),
	// flushNs how long it took.
	flushed string
	flushNs int64
	// sharedTable[lane] is true when the lane's thread could not get a
	// descriptor table of its own (osio.IsolateThread), so what the lane
	// left open must be closed by the runner rather than by the kernel.
	sharedTable []bool
	// prefix starts every file name of the copy in a shared tree; nil in
	// a tree of its own.
	prefix []byte
	// peer is, with --rank-shift, the peer rank's copy directory and test
	// directory, whose files the stat and delete phases use while onPeer.
	peer   place
	onPeer bool
}

// place is a directory that holds a file-test directory.
type place struct {
	dir     osio.Dir
	testDir string
}

// at is where the copy's current file-test phase works.
func (c *copyState) at() place {
	if c.onPeer {
		return c.peer
	}
	return place{c.dir, c.testDir}
}

// runner holds one clyde fs run.
type runner struct {
	opts Options
	// stack is what the files are read through beneath their own page
	// cache (a FUSE filesystem's device, loop devices), decided once per
	// run; the read phases drop it too (evict).
	stack *pagecache.Stack
	// direct is the -D note (directCacheNote), decided once per run.
	direct  string
	private *rundir.Run
	copies  []*copyState
	prog    *progress
	// wall is the running create phase's stonewall (--stonewall), or nil.
	wall *wall
	// plainSync is set when a -b flush could not go through the drive's
	// cache (macOS without F_FULLFSYNC on the filesystem).
	plainSync atomic.Bool
}

// Run runs the bonnie++ suite as opts says. It returns what finished even when
// it fails or ctx is cancelled (the result is then marked Interrupted), and it
// always removes everything it created before returning.
func Run(ctx context.Context, opts Options) (*result.FS, error) {
	opts.Resolve()
	if err := opts.validateResolved(); err != nil {
		return nil, err
	}
	if _, ok := opts.Phases.(Shifter); opts.RankShift > 0 && !ok {
		return nil, result.Usagef("--rank-shift", "a rank shift needs a many-client job (mpiexec, srun or --ranks)")
	}
	if _, ok := opts.Phases.(Sharer); opts.SharedDir && !ok {
		return nil, result.Usagef("--shared-dir", "a shared tree needs a many-client job (mpiexec, srun or --ranks)")
	}
	if err := Preflight(&opts); err != nil {
		return nil, err
	}
	// A job's ranks share Dir: the caller locks it.
	pp, err := rundir.OpenParent("-d", opts.Dir, opts.Phases == nil)
	if err != nil {
		return nil, err
	}
	defer pp.Close()
	if pp.NoLock != nil && opts.Progress != nil {
		fmt.Fprintf(opts.Progress, "clyde: warning: no run lock: %v\n", pp.NoLock)
	}
	parent := pp.Dir
	r := &runner{opts: opts, prog: newProgress(opts.Progress, opts.Live)}
	cmdline := opts.CommandLine
	if cmdline == nil {
		cmdline = os.Args
	}
	res := &result.FS{
		SchemaVersion: result.SchemaVersion,
		Kind:          "fs",
		Provenance:    sysinfo.NewProvenance(cmdline, buildinfo.Version(), buildinfo.Commit(), opts.Dir),
		Config:        opts.config(),
		Room:          RoomOf(opts.Dir),
	}
	if !opts.NoEvict && !opts.fileOnly {
		r.stack = pagecache.StackOf(opts.Dir, res.Provenance.Filesystem)
		defer r.stack.Close()
	}
	r.direct = directCacheNote(&opts)
	if err := r.makePrivateDir(ctx, parent); err != nil {
		return res, err
	}
	if opts.RankShift > 0 && !opts.SharedDir { // a shared tree holds the peer's files already
		if err := r.openPeer(ctx, parent); err != nil {
			return res, r.abandon(err)
		}
	}
	// Every path below ends at the one Remove that reports its error; a
	// panic would end the whole process, so no deferred copy of it.
	err = r.runIterations(ctx, res)
	if err != nil {
		if ctx.Err() != nil {
			res.Interrupted = true
			err = lanes.Interrupted(ctx, err)
		}
		res.Error = err.Error()
	}
	res.CacheNote = r.cacheNote(res)
	res.MaxRSSBytes, _ = cpuclock.MaxRSS()
	r.closeCopyDirs()
	if sh := r.sharer(); sh != nil && sh.SharedRank() == 0 {
		sh.Quiesce() // the tree is every rank's until each is done
	}
	if rmErr := r.private.Remove(); rmErr != nil {
		// A read-only or failing filesystem keeps the files: say so even
		// when the run already failed, and how to remove them later.
		left := fmt.Errorf("cleanup: %w; remove what is left with clyde fs --cleanup -d %s", rmErr, r.opts.Dir)
		if err == nil {
			err = left
		} else {
			err = fmt.Errorf("%w; %v", err, left)
		}
	}
	return res, err
}

func (o *Options) config() result.FSConfig {
	return result.FSConfig{
		Dir: o.Dir, MachineName: o.MachineName, FileSizeMiB: o.SizeMiB, ChunkBytes: o.ChunkBytes,
		Seeks: o.Seeks, SeekProcs: o.SeekProcs, ByteIOMiB: o.ByteIOMiB, FilesK: o.FilesK,
		MaxFileBytes: o.MaxFileBytes, MinFileBytes: o.MinFileBytes, Dirs: o.Dirs, FileChunk: o.FileChunk,
		Concurrency: o.Concurrency, RAMMiB: o.RAMMiB, Seed: o.Seed, SeedFile: o.SeedFile, SyncWrites: o.SyncWrites,
		Direct: o.Direct, RandomData: o.RandomData, Iterations: o.Iterations, SkipEviction: o.NoEvict,
		LinkMode: o.linkMode(), CompatVersion: o.CompatVersion, Auto: o.Auto, VisitOrder: o.visitOrder(),
	}
}

// visitOrder is FSConfig.VisitOrder.
func (o *Options) visitOrder() string {
	if o.CreationOrder || o.SharedDir {
		return "creation"
	}
	return ""
}

// newRand is bonnie++'s random stream for one copy: the -Z numbers when
// given, else glibc's rand() seeded with -z.
func (o *Options) newRand() *glibcrand.Rand {
	if len(o.SeedNumbers) > 0 {
		return glibcrand.NewSequence(o.SeedNumbers)
	}
	return glibcrand.New(o.Seed)
}

// makePrivateDir creates the private run directory in parent and, with -c,
// a directory per copy inside it. With --shared-dir every rank and copy
// works in rank 0's (makeSharedDir).
func (r *runner) makePrivateDir(ctx context.Context, parent osio.Dir) error {
	var priv *rundir.Run
	var err error
	base := fmt.Sprintf("Bonnie.%d", os.Getpid())
	if sh := r.sharer(); sh != nil {
		priv, base, err = r.makeSharedDir(ctx, parent)
	} else {
		priv, err = rundir.Create(parent, strings.Join(os.Args, " "))
	}
	if err != nil {
		return err
	}
	r.private = priv
	for i := range r.opts.Concurrency {
		dir := priv.Dir
		if r.opts.Concurrency > 1 && !r.opts.SharedDir {
			name := osio.Name(fmt.Sprintf("copy.%03d", i))
			if err := priv.Dir.Mkdir(name, 0o700); err != nil {
				return r.abandon(fmt.Errorf("make copy directory: %w", err))
			}
			if dir, err = priv.Dir.OpenSubdir(name); err != nil {
				return r.abandon(fmt.Errorf("open copy directory: %w", err))
			}
		}
		big := fmt.Sprintf("Bonnie.%d", os.Getpid())
		if r.opts.SharedDir { // one directory for every worker's big file
			big = fmt.Sprintf("Bonnie.%d.%d", os.Getpid(), i)
		}
		c := &copyState{
			index:       i,
			dir:         dir,
			bigName:     osio.Name(big),
			bigPath:     dir.Path() + "/" + big,
			testDir:     base,
			rng:         r.opts.newRand(),
			buf:         osio.AlignedBuffer(max(r.opts.ChunkBytes, r.opts.FileChunk)),
			file:        osio.NoFile,
			scanner:     osio.NewScanner(),
			sharedTable: make([]bool, max(1, r.opts.SeekProcs)),
		}
		if sh := r.sharer(); sh != nil {
			c.prefix = workerPrefix(sh.SharedRank(), i)
		}
		if r.opts.RandomData {
			c.pool = randomPool(r.opts.Seed, i, max(r.opts.ChunkBytes, r.opts.FileChunk))
		}
		r.copies = append(r.copies, c)
	}
	return nil
}

// abandon removes a private directory that could not be finished.
func (r *runner) abandon(err error) error {
	r.closeCopyDirs()
	if sh := r.sharer(); sh != nil && sh.SharedRank() == 0 {
		sh.Quiesce()
	}
	if rmErr := r.private.Remove(); rmErr != nil {
		return fmt.Errorf("%w; cleanup: %v", err, rmErr)
	}
	return err
}

// closeCopyDirs closes the copy directories' descriptors (the private
// directory's own is closed by its Remove).
func (r *runner) closeCopyDirs() {
	for _, c := range r.copies {
		if c.peer.dir.Valid() {
			_ = c.peer.dir.Close()
			c.peer.dir = osio.Dir{}
		}
		if r.opts.Concurrency > 1 && !r.opts.SharedDir {
			_ = c.dir.Close()
		}
	}
}

func (r *runner) runIterations(ctx context.Context, res *result.FS) error {
	for it := range r.opts.Iterations {
		run := result.FSRun{Iteration: it + 1, Seed: r.opts.Seed}
		for t := range run.Tests {
			run.Tests[t].Test = result.FSTest(t)
			run.Tests[t].Finish()
		}
		for _, c := range r.copies {
			c.rng.Reset()
		}
		err := r.runSuite(ctx, &run)
		if r.plainSync.Load() {
			for t := range run.Tests {
				if run.Tests[t].Ran {
					run.Tests[t].Notes = append(run.Tests[t].Notes,
						"-b: the filesystem refused F_FULLFSYNC, so the flushes were fsync(2), which leaves the drive's write cache unflushed")
				}
			}
		}
		res.Runs = append(res.Runs, run)
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *runner) runSuite(ctx context.Context, run *result.FSRun) error {
	if r.opts.SizeMiB > 0 {
		if err := r.runIOTests(ctx, run); err != nil {
			r.removeBigFiles()
			return err
		}
	}
	if r.opts.FilesK > 0 {
		if err := r.runFileTests(ctx, run); err != nil {
			return err
		}
	}
	return nil
}

// phaseFuncs are one phase's steps. setup runs per copy in the calling
// goroutine (random draws, page-cache eviction); then each copy's lanes (one,
// or one per seek worker) each run prepare on their own OS thread, wait for
// the common start, and run work, which is timed and returns the operations
// and bytes it did. after runs per copy once every lane finished, untimed.
type phaseFuncs struct {
	test    result.FSTest
	lanes   func(c *copyState) int // nil: one lane per copy
	setup   func(c *copyState) error
	prepare func(c *copyState, lane int) error
	work    func(ctx context.Context, c *copyState, lane int) (ops, bytes int64, err error)
	after   func(c *copyState) error
}

// runPhase prepares every lane, starts all of them together, times them as
// one measurement (internal/lanes) and merges their latencies.
func (r *runner) runPhase(ctx context.Context, run *result.FSRun, p phaseFuncs) error {
	tr := &run.Tests[p.test]
	var ls []lanes.Lane
	type counted struct{ ops, bytes int64 }
	var counts []*counted
	for _, c := range r.copies {
		n := 1
		if p.lanes != nil {
			n = p.lanes(c)
		}
		c.lat = fitRecorders(c.lat, n)
		for _, l := range c.lat {
			l.Reset()
		}
		c.done.Store(0)
		if p.setup != nil {
			if err := p.setup(c); err != nil {
				return fmt.Errorf("%s: prepare: %w", p.test.Phase(), err)
			}
		}
		for lane := range n {
			cnt := &counted{}
			counts = append(counts, cnt)
			ls = append(ls, lanes.Lane{
				Prepare: func() error {
					// Each lane runs on its own thread with a
					// descriptor table of its own, as each of
					// bonnie++'s seek threads has its own kernel
					// thread and nothing else.
					c.sharedTable[lane] = !osio.IsolateThread()
					if p.prepare != nil {
						return p.prepare(c, lane)
					}
					return nil
				},
				Work: func(ctx context.Context, _ time.Time) error {
					var err error
					cnt.ops, cnt.bytes, err = p.work(ctx, c, lane)
					return err
				},
				Lat: []*latency.Recorder{c.lat[lane]},
			})
		}
	}
	// The last phase's garbage (its merged histogram and encoder, the
	// previous name set) is collected here, outside the timing, as
	// testing.B does before a benchmark: no collection of it inside this
	// phase, and the heap does not grow to twice what the run holds.
	runtime.GC()
	if r.opts.Phases != nil {
		if err := r.opts.Phases.Before(ctx, run.Iteration, p.test, r.doneOps); err != nil {
			return fmt.Errorf("%s: %w", p.test.Phase(), err)
		}
	}
	total := r.expectedOps(p.test) * int64(len(r.copies))
	stopWatch := r.watchBehind(ctx, p.test, tr, total)
	out, err := lanes.Run(ctx, ls, lanes.Options{Started: func() { r.prog.start(p.test, r.copies, total) }})
	stopWatch()
	if err != nil {
		return fmt.Errorf("%s: %w", p.test.Phase(), err)
	}
	for _, n := range counts {
		tr.Ops += n.ops
		tr.Bytes += n.bytes
	}
	r.prog.stop(out.Err == nil)
	tr.Ran = out.Err == nil
	tr.ElapsedNs = int64(out.Sample.Elapsed)
	tr.CPUUserNs = int64(out.Sample.CPU.User)
	tr.CPUSysNs = int64(out.Sample.CPU.Sys)
	tr.CPUKnown = out.Sample.CPUKnown
	if !p.test.IsIO() {
		// What the file test's closing flush covered and took, known
		// before the phase's result goes to the other ranks (After).
		tr.Flush = r.copies[0].flushed
		for _, c := range r.copies {
			tr.FlushNs = max(tr.FlushNs, c.flushNs)
		}
	}
	tr.Latency = out.Lat[0][0].Summary()
	tr.Interrupted = out.Err != nil && ctx.Err() != nil
	tr.Finish()
	if out.Err != nil {
		return fmt.Errorf("%s: %w", p.test.Phase(), out.Err)
	}
	if r.opts.Phases != nil {
		if err := r.opts.Phases.After(ctx, run.Iteration, p.test, tr); err != nil {
			return fmt.Errorf("%s: %w", p.test.Phase(), err)
		}
	}
	if p.after != nil {
		for _, c := range r.copies {
			if err := p.after(c); err != nil {
				return fmt.Errorf("%s: %w", p.test.Phase(), err)
			}
		}
	}
	return nil
}

// fitRecorders gives a phase of n lanes n empty-able recorders: one for
// the sequential phases, one per seek lane. Each holds a 0.6 MiB
// histogram, so the seek lanes' are dropped again once a phase of one
// lane follows.
func fitRecorders(lat []*latency.Recorder, n int) []*latency.Recorder {
	for len(lat) < n {
		lat = append(lat, latency.New())
	}
	clear(lat[n:])
	return lat[:n]
}

// checkEveryOps is how many operations a loop does between cancellation checks
// and live-progress updates.
const checkEveryOps = 256

// opClock ends each operation of a sequential loop: it records the time since
// the previous operation ended (one clock read per operation), and every
// checkEveryOps operations publishes the count for the live line and reports
// cancellation.
type opClock struct {
	ctx  context.Context
	c    *copyState
	lat  *latency.Recorder
	prev int64
}

// startOps begins timing lane 0 of copy c.
func startOps(ctx context.Context, c *copyState) opClock {
	return opClock{ctx: ctx, c: c, lat: c.lat[0], prev: cpuclock.Nanotime()}
}

// done ends operation number n (counting from 0); it returns ctx's error
// once the phase is cancelled.
func (k *opClock) done(n int64) error {
	now := cpuclock.Nanotime()
	k.lat.Record(time.Duration(now - k.prev))
	k.prev = now
	if n%checkEveryOps == 0 {
		k.c.done.Store(n)
		if lanes.Stopped(k.ctx) {
			return k.ctx.Err()
		}
	}
	return nil
}
