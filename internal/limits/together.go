package limits

import (
	"errors"
	"fmt"
	"strings"

	"github.com/clydebench/clyde/result"
)

// Together is what workloads that run at the same time need: fio's jobs up
// to the next stonewall (each of numjobs' clones a workload of its own), an
// Iometer test's workers. Each may fit on its own while together they
// crash the run, so their needs add up, and a refusal names them
// ("job a x32, job b").
type Together struct {
	// Flag is the flag a refusal names; What says what the memory is for.
	Flag, What string
	needs      []Need
	names      []string
	clones     map[string]int
}

// Add counts one workload named name, needing n.
func (g *Together) Add(name string, n Need) {
	if g.clones == nil {
		g.clones = map[string]int{}
	}
	g.needs = append(g.needs, n)
	if g.clones[name]++; g.clones[name] == 1 {
		g.names = append(g.names, name)
	}
}

// Check refuses the workloads' sum when it goes over one of the process's
// limits, in one line: "job a x32, job b run at the same time (N workers;
// no stonewall between them): ...". files, when above 0, is the descriptors
// they hold together, in place of the sum of their own (block counts a
// file per worker and a few per target, however many workloads share
// one). A single workload is left to its own check.
func (g *Together) Check(workers, files int) error {
	if len(g.needs) < 2 {
		return nil
	}
	l, err := Read()
	if err != nil {
		return nil
	}
	need := Sum(g.needs...)
	if files > 0 {
		need.Files = files
	}
	need.Flag, need.What = g.Flag, g.What
	var ue *result.UsageError
	if err := l.Check(need); errors.As(err, &ue) {
		return result.Usagef(ue.Flag, "%s run at the same time (%d workers; no stonewall between them): %s", g.list(), workers, ue.Msg)
	} else if err != nil {
		return err
	}
	return nil
}

// list names the workloads for a refusal, numjobs' clones counted
// ("job a x1000, job b"), at most a few.
func (g *Together) list() string {
	const most = 4
	var parts []string
	for i, n := range g.names {
		if i == most {
			parts = append(parts, fmt.Sprintf("%d more", len(g.names)-most))
			break
		}
		if c := g.clones[n]; c > 1 {
			parts = append(parts, fmt.Sprintf("job %s x%d", n, c))
		} else {
			parts = append(parts, "job "+n)
		}
	}
	return strings.Join(parts, ", ")
}
