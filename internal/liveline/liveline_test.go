package liveline

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// fixed is a source whose counts the test sets.
type fixed struct{ ios, bytes, atNs int64 }

func (f *fixed) Counts() (int64, int64, int64) { return f.ios, f.bytes, f.atNs }

func TestPass(t *testing.T) {
	for _, c := range []struct {
		pass, passes int
		want         string
	}{{0, 0, ""}, {3, 0, ""}, {0, 5, "warm-up"}, {2, 5, "pass 2/5"}} {
		if got := Pass(c.pass, c.passes); got != c.want {
			t.Errorf("Pass(%d, %d) = %q, want %q", c.pass, c.passes, got, c.want)
		}
	}
}

// The rate is each source's since its previous sample, over its own tick
// times, summed; a source that published nothing new keeps the last rate.
func TestSample(t *testing.T) {
	a, b := &fixed{ios: 100, bytes: 409600, atNs: 1e9}, &fixed{ios: 50, bytes: 204800, atNs: 5e8}
	l := New(&bytes.Buffer{}, []time.Duration{time.Second}, nil, 0, 0)
	l.Add(a)
	l.Add(b)
	l.sample()
	if l.iops != 200 || l.bw != 819200 {
		t.Fatalf("first sample: %v IOPS %v B/s, want 200 and 819200", l.iops, l.bw)
	}
	a.ios, a.bytes, a.atNs = 400, 409600*4, 2e9 // 300 I/Os in 1 s
	l.sample()
	if l.iops != 300 {
		t.Fatalf("second sample: %v IOPS, want 300 (b published nothing new)", l.iops)
	}
	l.sample()
	if l.iops != 300 {
		t.Fatalf("a sample with nothing new: %v IOPS, want the last rate kept", l.iops)
	}
}

// The time left is the running step's and every step's after it with its
// wait; a step without a time limit makes it unknown.
func TestEta(t *testing.T) {
	l := New(&bytes.Buffer{}, []time.Duration{10 * time.Second, 20 * time.Second, 5 * time.Second}, []time.Duration{0, 3 * time.Second}, 0, 0)
	l.step, l.total = 0, 10*time.Second
	if got := l.eta(4 * time.Second); got != "34s" {
		t.Errorf("eta during step 0 = %s, want 6+3+20+5 = 34s", got)
	}
	l.step, l.waiting = 1, 3*time.Second
	if got := l.eta(time.Second); got != "27s" {
		t.Errorf("eta during the wait before step 1 = %s, want 2+20+5 = 27s", got)
	}
	l.runs[2] = -1
	if got := l.eta(time.Second); !strings.HasPrefix(got, "unknown") {
		t.Errorf("eta with an unlimited step to come = %s, want unknown", got)
	}
}

// --eta-newline: a line drawn on for longer than newline is kept and
// another started; without it the line is redrawn in place.
func TestNewline(t *testing.T) {
	for _, c := range []struct {
		name    string
		newline time.Duration
		want    bool
	}{{"in place", 0, false}, {"new line", time.Second, true}} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			l := New(&out, []time.Duration{time.Second}, nil, 0, c.newline)
			l.row, l.began = "row", time.Now()
			l.draw()
			l.lineAt = l.lineAt.Add(-time.Hour)
			out.Reset()
			l.draw()
			if got := strings.HasPrefix(out.String(), "\n\r"); got != c.want {
				t.Errorf("second draw %q: new line %v, want %v", out.String(), got, c.want)
			}
		})
	}
}

// A row's line ends with a newline when the next row starts, not between
// steps of one row; Close ends the last.
func TestRows(t *testing.T) {
	var out bytes.Buffer
	l := New(&out, []time.Duration{time.Second, time.Second, time.Second}, nil, time.Hour, 0)
	l.Begin(0, "first", Pass(0, 1))
	l.End()
	l.Begin(1, "first", Pass(1, 1))
	l.End()
	if err := l.Idle(context.Background(), 2, "second", time.Millisecond); err != nil {
		t.Fatal(err)
	}
	l.Close()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "first  pass 1/1") || !strings.Contains(lines[1], "second  interval") {
		t.Fatalf("want a line per row: %q", out.String())
	}
}

// A nil line draws nothing and still waits.
func TestNil(t *testing.T) {
	var l *Line
	l.Begin(0, "r", "")
	l.Add(&fixed{})
	l.End()
	l.Note("n")
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Idle(ctx, 0, "r", time.Hour); err == nil {
		t.Fatal("a nil line's wait did not end with its context")
	}
}
