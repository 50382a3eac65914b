package latency

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

// fio's percentile rule, written down here from fio 3.33's stat.c so that
// the test does not take it from the code it checks:
//
//	for (i = 0; i < FIO_IO_U_PLAT_NR && !is_last; i++) {
//		sum += io_u_plat[i];
//		while (sum >= ((long double) plist[j].u.f / 100.0 * nr)) {
//			ovals[j] = plat_idx_to_val(i);
//			...
//			j++;
//
// that is: walk the buckets in order with a running count; percentile p is
// the first bucket at which the count reaches p/100 of all (at or above,
// not past), and its value is the bucket's midpoint, plat_idx_to_val:
//
//	if (idx < (FIO_IO_U_PLAT_VAL << 1)) return idx;
//	error_bits = (idx >> FIO_IO_U_PLAT_BITS) - 1;
//	base = 1 << (error_bits + FIO_IO_U_PLAT_BITS);
//	k = idx % FIO_IO_U_PLAT_VAL;
//	return base + ((k + 0.5) * (1 << error_bits));

// fioMidpoint is plat_idx_to_val with FIO_IO_U_PLAT_BITS 6.
func fioMidpoint(idx int) int64 {
	const bits, val = 6, 1 << 6
	if idx < val<<1 {
		return int64(idx)
	}
	errorBits := (idx >> bits) - 1
	base := int64(1) << (errorBits + bits)
	k := float64(idx % val)
	return base + int64((k+0.5)*float64(int64(1)<<errorBits))
}

// fioBin is one bucket of fio's histogram: its value (what json+ keys its
// bins by, the midpoint) and its count.
type fioBin struct {
	value, count int64
}

// fioRulePercentiles applies the rule to buckets in ascending order.
func fioRulePercentiles(bins []fioBin, ps []float64) []int64 {
	var n int64
	for _, b := range bins {
		n += b.count
	}
	out := make([]int64, len(ps))
	var sum int64
	j := 0
	for _, b := range bins {
		sum += b.count
		for j < len(ps) && float64(sum) >= ps[j]/100*float64(n) {
			out[j] = b.value
			j++
		}
	}
	return out
}

// TestFioMidpointIsFios pins FioPlatValue to plat_idx_to_val as written
// above, for every bucket.
func TestFioMidpointIsFios(t *testing.T) {
	for idx := range FioPlatNr {
		if got, want := FioPlatValue(idx), fioMidpoint(idx); got != want {
			t.Fatalf("FioPlatValue(%d) = %d, fio's plat_idx_to_val gives %d", idx, got, want)
		}
	}
}

// assertFioPercentiles checks clyde's FioPercentilesNs on latencies at the
// bins' values against the rule's: the same sample, named within the
// histogram's 0.1% (clyde names the top of its finer bucket, at or above).
func assertFioPercentiles(t *testing.T, bins []fioBin, ps []float64, want []int64) {
	t.Helper()
	r := New()
	for _, b := range bins {
		for range b.count {
			r.Record(time.Duration(b.value))
		}
	}
	got := r.FioPercentilesNs(ps, nil)
	for i, p := range ps {
		if d := got[i] - want[i]; d < 0 || float64(d) > float64(want[i])/1000+1 {
			t.Errorf("p%g = %d, fio's rule names %d", p, got[i], want[i])
		}
	}
}

// TestFioPercentileRuleAtBoundaries: 200 latencies far apart (5% steps,
// each a fio bucket of its own), so every one of fio's default percentiles
// up to 99.5 falls exactly on a count (p/100 x 200 is whole): fio takes the
// sample the count reaches, not the next one, and not the nearest rank.
func TestFioPercentileRuleAtBoundaries(t *testing.T) {
	var bins []fioBin
	v := 1000.0
	for range 200 {
		bins = append(bins, fioBin{FioPlatValue(FioPlatIndex(int64(v))), 1})
		v *= 1.05
	}
	want := fioRulePercentiles(bins, FioPercentiles)
	// The rule by hand at three points: p1 is the 2nd sample, p50 the
	// 100th, p99.99 the last.
	if want[0] != bins[1].value || want[6] != bins[99].value || want[len(want)-1] != bins[199].value {
		t.Fatalf("the rule as written gives p1 %d, p50 %d, p99.99 %d; want samples 2, 100 and 200", want[0], want[6], want[len(want)-1])
	}
	assertFioPercentiles(t, bins, FioPercentiles, want)
}

// TestFioPercentileRuleAgainstFio runs fio itself (100 reads, so its
// percentiles fall on whole counts too) with json+ and checks the rule as
// written gives, from fio's own bins, exactly the percentiles fio printed;
// then that clyde names the same ones from the same latencies.
func TestFioPercentileRuleAgainstFio(t *testing.T) {
	fio, err := exec.LookPath("fio")
	if err != nil {
		clydetest.Skip(t, "fio is not installed (apt-get install fio; CI installs it)")
	}
	dir := t.TempDir()
	job := "[r]\nfilename=data\nsize=400k\nbs=4k\nrw=randread\nioengine=psync\n"
	if err := os.WriteFile(filepath.Join(dir, "job.fio"), []byte(job), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fio, "--output-format=json+", "--output=out.json", "job.fio")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fio: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Jobs []struct {
			Read struct {
				Clat struct {
					N          int64            `json:"N"`
					Percentile map[string]int64 `json:"percentile"`
					Bins       map[string]int64 `json:"bins"`
				} `json:"clat_ns"`
			} `json:"read"`
		} `json:"jobs"`
	}
	if err := json.Unmarshal(data, &out); err != nil || len(out.Jobs) != 1 {
		t.Fatalf("fio's json+: %v (%d jobs)", err, len(out.Jobs))
	}
	c := out.Jobs[0].Read.Clat
	var bins []fioBin
	var n int64
	for k, count := range c.Bins {
		v, err := strconv.ParseInt(k, 10, 64)
		if err != nil {
			t.Fatalf("bin %q: %v", k, err)
		}
		bins = append(bins, fioBin{v, count})
		n += count
	}
	sort.Slice(bins, func(i, j int) bool { return bins[i].value < bins[j].value })
	if n != 100 || c.N != 100 {
		t.Fatalf("fio's bins hold %d latencies, N %d; want the 100 reads", n, c.N)
	}
	var ps []float64
	var fioSays []int64
	for k, v := range c.Percentile {
		p, err := strconv.ParseFloat(k, 64)
		if err != nil {
			t.Fatalf("percentile %q: %v", k, err)
		}
		ps = append(ps, p)
		fioSays = append(fioSays, v)
	}
	order := make([]int, len(ps))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return ps[order[a]] < ps[order[b]] })
	sortedPs, want := make([]float64, len(ps)), make([]int64, len(ps))
	for i, o := range order {
		sortedPs[i], want[i] = ps[o], fioSays[o]
	}
	if len(sortedPs) != len(FioPercentiles) || math.Abs(sortedPs[0]-1) > 1e-9 {
		t.Fatalf("fio printed percentiles %v, want its default list", sortedPs)
	}
	rule := fioRulePercentiles(bins, sortedPs)
	for i, p := range sortedPs {
		if rule[i] != want[i] {
			t.Errorf("p%g: the rule as written gives %d from fio's bins, fio printed %d", p, rule[i], want[i])
		}
	}
	assertFioPercentiles(t, bins, sortedPs, want)
}
