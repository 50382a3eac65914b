package fiojob

import (
	"bufio"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/latency"
)

// TestHistLog: fio's histogram log lines: a line per direction once a
// window of log_hist_msec has passed, with the window's I/Os only, in
// fio's 1856 buckets (or 1856/2^coarseness columns).
func TestHistLog(t *testing.T) {
	h := newHistLog(100)
	ms := int64(time.Millisecond)
	h.add(0, 4096, 1000, 5*ms)   // starts the read window at 5 ms
	h.add(0, 4096, 1000, 50*ms)  // inside it
	h.add(1, 4096, 2000, 60*ms)  // starts the write window
	h.add(0, 4096, 1000, 105*ms) // closes the read window: 3 reads
	h.add(0, 4096, 1000, 210*ms) // the next ends at 205 ms: 1 read
	if len(h.lines) != 2 || h.lines[0].atMs != 105 || h.lines[1].atMs != 210 {
		t.Fatalf("lines %+v, want reads at 105 and 210 ms", h.lines)
	}
	idx := latency.FioPlatIndex(1000)
	if h.lines[0].bins[idx] != 3 || h.lines[1].bins[idx] != 1 {
		t.Errorf("bucket %d: %d then %d I/Os, want 3 then 1 (each line its window's)", idx, h.lines[0].bins[idx], h.lines[1].bins[idx])
	}
	for _, c := range []struct{ coarseness, cols int }{{0, 3 + latency.FioPlatNr}, {2, 3 + latency.FioPlatNr/4}} {
		var b strings.Builder
		w := bufio.NewWriter(&b)
		if err := h.write(w, c.coarseness, [2]int8{0, 1}); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		first, _, _ := strings.Cut(b.String(), "\n")
		fields := strings.Split(first, ", ")
		if len(fields) != c.cols || fields[0] != "105" || fields[1] != "0" || fields[2] != "4096" {
			t.Errorf("coarseness %d: %d fields starting %q, want %d starting 105, 0, 4096", c.coarseness, len(fields), fields[:3], c.cols)
		}
	}
}
