package blockbench

import "github.com/clydebench/clyde/result"

// Diskless says whether the workload runs without a target: fio's null
// engine (FIO_DISKLESSIO) opens, creates and admits no file, whatever
// filename= says. resolvePlan gives such a workload the plan's one
// diskless target; this is the one place that decides it.
func (w *Workload) Diskless() bool { return w.IOEngine == EngineNull }

// validateDiskless holds a diskless workload's own rules: with no file to
// take a size from, size= is the whole region.
func (w *Workload) validateDiskless() error {
	switch {
	case w.Volume != nil:
		return result.Usagef("--ioengine", "workload %s: ioengine null opens no file, so it has no volume to stripe over", w.Name)
	case w.Size <= 0 && (w.Files == nil || w.Files.Size.Low == 0):
		return result.Usagef("--size", "workload %s: ioengine null opens no file, so --size is the whole region; give one, such as 1g", w.Name)
	}
	return nil
}
