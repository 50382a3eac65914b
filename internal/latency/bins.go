package latency

// Bins counts the recorded latencies by bin: counts[i] holds those at or
// above fromNs[i] and below fromNs[i+1], the last bin everything from its
// edge up. fromNs must ascend and start at 0. A histogram bucket straddling
// an edge goes to the bin of its lowest value, so a count can be off by the
// values within 0.1% of an edge.
func (r *Recorder) Bins(fromNs []int64) []int64 {
	counts := make([]int64, len(fromNs))
	if r.count == 0 || len(fromNs) == 0 {
		return counts
	}
	for _, bar := range r.h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		k := 0
		for k+1 < len(fromNs) && bar.From >= fromNs[k+1] {
			k++
		}
		counts[k] += bar.Count
	}
	return counts
}
