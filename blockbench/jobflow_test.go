package blockbench

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestFlowHeld: workers sharing a flow take I/Os in the ratio of their
// weights, as fio's flow_threshold_exceeded lets them; one that leaves
// frees the others.
func TestFlowHeld(t *testing.T) {
	f := new(flowShare)
	f.counter.Store(1)
	f.weight.Store(1 + 3)
	a := &worker{spec: &workload{Workload: Workload{Flow: Flow{Weight: 1}}, flow: f}}
	b := &worker{spec: &workload{Workload: Workload{Flow: Flow{Weight: 3}}, flow: f}}
	for range 4000 { // each asks in turn, as fast as it can
		a.flowHeld()
		b.flowHeld()
	}
	if a.flowCount*3 > b.flowCount+3 || b.flowCount > a.flowCount*3+3 || a.flowCount < 500 {
		t.Errorf("counts %d and %d, want 1:3", a.flowCount, b.flowCount)
	}
	b.leaveFlow()
	before := a.flowCount
	for range 100 {
		if a.flowHeld() {
			t.Fatal("held with its flow to itself")
		}
	}
	if a.flowCount != before+100 || f.counter.Load() != 1+a.flowCount || f.weight.Load() != 1 {
		t.Errorf("count %d, flow counter %d weight %d", a.flowCount, f.counter.Load(), f.weight.Load())
	}
}

// TestPlanFlows: every workload of the plan counts in its flow from the
// start, clones by their weight each; a flow that a later group shares
// with a workload without a runtime is refused.
func TestPlanFlows(t *testing.T) {
	wl := func(id uint32, weight, numjobs int, runtime time.Duration) *workload {
		return &workload{Workload: Workload{Name: "j", Flow: Flow{ID: id, Weight: weight}, NumJobs: numjobs, Runtime: runtime}}
	}
	a, b, c, d := wl(1, 1, 1, time.Second), wl(1, 3, 2, 0), wl(2, 5, 1, 0), wl(0, 0, 1, 0)
	if err := planFlows([][]*workload{{a, c, d}, {b}}); err != nil {
		t.Fatal(err)
	}
	if a.flow != b.flow || a.flow.weight.Load() != 7 || c.flow.weight.Load() != 5 || d.flow != nil || a.flow.counter.Load() != 1 {
		t.Errorf("flows %p %p weights %d %d, d's %v", a.flow, b.flow, a.flow.weight.Load(), c.flow.weight.Load(), d.flow)
	}
	err := planFlows([][]*workload{{wl(1, 1, 1, 0)}, {wl(1, 1, 1, 0)}})
	if err == nil || !strings.Contains(err.Error(), "flow_id 1 has jobs in a later group") {
		t.Errorf("got %v", err)
	}
}

// gateOf is a gate over workloads of the given reporting groups, with
// two workers each.
func gateOf(groupIDs []int, exit ExitWhat) (*jobGate, [][]*worker) {
	var ws []*workload
	workers := make([][]*worker, len(groupIDs))
	for k, g := range groupIDs {
		w := &workload{Workload: Workload{Name: string(rune('a' + k)), NumJobs: 2, Exit: exit}, groupID: g}
		ws = append(ws, w)
		for range 2 {
			workers[k] = append(workers[k], &worker{spec: w})
		}
	}
	return newJobGate(ws, workers), workers
}

// TestExitAll: a worker that ends stops its reporting group (group), the
// workers that have started (stonewall), or everything and the plan's
// later groups (all).
func TestExitAll(t *testing.T) {
	for _, c := range []struct {
		name string
		exit ExitWhat
		want [3]bool // halted: the other workloads' workers
		all  bool
	}{
		{"none", ExitNone, [3]bool{false, false, false}, false},
		{"group", ExitGroup, [3]bool{true, true, false}, false},
		{"stonewall: the started ones", ExitStonewall, [3]bool{true, true, true}, false},
		{"all", ExitAll, [3]bool{true, true, true}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, workers := gateOf([]int{0, 0, 1}, c.exit)
			for k := range workers {
				workers[k][0].started.Store(true)
			}
			g.finished(0)
			for k := range workers {
				if got := workers[k][0].halted.Load(); got != c.want[k] {
					t.Errorf("workload %d's started worker halted %v, want %v", k, got, c.want[k])
				}
				wantIdle := c.want[k] && c.exit != ExitStonewall
				if got := workers[k][1].halted.Load(); got != wantIdle {
					t.Errorf("workload %d's waiting worker halted %v, want %v", k, got, wantIdle)
				}
			}
			if g.all.Load() != c.all {
				t.Errorf("all %v", g.all.Load())
			}
		})
	}
}

// TestWaitFor: a workload that waits for another starts once every
// worker of the named one has finished, its clock moved there.
func TestWaitFor(t *testing.T) {
	g, workers := gateOf([]int{0, 0}, ExitNone)
	waiter := workers[1][0]
	waiter.spec.WaitFor = "a"
	g = newJobGate(g.ws, workers)
	waiter.deadline, waiter.ctx = int64(time.Second), context.Background()
	start := time.Now()
	done := make(chan bool, 1)
	go func() { done <- waiter.waitFor(start) }()
	g.finished(0)
	select {
	case <-done:
		t.Fatal("started with one of the waitee's two workers still running")
	case <-time.After(50 * time.Millisecond):
	}
	g.finished(0)
	if !<-done {
		t.Fatal("stopped")
	}
	if waiter.shifted <= 0 || waiter.deadline != waiter.shifted+int64(time.Second) {
		t.Errorf("start moved by %d, deadline %d", waiter.shifted, waiter.deadline)
	}
}

// TestFlowRefusals: the workload rules of jobflow.go, each naming its
// option and value.
func TestFlowRefusals(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(w *Workload)
		want string
	}{
		{"weight", func(w *Workload) { w.Flow.Weight = MaxFlowWeight + 1 }, "--flow: workload j: weight 1001 is outside 0..1000"},
		{"sleep", func(w *Workload) { w.Flow.Sleep = -time.Second }, "--flow_sleep"},
		{"itself", func(w *Workload) { w.WaitFor = "j" }, "workload j cannot wait for itself"},
		{"number_ios time based", func(w *Workload) { w.NumberIOs, w.TimeBased, w.Runtime = 10, true, time.Second }, "--number_ios: workload j: number_ios=10 with time_based"},
		{"exit_what", func(w *Workload) { w.Exit = ExitAll + 1 }, "--exit_what"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := withDefaults(Workload{Name: "j", Size: 64 << 10, IOEngine: EngineNull, RW: Read})
			c.edit(&w)
			if err := w.validate(); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}
