package latency

// FioPercentiles is fio's default percentile_list (options.c), the points
// clyde block reports so that its JSON lines up with fio's key for key.
var FioPercentiles = []float64{1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

// PercentilesNs appends the latency at each percentile of ps (0..100) to dst,
// each within the histogram's 0.1% relative error and never outside the
// exact minimum and maximum.
func (r *Recorder) PercentilesNs(ps []float64, dst []int64) []int64 {
	for _, p := range ps {
		dst = append(dst, r.PercentileNs(p))
	}
	return dst
}

// MinNs is the exact shortest latency recorded, 0 when empty.
func (r *Recorder) MinNs() int64 {
	if r.count == 0 {
		return 0
	}
	return r.minNs
}
