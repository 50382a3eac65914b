package blockbench

import (
	"slices"

	"github.com/clydebench/clyde/internal/ioengine"
	"github.com/clydebench/clyde/result"
)

// ResolveEngine says which engine a workload asking for name at depth I/Os
// in flight per worker runs on here, and whether that engine keeps them in
// flight. A preset that must hold a load of N outstanding I/Os (ORION's)
// runs N workers of one I/O each on an engine that does not, rather than
// let RunPlan cap the depth to 1.
func ResolveEngine(name Engine, depth int) (Engine, bool, error) {
	e, err := pickEngine(name, depth)
	if err != nil {
		return "", false, err
	}
	return e.name(), e.queues(), nil
}

// EngineAvailable says why the engine name cannot run here; nil when it
// can (auto always can).
func EngineAvailable(name Engine) error {
	if name == EngineAuto {
		return nil
	}
	e, ok := engineByName(name)
	if !ok {
		return result.Usagef("--ioengine", "unknown engine %q", name)
	}
	return e.available()
}

// EngineRegistered says whether an engine of that name is built in (an
// engine of internal/ioengine, whether or not it can run here), so a job
// file's reader takes every registered engine by its name.
func EngineRegistered(name Engine) bool {
	_, ok := engineByName(name)
	return ok
}

// EngineOption says whether name is an option of some built-in engine
// (fio's per-engine options, such as cpuio's cpuload).
func EngineOption(name string) bool { return ioengine.EngineOption(name) }

// EngineTakes says whether the engine name has the option opt.
func EngineTakes(name Engine, opt string) bool {
	e, ok := engineByName(name)
	return ok && slices.Contains(e.d.Options, opt)
}

// QueueingEngines names the engines that keep several I/Os in flight and
// can run here: what a preset whose rows need a queue tells the user to
// pick.
func QueueingEngines() []string { return queueingEngines() }
