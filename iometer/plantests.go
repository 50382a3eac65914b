package iometer

import (
	"context"
	"fmt"
	"strings"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// plannedTest is one test of a setup as planned: the spec slot, the step
// of the cycle and the workers that run.
type plannedTest struct {
	slot    int
	depth   int // 0: each worker's own
	workers []int
}

// tests lists the setup's tests in Iometer's order: each specification in
// turn, through every step of the cycle.
func (s *Setup) tests() ([]plannedTest, error) {
	slots := 0
	for _, w := range s.Workers {
		slots = max(slots, len(w.Specs))
	}
	var out []plannedTest
	for slot := range slots {
		out = append(out, s.slotTests(slot)...)
		if len(out) > MaxTests {
			return nil, usagef("Test Setup cycling", "the setup makes more than %d tests; give a larger cycling step", MaxTests)
		}
	}
	if len(out) == 0 {
		return nil, usagef("access specifications", "no worker is assigned an access specification")
	}
	return out, nil
}

// slotTests are the tests of one spec slot: once, or once per step of
// the cycle, with the workers assigned a spec in that slot.
func (s *Setup) slotTests(slot int) []plannedTest {
	var active []int
	for i, w := range s.Workers {
		if slot < len(w.Specs) {
			active = append(active, i)
		}
	}
	var out []plannedTest
	switch {
	case s.Cycle.Queue:
		for _, d := range s.Cycle.steps(0) {
			out = append(out, plannedTest{slot: slot, depth: d, workers: active})
		}
	case s.Cycle.Workers:
		for _, n := range s.Cycle.steps(len(active)) {
			out = append(out, plannedTest{slot: slot, workers: active[:n]})
		}
	default:
		out = append(out, plannedTest{slot: slot, workers: active})
	}
	return out
}

// specName is the test's specification as Iometer's results name it: the
// one every worker runs, or each worker's joined.
func (s *Setup) specName(t plannedTest) string {
	var names []string
	for _, i := range t.workers {
		n := s.Specs[s.Workers[i].Specs[t.slot]].Name
		if len(names) == 0 || names[len(names)-1] != n {
			names = append(names, n)
		}
	}
	return strings.Join(names, " + ")
}

func (s *Setup) depthOf(t plannedTest, worker int) int {
	if t.depth > 0 {
		return t.depth
	}
	return s.Workers[worker].OutstandingIOs
}

// Plan turns the setup into what blockbench.RunPlan runs: one group per
// test, one workload per active worker.
func (s *Setup) Plan() (blockbench.Plan, error) {
	p, _, err := s.plan()
	return p, err
}

func (s *Setup) plan() (blockbench.Plan, []plannedTest, error) {
	p := blockbench.Plan{DestroyData: s.DestroyData, AllowSparse: s.AllowSparse, SizeGiven: s.SizeGiven, Warn: s.Warn, Progress: s.Progress, CommandLine: s.CommandLine, Shape: s.Shape,
		Notes: append([]string(nil), s.Notes...), RequireUncached: s.RequireUncached, AllowCached: s.AllowCached}
	if err := s.validate(); err != nil {
		return p, nil, err
	}
	tests, err := s.tests()
	if err != nil {
		return p, nil, err
	}
	for _, t := range tests {
		p.Groups = append(p.Groups, s.group(t))
		p.Labels = append(p.Labels, blockbench.GroupLabel{Row: s.label(t)})
	}
	return p, tests, nil
}

// label is the test's line on the progress line: its specification and
// the step of the cycle.
func (s *Setup) label(t plannedTest) string {
	label := s.specName(t)
	if s.Cycle.Queue {
		label += fmt.Sprintf(" (%d outstanding I/Os)", t.depth)
	} else if s.Cycle.Workers {
		label += fmt.Sprintf(" (%d workers)", len(t.workers))
	}
	return label
}

// group is the test's workloads: one per active worker, drawing from the
// specification in the test's slot.
func (s *Setup) group(t plannedTest) blockbench.Group {
	var g blockbench.Group
	for _, i := range t.workers {
		wk := s.Workers[i]
		spec := &s.Specs[wk.Specs[t.slot]]
		w := blockbench.Workload{Name: wk.Name + ": " + spec.Name, Filename: s.Filename, Offset: wk.Offset, Size: wk.Size,
			IODepth: s.depthOf(t, i), NumJobs: 1, IOEngine: s.IOEngine, Direct: s.Direct, Runtime: s.Runtime,
			RampTime: s.RampTime, TimeBased: !s.OnePass, Buffer: wk.Buffer, Seed: wk.Seed}
		spec.Apply(&w)
		g = append(g, w)
	}
	return g
}

// Run runs an Iometer setup and fills the result's Iometer tests and
// profile table. Like blockbench.RunPlan it returns nil and a usage error
// when the setup is refused before anything is touched.
func Run(ctx context.Context, s Setup) (*result.Block, error) {
	p, tests, err := s.plan()
	if err != nil {
		return nil, err
	}
	res, err := blockbench.RunPlan(ctx, p)
	if res != nil {
		res.Iometer, res.Profile = s.finish(tests, res)
	}
	return res, err
}

// Finish fills res's Iometer tests and profile table from the jobs of the
// setup's plan (Plan) that ran, as Run does.
func (s *Setup) Finish(res *result.Block) error {
	tests, err := s.tests()
	if err != nil {
		return err
	}
	res.Iometer, res.Profile = s.finish(tests, res)
	return nil
}
