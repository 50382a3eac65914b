package blocksum

import "github.com/clydebench/clyde/result"

// Group adds the jobs of one reporting group as fio's "Run status group"
// does: I/Os and bytes summed, over the longest runtime. first is the
// index of jobs[0] in the result's jobs.
func Group(groupID int, jobs []result.BlockJob, first int) result.BlockGroup {
	g := result.BlockGroup{GroupID: groupID}
	var runtime int64
	for i := range jobs {
		g.Jobs = append(g.Jobs, first+i)
		for d, in := range []*result.BlockDir{&jobs[i].Read, &jobs[i].Write} {
			out := [2]*result.BlockDir{&g.Read, &g.Write}[d]
			out.TotalIOs += in.TotalIOs
			out.IOBytes += in.IOBytes
			out.ShortIOs += in.ShortIOs
			runtime = max(runtime, in.RuntimeNs)
		}
	}
	for _, out := range []*result.BlockDir{&g.Read, &g.Write} {
		if out.TotalIOs == 0 || runtime == 0 {
			continue
		}
		Rates(out, runtime)
	}
	return g
}

// ReportGroups sums the jobs of one run group (jobs[k] is the result's
// job first+k) by reporting group, as fio's "Run status group": a group of
// one job gets no entry, but its shape's group fields (fio's bw_agg) all
// the same.
func ReportGroups(jobs []result.BlockJob, first int, shape Shaper) []result.BlockGroup {
	var out []result.BlockGroup
	for start := 0; start < len(jobs); {
		end := start + 1
		for end < len(jobs) && jobs[end].GroupID == jobs[start].GroupID {
			end++
		}
		g := Group(jobs[start].GroupID, jobs[start:end], first+start)
		members := make([]*result.BlockJob, 0, end-start)
		for k := start; k < end; k++ {
			members = append(members, &jobs[k])
		}
		if shape != nil {
			shape.Group(&g, members)
		}
		if end-start > 1 {
			out = append(out, g)
		}
		start = end
	}
	return out
}
