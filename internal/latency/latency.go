// Package latency records per-operation latencies in a mergeable HDR histogram.
//
// Each worker owns one Recorder and records into it without locks; the runner
// merges the workers' recorders after they finish and summarises the merged one.
package latency

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

const (
	// LowestNs is the smallest latency the histogram distinguishes.
	LowestNs = 1
	// HighestNs is the largest latency the histogram tracks; longer operations are
	// clamped into the top bucket (their exact value still reaches MaxNs).
	HighestNs = int64(time.Hour)
	// SignificantDigits bounds the relative error of any percentile to 0.1%.
	SignificantDigits = 3
)

// Recorder holds one worker's latencies. The exact minimum, maximum and sum are
// kept beside the histogram, so the bonnie++ Latency row (a maximum) and the
// mean are exact rather than bucket-rounded.
type Recorder struct {
	h     *hdr.Histogram
	count int64
	minNs int64
	maxNs int64
	sumNs float64
	sumSq float64
}

// Bytes is the memory one Recorder's histogram takes, for the limits a
// run's footprint is checked against.
var Bytes = sync.OnceValue(func() int { return New().h.ByteSize() })

// New returns an empty Recorder.
func New() *Recorder {
	return &Recorder{h: hdr.New(LowestNs, HighestNs, SignificantDigits), minNs: math.MaxInt64}
}

// Record adds one operation's latency. It does not allocate.
func (r *Recorder) Record(d time.Duration) {
	ns := int64(d)
	if ns < LowestNs {
		ns = LowestNs
	}
	r.count++
	if ns < r.minNs {
		r.minNs = ns
	}
	if ns > r.maxNs {
		r.maxNs = ns
	}
	f := float64(ns)
	r.sumNs += f
	r.sumSq += f * f
	if ns > HighestNs {
		ns = HighestNs
	}
	_ = r.h.RecordValue(ns) // cannot fail: ns is clamped into the trackable range
}

// Merge adds every latency recorded in other to r.
func (r *Recorder) Merge(other *Recorder) {
	if other == nil || other.count == 0 {
		return
	}
	r.h.Merge(other.h)
	r.count += other.count
	r.minNs = min(r.minNs, other.minNs)
	r.maxNs = max(r.maxNs, other.maxNs)
	r.sumNs += other.sumNs
	r.sumSq += other.sumSq
}

// Reset empties r so a worker can reuse it for the next phase without allocating.
func (r *Recorder) Reset() {
	r.h.Reset()
	r.count, r.maxNs, r.sumNs, r.sumSq = 0, 0, 0, 0
	r.minNs = math.MaxInt64
}

// Count is the number of recorded operations.
func (r *Recorder) Count() int64 { return r.count }

// Max is the exact longest latency recorded, 0 when empty.
func (r *Recorder) Max() time.Duration { return time.Duration(r.maxNs) }

// PercentileNs returns the latency at percentile p (0..100), within 0.1%.
func (r *Recorder) PercentileNs(p float64) int64 {
	if r.count == 0 {
		return 0
	}
	v := r.h.ValueAtPercentile(p)
	// The histogram reports the top of a bucket; never past the exact extremes.
	return min(max(v, r.minNs), r.maxNs)
}

// Summary is the JSON form of a latency distribution. All values are nanoseconds.
type Summary struct {
	Count    int64   `json:"count"`
	MinNs    int64   `json:"min_ns"`
	MeanNs   float64 `json:"mean_ns"`
	StddevNs float64 `json:"stddev_ns"`
	P50Ns    int64   `json:"p50_ns"`
	P90Ns    int64   `json:"p90_ns"`
	P99Ns    int64   `json:"p99_ns"`
	P999Ns   int64   `json:"p99_9_ns"`
	MaxNs    int64   `json:"max_ns"`
	// HDR is the whole histogram in HdrHistogram's V2 compressed encoding
	// (the base64 "HISTF..." text the Java, C and Go HdrHistogram libraries
	// and their log tools read), so that results of many workers, runs or
	// hosts merge into true percentiles; percentiles themselves cannot be
	// averaged. FromSummary reads it back.
	HDR string `json:"hdr,omitempty"`
}

// Summary condenses r into the figures clyde reports.
func (r *Recorder) Summary() Summary {
	if r.count == 0 {
		return Summary{}
	}
	n := float64(r.count)
	mean := r.sumNs / n
	variance := r.sumSq/n - mean*mean
	if variance < 0 {
		variance = 0
	}
	return Summary{
		Count:    r.count,
		MinNs:    r.minNs,
		MeanNs:   mean,
		StddevNs: math.Sqrt(variance),
		P50Ns:    r.PercentileNs(50),
		P90Ns:    r.PercentileNs(90),
		P99Ns:    r.PercentileNs(99),
		P999Ns:   r.PercentileNs(99.9),
		MaxNs:    r.maxNs,
		HDR:      r.EncodeHDR(),
	}
}

// EncodeHDR is r's histogram in HdrHistogram's V2 compressed encoding, ""
// when r is empty.
func (r *Recorder) EncodeHDR() string {
	if r.count == 0 {
		return ""
	}
	b, err := r.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return "" // only a failing zlib writer on a bytes.Buffer could do this
	}
	return string(b)
}

// MaxHDRBytes bounds the encoded histogram FromSummary accepts: a clyde
// histogram with every one of its buckets populated encodes to well under it.
const MaxHDRBytes = 1 << 20

// FromSummary rebuilds a Recorder from a Summary clyde wrote, to be merged
// with others: the histogram from HDR, and the exact count, minimum,
// maximum, mean and standard deviation from their fields. It refuses a
// histogram of another geometry than clyde's, one whose count differs from
// Count, and a Summary without HDR (written before clyde kept histograms).
func FromSummary(s Summary) (*Recorder, error) {
	r := New()
	if s.Count == 0 {
		return r, nil
	}
	switch {
	case s.Count < 0 || s.MinNs < LowestNs || s.MaxNs < s.MinNs || s.StddevNs < 0 ||
		math.IsNaN(s.MeanNs) || math.IsInf(s.MeanNs, 0) || math.IsNaN(s.StddevNs) || math.IsInf(s.StddevNs, 0):
		return nil, fmt.Errorf("latency summary out of range: count %d, min %d, max %d, mean %g, stddev %g",
			s.Count, s.MinNs, s.MaxNs, s.MeanNs, s.StddevNs)
	case s.HDR == "":
		return nil, errors.New("latency summary has no histogram (hdr): written by a clyde that did not keep one")
	case len(s.HDR) > MaxHDRBytes:
		return nil, fmt.Errorf("latency histogram of %d bytes, more than %d", len(s.HDR), MaxHDRBytes)
	}
	// The sparse decoder allocates by what the input holds, not by the
	// geometry it claims, so a hostile header cannot ask for gigabytes.
	p, err := hdr.DecodePacked([]byte(s.HDR))
	if err != nil {
		return nil, fmt.Errorf("latency histogram: %w", err)
	}
	if p.LowestTrackableValue() != LowestNs || p.HighestTrackableValue() != HighestNs || p.SignificantFigures() != SignificantDigits {
		return nil, fmt.Errorf("latency histogram covers %d..%d ns at %d digits, not clyde's %d..%d at %d",
			p.LowestTrackableValue(), p.HighestTrackableValue(), p.SignificantFigures(), LowestNs, HighestNs, SignificantDigits)
	}
	if p.TotalCount() != s.Count {
		return nil, fmt.Errorf("latency histogram holds %d values, the summary says %d", p.TotalCount(), s.Count)
	}
	if dropped := p.MergeInto(r.h); dropped != 0 {
		return nil, fmt.Errorf("latency histogram: %d values outside clyde's range", dropped)
	}
	n := float64(s.Count)
	r.count, r.minNs, r.maxNs = s.Count, s.MinNs, s.MaxNs
	r.sumNs = s.MeanNs * n
	r.sumSq = n * (s.StddevNs*s.StddevNs + s.MeanNs*s.MeanNs)
	return r, nil
}
