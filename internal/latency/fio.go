package latency

import "math/bits"

// fio's latency histogram (stat.h): log-linear in nanoseconds, values below
// 2^(FioPlatBits+1) exact, then FioPlatVal buckets per power of two, so a
// bucket is within 1/2^(FioPlatBits+1) of its midpoint; FioPlatGroupNr
// groups cover up to 2^34 ns (about 17.2 s) and anything longer lands in
// the last bucket. json+ keys its "bins" by bucket midpoints.
const (
	FioPlatBits    = 6
	FioPlatVal     = 1 << FioPlatBits
	FioPlatGroupNr = 29
	FioPlatNr      = FioPlatGroupNr * FioPlatVal // 1856
)

// FioPlatIndex is the fio bucket a latency of ns falls in.
func FioPlatIndex(ns int64) int {
	if ns <= 0 {
		return 0
	}
	v := uint64(ns)
	msb := bits.Len64(v) - 1
	if msb <= FioPlatBits {
		return int(v) // exact below 128 ns
	}
	errorBits := msb - FioPlatBits
	base := (errorBits + 1) << FioPlatBits
	idx := base + int((v>>errorBits)&(FioPlatVal-1))
	return min(idx, FioPlatNr-1)
}

// FioPlatValue is the midpoint of fio bucket idx in ns, the value fio
// reports for a percentile that falls in it and json+'s key for it.
func FioPlatValue(idx int) int64 {
	if idx < FioPlatVal<<1 {
		return int64(idx)
	}
	errorBits := (idx >> FioPlatBits) - 1
	base := uint64(1) << (errorBits + FioPlatBits)
	k := uint64(idx % FioPlatVal)
	// base + (k + 0.5) * 2^errorBits, truncated as fio's integer result is.
	return int64(base + k<<errorBits + (uint64(1)<<errorBits)/2)
}

// FioBinCount is how many recorded latencies fell in fio bucket Index.
type FioBinCount struct {
	Index int
	Count int64
}

// FioBins are r's latencies counted in fio's buckets, non-empty ones in
// ascending order. Each bucket of r's histogram lies within one fio bucket
// (both split powers of two into powers of two, r's more finely), so the
// counts are exact.
func (r *Recorder) FioBins() []FioBinCount {
	var out []FioBinCount
	if r.count == 0 {
		return out
	}
	for _, bar := range r.h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		idx := FioPlatIndex(bar.From)
		if n := len(out); n > 0 && out[n-1].Index == idx {
			out[n-1].Count += bar.Count
			continue
		}
		out = append(out, FioBinCount{Index: idx, Count: bar.Count})
	}
	return out
}

// CountsBelow counts r's latencies in the ranges edges split the axis
// into: out[0] below edges[0], out[i] in [edges[i-1], edges[i]), and the
// last element at or above the last edge (len(edges)+1 counts). A bucket of
// the histogram is counted whole where its lowest value falls, so an edge
// moves by at most the histogram's 0.1% resolution.
func (r *Recorder) CountsBelow(edges []int64) []int64 {
	out := make([]int64, len(edges)+1)
	if r.count == 0 {
		return out
	}
	i := 0
	for _, bar := range r.h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		for i < len(edges) && bar.From >= edges[i] {
			i++
		}
		out[i] += bar.Count
	}
	return out
}

// SumNs is the sum of every latency recorded, exact: with two readings of
// it and of Count, the mean latency between them.
func (r *Recorder) SumNs() float64 { return r.sumNs }

// FioPercentilesNs appends the latency at each percentile of ps to dst by
// fio's rule (calc_clat_percentiles): the smallest value with at least p%
// of the latencies at or below it. HdrHistogram's own ValueAtPercentile
// rounds the rank to the nearest instead, which at a sparse tail can be a
// different latency than fio would name. Each value is its bucket's top,
// never outside the exact minimum and maximum.
func (r *Recorder) FioPercentilesNs(ps []float64, dst []int64) []int64 {
	if r.count == 0 {
		for range ps {
			dst = append(dst, 0)
		}
		return dst
	}
	bars := r.h.Distribution()
	for _, p := range ps {
		need := p / 100 * float64(r.count)
		var cum int64
		v := r.maxNs
		for _, bar := range bars {
			if bar.Count == 0 {
				continue
			}
			cum += bar.Count
			if float64(cum) >= need {
				v = bar.To
				break
			}
		}
		dst = append(dst, min(max(v, r.minNs), r.maxNs))
	}
	return dst
}
