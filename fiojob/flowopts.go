package fiojob

import (
	"math"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// fio's options of how jobs hold each other (blockbench/jobflow.go):
// flow, flow_id and flow_sleep (flow.c), wait_for (backend.c
// waitee_running) and exitall with exit_what (libfio.c
// fio_terminate_threads).

// addFlowOptions registers the options beside the others.
func addFlowOptions() {
	for k, h := range map[string]handler{
		"flow_id": func(j *job, o Option) error {
			// Read as int64: math.MaxUint32 is no int on 32-bit platforms.
			if err := needValue(o); err != nil {
				return err
			}
			v, err := ParseSize(o.Value, j.kb)
			if err != nil || v < 0 || v > math.MaxUint32 {
				return result.Usagef(o.Pos, "%s=%q: give a whole number from 0 to %d", o.Name, o.Value, uint32(math.MaxUint32))
			}
			j.w.Flow.ID = uint32(v)
			return nil
		},
		"flow": func(j *job, o Option) error { return j.intIn(o, 0, blockbench.MaxFlowWeight, &j.w.Flow.Weight) },
		"flow_sleep": func(j *job, o Option) error {
			var us int
			if err := j.intIn(o, 0, math.MaxInt32, &us); err != nil {
				return err
			}
			j.w.Flow.Sleep = time.Duration(us) * time.Microsecond
			return nil
		},
		"wait_for": func(j *job, o Option) error {
			if err := needValue(o); err != nil {
				return err
			}
			j.w.WaitFor = o.Value
			return nil
		},
		// exitall is fio's exitall_on_terminate, one switch for the whole
		// run (options.c str_exitall_cb): with it in any job, every job
		// that ends stops what its exit_what names (finishExit).
		"exitall":   func(j *job, o Option) error { return boolean(o, &j.exitAll) },
		"exit_what": (*job).exitWhat,
		// number_ios ends a job after that many I/Os a pass (backend.c
		// exceeds_number_ios), or at the end of its region if sooner.
		"number_ios": func(j *job, o Option) error {
			var n int64
			if err := j.size(o, &n); err != nil {
				return err
			}
			j.w.NumberIOs = n
			return nil
		},
	} {
		handlers[k] = h
	}
	delete(refusals, "exitall")
}

// exitWhat is fio's exit_what: group (the default), stonewall or all.
func (j *job) exitWhat(o Option) error {
	switch o.Value {
	case "group":
		j.w.Exit = blockbench.ExitGroup
	case "stonewall":
		j.w.Exit = blockbench.ExitStonewall
	case "all":
		j.w.Exit = blockbench.ExitAll
	default:
		return result.Usagef(o.Pos, "exit_what=%q: give group, stonewall or all", o.Value)
	}
	return nil
}

// checkWaitFor holds wait_for to fio's wait_for_ok: a job cannot wait
// for itself, and the name must be that of exactly one job before it
// (clones not counted); seen counts the jobs so far by name.
func (j *job) checkWaitFor(w blockbench.Workload, seen map[string]int) error {
	if w.WaitFor == "" {
		return nil
	}
	o := j.set["wait_for"]
	switch n := seen[w.WaitFor]; {
	case w.WaitFor == w.Name:
		return result.Usagef(o.Pos, "wait_for=%s: job %s cannot wait for itself", w.WaitFor, w.Name)
	case n == 0:
		return result.Usagef(o.Pos, "wait_for=%s: no job of that name before job %s (fio waits only for a job defined before)", w.WaitFor, w.Name)
	case n > 1:
		return result.Usagef(o.Pos, "wait_for=%s: %d jobs have that name; fio asks for one", w.WaitFor, n)
	}
	return nil
}

// finishExit gives every workload of the plan its exit_what when any job
// set exitall (fio's one switch), and none otherwise.
func finishExit(p *blockbench.Plan, exitAll bool) {
	for g := range p.Groups {
		for k := range p.Groups[g] {
			w := &p.Groups[g][k]
			switch {
			case !exitAll:
				w.Exit = blockbench.ExitNone
			case w.Exit == blockbench.ExitNone:
				w.Exit = blockbench.ExitGroup
			}
		}
	}
}
