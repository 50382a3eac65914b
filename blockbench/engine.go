package blockbench

import (
	"fmt"
	"strconv"

	"github.com/clydebench/clyde/internal/ioengine"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// engine is one of internal/ioengine's registered engines as a workload
// runs it: the core loop (loop.go) drives it; it only moves bytes.
type engine struct{ d *ioengine.Driver }

func (e engine) name() Engine { return Engine(e.d.Name) }

// queues says whether the engine keeps more than one I/O in flight per
// worker; one that does not runs every workload at depth 1.
func (e engine) queues() bool { return e.d.Has(ioengine.FlagQueues) }

// trimsItself says whether the engine runs a trim its own way on any file
// (falloc punches a hole) rather than as psync's BLKDISCARD on a device.
func (e engine) trimsItself() bool { return e.d.Has(ioengine.FlagTrims) }

// available says why the engine cannot run here; nil when it can.
func (e engine) available() error { return e.d.Available() }

// autoEngines are the engines auto picks from, in the order it prefers
// them. The others (fio's null, mmap and posixaio) run only when a
// workload names them: they measure something else than the device's
// queue, so auto, and a caller looking for a queueing engine to stand in
// for another, never take them.
var autoEngines = []Engine{EngineIOUring, EngineWindowsAIO, EngineLibaio, EnginePsync}

// splitsAt says whether the engine's I/O has a submission stage apart from
// its completion (slat and clat reported apart) at depth: every queueing
// engine, except one that runs synchronously at depth 1 as fio's null
// does.
func splitsAt(e engine, depth int) bool {
	return e.queues() && !(depth <= 1 && e.d.Has(ioengine.FlagSyncAtDepth1))
}

// engineOpenFlags are the open flags an engine needs on its workers'
// handles beyond read, write and direct (windowsaio: an overlapped handle).
func engineOpenFlags(e engine) osio.Flag {
	if e.d.Has(ioengine.FlagOverlapped) {
		return osio.Overlapped
	}
	return 0
}

// engineByName finds a registered engine; auto is resolved by pickEngine.
func engineByName(name Engine) (engine, bool) {
	d, ok := ioengine.Lookup(string(name))
	return engine{d}, ok
}

// pickEngine resolves a workload's engine: auto takes the first queueing
// engine available here when the depth is above 1, psync otherwise.
func pickEngine(name Engine, depth int) (engine, error) {
	if name == EngineAuto {
		if depth > 1 {
			if q, ok := QueueingEngine(); ok {
				e, _ := engineByName(q)
				return e, nil
			}
		}
		e, _ := engineByName(EnginePsync)
		return e, nil
	}
	e, ok := engineByName(name)
	if !ok {
		return engine{}, result.Usagef("--ioengine", "unknown engine %q", name)
	}
	if err := e.available(); err != nil {
		// A refusal before anything is created, as any other bad flag.
		return engine{}, result.Usagef("--ioengine", "%s: %v", name, err)
	}
	return e, nil
}

// QueueingEngine is the first engine available here that keeps more than
// one I/O in flight per worker (io_uring on Linux, windowsaio on Windows),
// for a caller that runs another tool's queueing engine as this one; false
// where there is none.
func QueueingEngine() (Engine, bool) {
	names := queueingEngines()
	if len(names) == 0 {
		return "", false
	}
	return Engine(names[0]), true
}

// queueingEngines names the engines auto may pick that keep more than one
// I/O in flight on this platform, in auto's order, for messages.
func queueingEngines() []string {
	var names []string
	for _, n := range autoEngines {
		if e, ok := engineByName(n); ok && e.queues() && e.available() == nil {
			names = append(names, string(n))
		}
	}
	return names
}

// engineJob is what the engine's own checks and note look at.
func engineJob(w *Workload) ioengine.Job {
	return ioengine.Job{Name: w.Name, SizesMultipleOf: w.sizesMultipleOf, Direct: w.Direct, Syncs: w.Fsync > 0 || w.Fdatasync > 0, Volume: w.Volume != nil,
		Reads: w.RW.Reads() || w.Verify != VerifyNone, Writes: w.RW.Writes() && !w.RW.Trims(), Trims: w.RW.Discards(), Options: w.EngineOptions}
}

// checkEngine holds the workload to the engine's own rules (mmap's block
// size), before anything is created.
func (w *workload) checkEngine() error {
	if w.engine.d.Check == nil {
		return nil
	}
	return w.engine.d.Check(engineJob(&w.Workload))
}

// engineNote is what the engine is, when it is not what its name says
// (posixaio); "" otherwise.
func (w *workload) engineNote() string {
	if w.engine.d.Note == nil {
		return ""
	}
	return w.engine.d.Note(engineJob(&w.Workload))
}

// reapsAll says whether a reap takes every completion waiting (up to the
// depth), whatever iodepth_batch_complete_max says: the engine's way
// (windowsaio, posixaio), or io_uring's under auto; fio's otherwise.
func reapsAll(w *workload) bool {
	return w.engine.d.Has(ioengine.FlagReapsAll) || (w.IOEngine == EngineAuto && w.engine.d.Has(ioengine.FlagReapsAllUnderAuto))
}

// reapMax is how many completions one reap takes when the workload does
// not batch: every one waiting up to the depth (reapsAll), the job's
// iodepth_batch_complete_max (capped at the depth), or fio's default, 1
// (fio's iodepth_batch_complete_max defaults to
// iodepth_batch_complete_min, 1: init.c and options.c).
func reapMax(w *workload) int {
	switch {
	case reapsAll(w):
		return w.depth
	case w.IODepthBatchCompleteMax > 0:
		return min(w.IODepthBatchCompleteMax, w.depth)
	}
	return fioReapMax
}

// fioReapMax is fio's iodepth_batch_complete_max by default.
const fioReapMax = 1

// echoEngineOption adds to the workload's job options the one fio option
// its engine runs with that fio's default would not say (io_uring under
// auto: its reap policy, every waiting completion up to the depth per reap,
// iodepth_batch_complete_max=iodepth), so the result records what ran.
func echoEngineOption(w *workload) {
	if w.IOEngine != EngineAuto || !w.engine.d.Has(ioengine.FlagReapsAllUnderAuto) {
		return
	}
	m := make(map[string]string, len(w.Options)+1) // Options may be shared by the job's clones
	for ok, ov := range w.Options {
		m[ok] = ov
	}
	m["iodepth_batch_complete_max"] = strconv.Itoa(w.depth)
	w.Options = m
}

// engineConfig is what the worker's engine is opened for.
func (w *worker) engineConfig(files []osio.File) ioengine.Config {
	s := w.spec
	return ioengine.Config{Files: files, Depth: s.depth, Offset: s.Offset, Size: s.Size,
		Reads: s.RW.Reads() || s.Verify != VerifyNone, Writes: s.RW.Writes(), Random: s.RW.Random(), Hint: s.FadviseHint,
		Direct: s.Direct, Auto: s.IOEngine == EngineAuto, Options: s.EngineOptions, Name: s.Name, Runtime: s.Runtime}
}

// openEngine opens e for the worker on its files: trims run on psync's
// BLKDISCARD whatever synchronous engine the workload names, unless the
// engine trims its own way (falloc's punched hole).
func (w *worker) openEngine(e engine) (ioengine.Engine, error) {
	d := e.d
	if w.spec.RW.Discards() && !e.trimsItself() {
		d, _ = ioengine.Lookup(string(EnginePsync))
	}
	files := w.hs
	if files == nil && w.h.Valid() {
		files = []osio.File{w.h}
	}
	eng, err := d.Open(w.engineConfig(files))
	if err != nil {
		return nil, fmt.Errorf("%s for worker %d: %w", e.name(), w.index, err)
	}
	return eng, nil
}
