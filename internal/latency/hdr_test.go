package latency

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// fill records n latencies drawn around 100 us (with a tail past the
// histogram's one-hour top) into a new Recorder.
func fill(seed uint64, n int) *Recorder {
	rng := rand.New(rand.NewPCG(seed, 7))
	r := New()
	for range n {
		r.Record(time.Duration(math.Exp(rng.NormFloat64()*1.5 + math.Log(100_000))))
	}
	r.Record(2 * time.Hour)
	return r
}

// TestMergeThroughJSON is what merging results of many hosts relies on:
// summaries written as JSON, read back and merged give the same figures as
// merging the recorders themselves.
func TestMergeThroughJSON(t *testing.T) {
	parts := []*Recorder{fill(1, 50_000), fill(2, 20_000), fill(3, 1)}
	direct := New()
	viaJSON := New()
	for _, p := range parts {
		direct.Merge(p)
		data, err := json.Marshal(p.Summary())
		if err != nil {
			t.Fatal(err)
		}
		var s Summary
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		back, err := FromSummary(s)
		if err != nil {
			t.Fatal(err)
		}
		viaJSON.Merge(back)
	}
	want, got := direct.Summary(), viaJSON.Summary()
	if got.Count != want.Count || got.MinNs != want.MinNs || got.MaxNs != want.MaxNs ||
		got.P50Ns != want.P50Ns || got.P90Ns != want.P90Ns || got.P99Ns != want.P99Ns || got.P999Ns != want.P999Ns {
		t.Fatalf("merged through JSON %+v, merged directly %+v", got, want)
	}
	for _, p := range []float64{1, 5, 25, 50, 75, 95, 99.5, 99.99} {
		if a, b := viaJSON.PercentileNs(p), direct.PercentileNs(p); a != b {
			t.Errorf("p%v: %d through JSON, %d directly", p, a, b)
		}
	}
	if rel := math.Abs(got.MeanNs-want.MeanNs) / want.MeanNs; rel > 1e-9 {
		t.Errorf("mean %v through JSON, %v directly", got.MeanNs, want.MeanNs)
	}
	if rel := math.Abs(got.StddevNs-want.StddevNs) / want.StddevNs; rel > 1e-6 {
		t.Errorf("stddev %v through JSON, %v directly", got.StddevNs, want.StddevNs)
	}
	if got.HDR != want.HDR {
		t.Errorf("the merged histograms encode differently")
	}
}

func TestFromSummaryRefuses(t *testing.T) {
	good := fill(4, 1000).Summary()
	// A histogram of another geometry, with the same count.
	h := hdr.New(1, 1_000_000, 2)
	_ = h.RecordValues(500, good.Count)
	otherBytes, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	other := string(otherBytes)
	cases := []struct {
		name string
		edit func(s *Summary)
		err  string
	}{
		{"no histogram", func(s *Summary) { s.HDR = "" }, "no histogram"},
		{"not base64", func(s *Summary) { s.HDR = "HISTF!!!!" }, "latency histogram"},
		{"truncated", func(s *Summary) { s.HDR = s.HDR[:len(s.HDR)/2] }, "latency histogram"},
		{"count differs", func(s *Summary) { s.Count++ }, "holds 1001 values, the summary says 1002"},
		{"another geometry", func(s *Summary) { s.HDR = other }, "not clyde's"},
		{"too long", func(s *Summary) { s.HDR = strings.Repeat("A", MaxHDRBytes+1) }, "more than"},
		{"negative count", func(s *Summary) { s.Count = -1 }, "out of range"},
		{"max under min", func(s *Summary) { s.MaxNs = s.MinNs - 1 }, "out of range"},
		{"NaN mean", func(s *Summary) { s.MeanNs = math.NaN() }, "out of range"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := good
			c.edit(&s)
			_, err := FromSummary(s)
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want one line containing %q", err, c.err)
			}
		})
	}
	if r, err := FromSummary(Summary{}); err != nil || r.Count() != 0 {
		t.Fatalf("empty summary: %v, %d values", err, r.Count())
	}
}

func FuzzFromSummary(f *testing.F) {
	good := fill(5, 100).Summary()
	f.Add(good.HDR, good.Count, good.MinNs, good.MaxNs)
	f.Add("", int64(0), int64(0), int64(0))
	f.Fuzz(func(t *testing.T, hdrText string, count, minNs, maxNs int64) {
		r, err := FromSummary(Summary{Count: count, MinNs: minNs, MaxNs: maxNs, MeanNs: 1, HDR: hdrText})
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not one line", err)
			}
			return
		}
		if r.Count() != max(count, 0) {
			t.Fatalf("count %d, summary said %d", r.Count(), count)
		}
		if count > 0 {
			// Accepted: the histogram is clyde's and summarises again.
			if s := r.Summary(); s.P50Ns < minNs || s.P50Ns > maxNs {
				t.Fatalf("p50 %d outside %d..%d", s.P50Ns, minNs, maxNs)
			}
		}
	})
}
