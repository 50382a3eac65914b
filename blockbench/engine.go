package blockbench

import (
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// engine is one way of issuing I/O (fio's ioengine). Each lives in its own
// file; engines lists them all.
type engine interface {
	name() Engine
	// queues says whether the engine keeps more than one I/O in flight per
	// worker; one that does not runs every workload at depth 1.
	queues() bool
	// available says why the engine cannot run here; nil when it can.
	available() error
	// prepare readies one worker's issuing side (a ring, its buffers) on
	// the worker's own goroutine, before the common start.
	prepare(w *worker) (issuer, error)
}

// issuer issues one worker's I/O until the worker says stop. Every
// completion goes through worker.complete.
type issuer interface {
	run(w *worker)
	close()
}

// engines are the engines auto picks from, in the order it prefers them.
var engines = []engine{uringEngine{}, windowsAIOEngine{}, libaioEngine{}, psyncEngine{}}

// namedEngines run only when a workload names them: fio's null (no I/O at
// all), mmap and posixaio measure something else than the device's queue,
// so auto, and a caller looking for a queueing engine to stand in for
// another, never take them.
var namedEngines = []engine{nullEngine{}, mmapEngine{}, posixAIOEngine{}}

// splitsAt says whether the engine's I/O has a submission stage apart from
// its completion (slat and clat reported apart) at depth: every queueing
// engine, except one that runs synchronously at depth 1 as fio's null
// does.
func splitsAt(e engine, depth int) bool {
	if s, ok := e.(interface{ splits(depth int) bool }); ok {
		return s.splits(depth)
	}
	return e.queues()
}

// engineOpenFlags are the open flags an engine needs on its workers'
// handles beyond read, write and direct (windowsaio: an overlapped handle).
func engineOpenFlags(e engine) osio.Flag {
	if o, ok := e.(interface{ openFlags() osio.Flag }); ok {
		return o.openFlags()
	}
	return 0
}

// engineByName finds an engine; auto is resolved by pickEngine.
func engineByName(name Engine) (engine, bool) {
	for _, e := range append(engines[:len(engines):len(engines)], namedEngines...) {
		if e.name() == name {
			return e, true
		}
	}
	return nil, false
}

// pickEngine resolves a workload's engine: auto takes the first queueing
// engine available here when the depth is above 1, psync otherwise.
func pickEngine(name Engine, depth int) (engine, error) {
	if name == EngineAuto {
		if depth > 1 {
			for _, e := range engines {
				if e.queues() && e.available() == nil {
					return e, nil
				}
			}
		}
		return psyncEngine{}, nil
	}
	e, ok := engineByName(name)
	if !ok {
		return nil, result.Usagef("--ioengine", "unknown engine %q", name)
	}
	if err := e.available(); err != nil {
		// A refusal before anything is created, as any other bad flag.
		return nil, result.Usagef("--ioengine", "%s: %v", name, err)
	}
	return e, nil
}

// QueueingEngine is the first engine available here that keeps more than
// one I/O in flight per worker (io_uring on Linux, windowsaio on Windows),
// for a caller that runs another tool's queueing engine as this one; false
// where there is none.
func QueueingEngine() (Engine, bool) {
	for _, e := range engines {
		if e.queues() && e.available() == nil {
			return e.name(), true
		}
	}
	return "", false
}

// queueingEngines names the engines that keep more than one I/O in flight
// on this platform, for messages.
func queueingEngines() []string {
	var names []string
	for _, e := range engines {
		if e.queues() && e.available() == nil {
			names = append(names, string(e.name()))
		}
	}
	return names
}

// echoEngineOption adds to the workload's job options the one fio option
// its engine runs with that fio's default would not say (io_uring under
// auto: its reap policy), so the result records what ran.
func echoEngineOption(w *workload) {
	e, ok := w.engine.(interface {
		echoOption(*workload) (string, string, bool)
	})
	if !ok {
		return
	}
	k, v, ok := e.echoOption(w)
	if !ok {
		return
	}
	m := make(map[string]string, len(w.Options)+1) // Options may be shared by the job's clones
	for ok, ov := range w.Options {
		m[ok] = ov
	}
	m[k] = v
	w.Options = m
}
