package blockbench

import (
	"github.com/clydebench/clyde/internal/ioengine"
	"github.com/clydebench/clyde/result"
)

// Diskless says whether the workload runs without a target: an engine
// that opens no file (fio's FIO_DISKLESSIO: null, cpuio) opens, creates
// and admits none, whatever filename= says. resolvePlan gives such a
// workload the plan's one diskless target; this is the one place that
// decides it.
func (w *Workload) Diskless() bool { return w.engineHas(ioengine.FlagDiskless) }

// NoIO says whether the workload's engine does no I/O at all (fio's
// FIO_NOIO: cpuio): each unit counts as a read of 0 bytes, so its bytes
// never reach a size, and the job runs until its runtime ends.
func (w *Workload) NoIO() bool { return w.engineHas(ioengine.FlagNoIO) }

// engineHas says whether the workload's engine, as named, has flag f.
func (w *Workload) engineHas(f ioengine.Flags) bool {
	e, ok := engineByName(w.IOEngine)
	return ok && e.d.Has(f)
}

// runsNoIO gives a workload on an engine that does no I/O what fio's run
// of it is: time-based (its bytes never reach a size), over a region of
// one block when it gave no size.
func (w *Workload) runsNoIO() {
	if !w.NoIO() {
		return
	}
	w.TimeBased = true
	if w.Size <= 0 {
		w.Size = w.BS
	}
}

// validateDiskless holds a diskless workload's own rules: with no file to
// take a size from, size= is the whole region; an engine that does no I/O
// runs for its runtime, and needs one, as fio's job never ends without.
func (w *Workload) validateDiskless() error {
	switch {
	case w.Volume != nil:
		return result.Usagef("--ioengine", "workload %s: ioengine %s opens no file, so it has no volume to stripe over", w.Name, w.IOEngine)
	case w.NoIO() && w.Runtime <= 0:
		return result.Usagef("--runtime", "workload %s: ioengine %s does no I/O, so its bytes never reach a size and fio's job runs until runtime= ends (forever without one); give runtime=", w.Name, w.IOEngine)
	case w.NoIO():
		return nil
	case w.Size <= 0 && (w.Files == nil || w.Files.Size.Low == 0):
		return result.Usagef("--size", "workload %s: ioengine %s opens no file, so --size is the whole region; give one, such as 1g", w.Name, w.IOEngine)
	}
	return nil
}
