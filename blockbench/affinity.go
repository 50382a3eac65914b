package blockbench

import (
	"fmt"
	"slices"

	"github.com/clydebench/clyde/result"
)

// CPUAffinity is fio's cpus_allowed (or cpumask) with cpus_allowed_policy:
// the CPUs each worker's thread may run on. Shared pins every worker to
// all of them; Split pins each to one, fio's thread_number-1 modulo their
// count (backend.c, options.c fio_cpus_split), the workers numbered
// through the plan as fio numbers its jobs. Empty CPUs pins nothing.
type CPUAffinity struct {
	CPUs  []int
	Split bool
}

// validateAffinity holds the CPUs to this machine's, as fio's
// set_cpus_allowed holds them to cpus_configured(), and asks for the
// platform's affinity call.
func (w *Workload) validateAffinity() error {
	if len(w.Affinity.CPUs) == 0 {
		return nil
	}
	if !canPin {
		return result.Usagef("--cpus_allowed", "workload %s: pinning a worker to CPUs needs sched_setaffinity, which this platform lacks; leave out cpus_allowed and cpumask", w.Name)
	}
	n := configuredCPUs()
	for _, c := range w.Affinity.CPUs {
		if c < 0 || c >= n {
			return result.Usagef("--cpus_allowed", "workload %s: CPU %d too large (this machine's CPUs are 0-%d)", w.Name, c, n-1)
		}
	}
	return nil
}

// workerCPUs are the CPUs worker index (of the workload's workers) is
// pinned to.
func (w *workload) workerCPUs(index int) []int {
	cpus := slices.Clone(w.Affinity.CPUs)
	slices.Sort(cpus)
	cpus = slices.Compact(cpus)
	if !w.Affinity.Split || len(cpus) == 0 {
		return cpus
	}
	thread := w.firstWorker + index // fio's thread_number
	return []int{cpus[(thread-1)%len(cpus)]}
}

// pin pins the worker's thread (locked to it) to its CPUs and returns
// what puts the thread back as it was, before it goes back to the Go
// runtime's pool.
func (w *worker) pin() (unpin func(), err error) {
	if len(w.spec.Affinity.CPUs) == 0 {
		return func() {}, nil
	}
	cpus := w.spec.workerCPUs(int(w.index) - w.spec.CloneIndex)
	unpin, err = pinThread(cpus)
	if err != nil {
		return nil, fmt.Errorf("cpus_allowed %v for worker %d: %w", cpus, w.index, err)
	}
	return unpin, nil
}
