package blockbench

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

// The progress line redraws each row in place and ends it with a newline
// when the next row starts: two groups of one row, then an interval and a
// group of another, make two lines.
func TestLiveLinePerRow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	w := Workload{Name: "rr", Filename: path, RW: RandRead, BS: 4096, Size: 1 << 20, IODepth: 1, NumJobs: 2,
		IOEngine: EnginePsync, Runtime: 600 * time.Millisecond, TimeBased: true, Buffer: Buffer{Kind: BufferRandom}}
	var out clydetest.SyncBuffer
	p := Plan{Groups: []Group{{w}, {w}, {w}}, Progress: &out,
		Labels: []GroupLabel{{Row: "first row", Pass: 0, Passes: 1}, {Row: "first row", Pass: 1, Passes: 1}, {Row: "second row"}},
		Idle:   []time.Duration{0, 0, 600 * time.Millisecond}}
	if _, err := RunPlan(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != 2 || !strings.HasSuffix(s, "\n") {
		t.Fatalf("want two lines, each ended: %q", s)
	}
	for _, want := range []string{"first row  warm-up", "first row  pass 1/1", "IOPS", "MB/s", "ETA "} {
		if !strings.Contains(lines[0], want) {
			t.Errorf("first line lacks %q: %q", want, lines[0])
		}
	}
	if !strings.Contains(lines[1], "second row  interval") || !strings.Contains(lines[1], "/1 s") {
		t.Errorf("second line lacks the interval: %q", lines[1])
	}
	if !regexp.MustCompile(`  [1-9][0-9,]* IOPS  `).MatchString(lines[0]) {
		t.Errorf("the first row never showed a rate: %q", lines[0])
	}
}

// TestLiveEtaOptions: fio's --eta-interval redraws the line that often,
// --eta-newline keeps each line and starts another that often, one row
// still one row.
func TestLiveEtaOptions(t *testing.T) {
	w := Workload{Name: "rr", Filename: filepath.Join(t.TempDir(), "f"), RW: RandRead, BS: 4096, Size: 1 << 20, IODepth: 1, NumJobs: 1,
		IOEngine: EnginePsync, Runtime: 600 * time.Millisecond, TimeBased: true, Buffer: Buffer{Kind: BufferRandom}}
	var out clydetest.SyncBuffer
	p := Plan{Groups: []Group{{w}}, Progress: &out, ProgressEvery: 50 * time.Millisecond, ProgressNewline: 200 * time.Millisecond}
	if _, err := RunPlan(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	// 600 ms of redraws every 50 ms: more than the default 500 ms's one
	// or two; new lines every 200 ms: more than one line.
	if n := strings.Count(s, "\r"); n < 4 || len(lines) < 2 {
		t.Fatalf("%d redraws on %d lines, want at least 4 on 2: %q", n, len(lines), s)
	}
	for _, l := range lines {
		if !strings.Contains(l, "rr") {
			t.Errorf("a line without its row: %q", l)
		}
	}
}
