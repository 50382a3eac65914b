package copybench

import (
	"fmt"
	"slices"

	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/result"
)

// MergeRanks adds one step's figures from every rank of a job into the
// job's (figs[r] is rank r's, the same set and method on every rank):
// files and bytes summed over the slowest rank's time, so MB/s and files/s
// are the job's total as mdtest's "last done" rates are; the per-file
// latency histograms merged; verified and cold only when every rank's was.
func MergeRanks(figs []result.CopyFigure) (result.CopyFigure, error) {
	if len(figs) == 0 {
		return result.CopyFigure{}, nil
	}
	m := figs[0]
	m.Files, m.Bytes, m.ElapsedNs, m.CPUUserNs, m.CPUSysNs, m.SharedFiles, m.Notes = 0, 0, 0, 0, 0, 0, nil
	m.SourceCache = result.CacheState{Evicted: true, Cold: true, Method: figs[0].SourceCache.Method}
	if d := figs[0].DeviceCache; d != nil {
		dc := *d // rank 0's, summed below from rank 1 on
		m.DeviceCache = &dc
	}
	lat := latency.New()
	for r, f := range figs {
		if f.Set != m.Set || f.Method != m.Method {
			return m, fmt.Errorf("rank %d copied %s with %s, rank 0 %s with %s", r, f.Set, f.Method, m.Set, m.Method)
		}
		m.Files += f.Files
		m.Bytes += f.Bytes
		m.ElapsedNs = max(m.ElapsedNs, f.ElapsedNs)
		m.CPUUserNs += f.CPUUserNs
		m.CPUSysNs += f.CPUSysNs
		m.CPUKnown = m.CPUKnown && f.CPUKnown
		m.Ran = m.Ran && f.Ran
		m.Interrupted = m.Interrupted || f.Interrupted
		m.Verified = m.Verified && f.Verified
		m.SharedFiles += f.SharedFiles
		if m.ExtentCheck == "" {
			m.ExtentCheck = f.ExtentCheck
		}
		sumCache(&m.SourceCache, f.SourceCache)
		if m.DeviceCache != nil {
			if f.DeviceCache == nil {
				m.DeviceCache = nil
			} else if r > 0 {
				sumCache(m.DeviceCache, *f.DeviceCache)
			}
		}
		for _, n := range f.Notes {
			if !slices.Contains(m.Notes, n) {
				m.Notes = append(m.Notes, n)
			}
		}
		rec, err := latency.FromSummary(f.Latency)
		if err != nil {
			return m, fmt.Errorf("rank %d's latency: %w", r, err)
		}
		lat.Merge(rec)
	}
	m.Latency = lat.Summary()
	m.Finish()
	return m, nil
}

// sumCache adds one rank's page-cache check into m: resident bytes summed
// (unknown when any rank's was), cold and evicted only when every one was.
func sumCache(m *result.CacheState, c result.CacheState) {
	m.Evicted = m.Evicted && c.Evicted
	m.Cold = m.Cold && c.Cold
	m.FileBytes += c.FileBytes
	if m.ResidentBytes < 0 || c.ResidentBytes < 0 {
		m.ResidentBytes = -1
	} else {
		m.ResidentBytes += c.ResidentBytes
	}
	if m.Error == "" {
		m.Error = c.Error
	}
	// The levels beneath: the first rank's, or the first rank's that
	// found one warm (ranks on other hosts read through other stacks).
	if m.Stack == nil || levelsCold(m.Stack) && !levelsCold(c.Stack) {
		m.Stack = c.Stack
	}
}

func levelsCold(levels []result.CacheLevel) bool {
	for _, l := range levels {
		if !l.Cold {
			return false
		}
	}
	return true
}
