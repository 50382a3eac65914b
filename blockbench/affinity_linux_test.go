//go:build linux

package blockbench

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestPinWorker: a worker with cpus_allowed runs on its CPUs alone, and
// its thread has its own affinity back when the work is done.
func TestPinWorker(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, err := threadCPUs()
	if err != nil {
		t.Fatal(err)
	}
	cpu := before[len(before)-1]
	w := withDefaults(Workload{Size: 64 << 10, IOEngine: EngineNull, RW: Read, Affinity: CPUAffinity{CPUs: []int{cpu}}})
	wk := newWorker(&workload{Workload: w, depth: 1, engine: mustEngine(EngineNull), firstWorker: 1}, 0)
	unpin, err := wk.pin()
	if err != nil {
		t.Fatal(err)
	}
	during, err := threadCPUs()
	unpin()
	after, err2 := threadCPUs()
	if err != nil || err2 != nil {
		t.Fatal(err, err2)
	}
	if !slices.Equal(during, []int{cpu}) || !slices.Equal(after, before) {
		t.Errorf("CPUs before %v, pinned %v (want [%d]), after %v", before, during, cpu, after)
	}
}

// TestWorkerCPUs: shared gives every worker all the CPUs; split gives
// each one, fio's thread_number-1 modulo their count, numbered through
// the plan.
func TestWorkerCPUs(t *testing.T) {
	for _, c := range []struct {
		name    string
		aff     CPUAffinity
		first   int
		workers int
		want    [][]int
	}{
		{"shared", CPUAffinity{CPUs: []int{3, 1, 1}}, 1, 2, [][]int{{1, 3}, {1, 3}}},
		{"split from the first job", CPUAffinity{CPUs: []int{0, 2}, Split: true}, 1, 3, [][]int{{0}, {2}, {0}}},
		{"split from job 4", CPUAffinity{CPUs: []int{0, 1, 2}, Split: true}, 4, 2, [][]int{{0}, {1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			wl := &workload{Workload: Workload{Affinity: c.aff}, firstWorker: c.first}
			for i, want := range c.want {
				if got := wl.workerCPUs(i); !slices.Equal(got, want) {
					t.Errorf("worker %d: %v, want %v", i, got, want)
				}
			}
		})
	}
}

// TestAffinityRefused: a CPU this machine has not is named.
func TestAffinityRefused(t *testing.T) {
	n := configuredCPUs()
	w := withDefaults(Workload{Name: "pin", Size: 64 << 10, IOEngine: EngineNull, RW: Read, Affinity: CPUAffinity{CPUs: []int{0, n}}})
	err := w.validate()
	if err == nil || !strings.Contains(err.Error(), "cpus_allowed") || !strings.Contains(err.Error(), fmt.Sprintf("CPU %d too large", n)) {
		t.Errorf("got %v", err)
	}
}
