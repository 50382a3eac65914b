// Package ioengine holds clyde's I/O engines behind one small interface, as
// fio's ioengine_ops: an engine takes I/O units (Queue), submits what it
// queued (Commit), and hands back completed units with their result
// (GetEvents, Event). It knows nothing of statistics, depth accounting,
// ramps, deadlines, pacing or what the next offset is: blockbench's core
// loop owns all of that and counts every engine's completions in one place.
//
// Each engine is one file here (or one per OS, with an _other.go that
// registers it as not supported), and registers itself by name in init, as
// a database/sql driver does. The package is internal: the interface is the
// core loop's contract with its engines, not an API clyde promises.
package ioengine

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// Op is what a unit does.
type Op uint8

// The operations. Trim, Sync and Datasync complete inside Queue on every
// engine that takes them (see Engine.Queue).
const (
	Read Op = iota
	Write
	Trim
	Sync
	Datasync
)

var opNames = [...]string{"read", "write", "trim", "fsync", "fdatasync"}

func (o Op) String() string { return opNames[o] }

// Unit is one I/O: what the core asks for, and the result the engine
// gives back. The core owns units and their buffers; an engine holds a
// queued unit, and must not touch its buffer once it has handed it back.
type Unit struct {
	Op   Op
	File int   // index into Config.Files (a volume's member); 0 otherwise
	Off  int64 // byte offset in that file
	// Buf is what a read fills and a write writes; its length is the
	// I/O's size (a trim's length too; a sync's is ignored).
	Buf []byte
	// N is the bytes the I/O moved (a short read past the end of a file
	// moves fewer than len(Buf)), Err why it failed; both set by the
	// engine when the unit completes.
	N   int
	Err error
	// Index is the unit's place among the core's units, from 0 to
	// Config.Depth-1, fixed for its life: an engine keeps its per-unit
	// state (an iocb, an OVERLAPPED) at that index. A sync unit's Index is
	// Config.Depth: it is never queued.
	Index int
}

// Status is what Queue did with a unit (fio's enum fio_q_status).
type Status uint8

const (
	// Completed: the unit is done, its N and Err set (a synchronous
	// engine; a trim or sync; a unit refused at once).
	Completed Status = iota
	// Queued: the engine holds the unit until GetEvents hands it back.
	// With FlagCommits it waits for Commit; without, Queue submitted it.
	Queued
)

// Engine is one worker's engine, made by its Driver's Open. Every method
// is called from the goroutine that opened it, except Close. Nothing in
// Queue, Commit, GetEvents or Event may allocate: they run once per I/O.
type Engine interface {
	// Queue takes u (fio's ->queue). A Read or Write either completes
	// (Completed) or is held (Queued); Trim, Sync and Datasync always
	// complete in the call, as fio's synchronous engines run them and as
	// clyde waits for posixaio's aio_fsync; an engine without them sets
	// Err to ErrNotSupported.
	Queue(u *Unit) Status
	// Commit submits what Queue queued, with one submit call (fio's
	// ->commit: one io_uring_enter or io_submit), and says how many units
	// that call took, in the order they were queued; the core calls it
	// again for the rest. ErrAgain: the kernel has no room now and took
	// none (reap, then commit again). Any other error: the call failed;
	// the engine holds none of the units it had not submitted. An engine
	// without FlagCommits returns 0, nil.
	Commit() (int, error)
	// GetEvents waits until at least min units have completed (0: does
	// not wait), never longer than a bound of its own (about 10 ms, so
	// the core looks at its clock), and takes up to max of them (fio's
	// ->getevents). It returns how many it took, maybe fewer than min
	// after a wait that timed out; an error means the engine failed.
	GetEvents(min, max int) (int, error)
	// Event is the i-th unit the last GetEvents took (fio's ->event),
	// its N and Err set.
	Event(i int) *Unit
	// Close releases the engine: what is still in flight is waited for
	// (or cancelled and waited for), so no buffer is written after it
	// returns. It does not close Config.Files.
	Close() error
}

// Flags are what the core needs to know of an engine to drive it (fio's
// FIO_* engine flags).
type Flags uint16

const (
	// FlagQueues: the engine keeps more than one unit in flight; one
	// without it runs at iodepth 1 (fio's FIO_SYNCIO).
	FlagQueues Flags = 1 << iota
	// FlagCommits: Queue leaves units for Commit to submit (io_uring,
	// libaio); without it Queue is the submission (posixaio's aio_read,
	// windowsaio's ReadFile), as fio's engines without ->commit.
	FlagCommits
	// FlagSyncAtDepth1: at iodepth 1 every unit completes in Queue, no
	// submission stage apart (fio's null sets FIO_SYNCIO there).
	FlagSyncAtDepth1
	// FlagOneInFlight: above iodepth 1 the engine holds one unit at a
	// time, reaped before the next is queued (fio's null with the default
	// iodepth_batch: its queue is busy until getevents took the one
	// committed), so every unit is at depth 1.
	FlagOneInFlight
	// FlagReapsAll: a reap takes every completion waiting, not fio's one
	// per reap (windowsaio's GetQueuedCompletionStatusEx, posixaio's
	// aio_error scan), unless the job says iodepth_batch_complete_max.
	FlagReapsAll
	// FlagReapsAllUnderAuto: as FlagReapsAll when auto picked the engine;
	// named, it reaps as fio's engine of that name (io_uring).
	FlagReapsAllUnderAuto
	// FlagOverlapped: the files must be opened for overlapped I/O.
	FlagOverlapped
	// FlagNoData: the engine's I/O moves no bytes (fio's falloc and
	// ftruncate: a call on the block's range stands for it); a read
	// leaves its buffer as it was, and N is the block's length, as fio
	// counts it. The conformance test holds such an engine to its own
	// contract rather than to bytes at offsets.
	FlagNoData
	// FlagTrims: the engine runs a trim its own way, on any file (falloc
	// punches a hole), rather than the core running it as psync's
	// BLKDISCARD on a block device.
	FlagTrims
	// FlagDiskless: the engine opens no file (fio's FIO_DISKLESSIO: null,
	// cpuio); a job on it has no target.
	FlagDiskless
	// FlagNoIO: the engine's units are no I/O at all (fio's FIO_NOIO:
	// cpuio burns CPU): the core hands it units of no bytes, counts each
	// as a read of 0 bytes, as fio does, and runs the job until its
	// runtime ends, since its bytes never reach a size.
	FlagNoIO
)

// Thinker is an engine that asks for a pause after each unit completes
// (cpuio: the idle share of its cpuload, from how long the unit burnt),
// as fio's engines set thinktime; the core waits max(Think, the job's own
// pacing) there.
type Thinker interface {
	Think() time.Duration
}

// Config is what an engine is opened for: one worker's files and queue.
type Config struct {
	// Files are the worker's descriptors (a volume's members; one
	// otherwise; none for a diskless engine). The core opens and closes
	// them.
	Files []osio.File
	// Depth is the most units the core keeps queued or in flight.
	Depth int
	// Offset and Size are the worker's region of Files[0] (what mmap
	// maps); Reads and Writes the directions it will issue; Random
	// whether its offsets are drawn at random; Hint fio's fadvise_hint.
	Offset, Size  int64
	Reads, Writes bool
	Random, Hint  bool
	// Direct is O_DIRECT on the files.
	Direct bool
	// Auto says auto picked the engine: it may run its own best way
	// rather than as fio's engine of its name (io_uring polls before it
	// sleeps).
	Auto bool
	// Options are the engine's own options the job set (fio's per-engine
	// options: cpuio's cpuload), by name; Driver.Options lists them.
	Options map[string]string
	// Name and Runtime are the job's name and runtime (exec expands them
	// in its arguments as fio's %n and %r, and stops its program at the
	// runtime).
	Name    string
	Runtime time.Duration
}

// Job is what a driver's Check and Note look at.
type Job struct {
	Name string
	// SizesMultipleOf says whether every I/O size of the job is a
	// multiple of n.
	SizesMultipleOf func(n int64) bool
	Direct          bool
	// Syncs is fsync= or fdatasync= set; Volume a job over several files.
	Syncs, Volume bool
	// Reads, Writes and Trims are the directions the job issues.
	Reads, Writes, Trims bool
	// Options are the engine's own options the job set, as Config's.
	Options map[string]string
}

// Driver is one engine as the registry holds it: fio's ioengine_ops
// without the per-I/O hooks, which Open's Engine has.
type Driver struct {
	Name  string
	Flags Flags
	// Available says why the engine cannot run here; nil when it can.
	Available func() error
	// Open readies one worker's engine on the worker's goroutine, before
	// the common start (an engine may lock the goroutine to its thread:
	// io_uring's ring takes submissions from one thread only).
	Open func(c Config) (Engine, error)
	// Check, when set, refuses a job the engine cannot run (fio's engine
	// init refusing it), before anything is created.
	Check func(j Job) error
	// Note, when set, is what the result says of the engine for the job
	// (what it is, when that is not what its name says).
	Note func(j Job) string
	// Options are the names of the engine's own options (fio's
	// ioengine_ops.options), which a job file may set for a job on this
	// engine; Check holds their values.
	Options []string
}

// EngineOption says whether name is an option of some registered engine.
func EngineOption(name string) bool {
	registryMu.Lock()
	defer registryMu.Unlock()
	for _, d := range registry {
		if slices.Contains(d.Options, name) {
			return true
		}
	}
	return false
}

// Has says whether the driver has flag f.
func (d *Driver) Has(f Flags) bool { return d.Flags&f != 0 }

// ErrNotSupported is an engine, or an operation, this platform or engine
// does not have: result.ErrNotSupported, which callers test for.
var ErrNotSupported = result.ErrNotSupported

// ErrAgain is Commit's "the kernel has no room now" (EAGAIN, EBUSY).
var ErrAgain = errors.New("the kernel has no room for more I/O now")

// notSupported is an engine's refusal on a platform without it.
func notSupported(format string, args ...any) error {
	return fmt.Errorf(format+": %w", append(args, ErrNotSupported)...)
}

var (
	registryMu sync.Mutex
	registry   = map[string]*Driver{}
)

// Register adds a driver; a second one of the same name is a bug.
func Register(d *Driver) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[d.Name]; dup || d.Open == nil || d.Available == nil {
		panic("ioengine: Register of " + d.Name + " twice or without Open and Available")
	}
	registry[d.Name] = d
}

// Lookup finds a registered driver by name.
func Lookup(name string) (*Driver, bool) {
	registryMu.Lock()
	defer registryMu.Unlock()
	d, ok := registry[name]
	return d, ok
}

// Drivers are every registered driver, by name.
func Drivers() []*Driver {
	registryMu.Lock()
	defer registryMu.Unlock()
	ds := make([]*Driver, 0, len(registry))
	for _, d := range registry {
		ds = append(ds, d)
	}
	slices.SortFunc(ds, func(a, b *Driver) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return ds
}

// fileSync is a Sync or Datasync unit on a descriptor, for the engines
// whose sync is the system call itself.
func fileSync(f osio.File, op Op) error {
	if op == Datasync {
		return f.Datasync()
	}
	return f.Sync()
}
