package blockbench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// observeFunc is a recorder that only sees completions.
type observeFunc func(IORecord)

func (f observeFunc) Start(int64) int64            { return math.MaxInt64 }
func (f observeFunc) IO(r IORecord)                { f(r) }
func (f observeFunc) Window(int64, IOTotals) int64 { return math.MaxInt64 }
func (f observeFunc) Finish(int64, IOTotals)       {}

// countingRecorder counts what it sees, without allocating; every is its
// window in ns (0: none).
type countingRecorder struct {
	every         int64
	ios, windows  int64
	starts        int
	startNs       int64
	last, finish  IOTotals
	finished      bool
	endNs, windNs int64
}

func (c *countingRecorder) Start(now int64) int64 {
	c.starts++
	c.startNs, c.ios = now, 0
	return c.next(now)
}

func (c *countingRecorder) next(now int64) int64 {
	if c.every == 0 {
		return math.MaxInt64
	}
	return now + c.every
}

func (c *countingRecorder) IO(IORecord) { c.ios++ }

func (c *countingRecorder) Window(now int64, t IOTotals) int64 {
	c.windows++
	c.last, c.windNs = t, now
	return c.next(now)
}

func (c *countingRecorder) Finish(end int64, t IOTotals) {
	c.finished, c.finish, c.endNs = true, t, end
}

// testSpec is a RecordSpec that hands out countingRecorders and writes one
// file per worker with its count.
type testSpec struct {
	perIO  bool
	every  int64
	writes bool
	bad    error
	got    *testGroup
}

type testGroup struct {
	ws      []RecordedWorkload
	workers []RecordedWorker
	recs    []*countingRecorder
	closed  int
}

func (s testSpec) Validate() error               { return s.bad }
func (s testSpec) Writes() bool                  { return s.writes }
func (s testSpec) Options(set func(k, v string)) { set("test_record", "1") }
func (s testSpec) StartGroup(ws []RecordedWorkload) (GroupRecorder, error) {
	s.got.ws = ws
	return s.got, nil
}

func (g *testGroup) Worker(w RecordedWorker) (IORecorder, bool) {
	s := g.ws[w.Set].Spec.(testSpec)
	r := &countingRecorder{every: s.every}
	g.workers, g.recs = append(g.workers, w), append(g.recs, r)
	return r, s.perIO
}

func (g *testGroup) Close() { g.closed++ }

func (g *testGroup) Write(write func(string, func(io.Writer) error) error) ([][]string, error) {
	notes := make([][]string, len(g.ws))
	var errs []error
	for i, w := range g.workers {
		r := g.recs[i]
		name := fmt.Sprintf("%s.%d", g.ws[w.Set].Name, g.ws[w.Set].FirstWorker+w.I)
		errs = append(errs, write(name, func(out io.Writer) error { _, err := fmt.Fprintf(out, "%d\n", r.ios); return err }))
		notes[w.Set] = append(notes[w.Set], "recorded "+name)
	}
	return notes, errors.Join(errs...)
}

// TestRecordHook: blockbench drives a workload's record hook as record.go
// says: one group recorder per group with the recording workloads in
// order, numbered through the plan; every completion seen when perIO, none
// otherwise; windows while measuring; the totals at the end the job's; the
// files through WriteLog and the notes into the job's.
func TestRecordHook(t *testing.T) {
	g := &testGroup{}
	dir := t.TempDir()
	base := Workload{Filename: filepath.Join(dir, "f"), RW: RandRW, RWMixRead: 50, BS: 4096, Size: 1 << 20, IODepth: 1,
		IOEngine: EnginePsync, Runtime: 150 * time.Millisecond, TimeBased: true, Buffer: Buffer{Kind: BufferRandom}, Seed: 3}
	a, b, c := base, base, base
	a.Name, a.NumJobs, a.Log = "a", 2, testSpec{perIO: true, writes: true, got: g}
	b.Name, b.NumJobs = "b", 1 // records nothing
	c.Name, c.NumJobs, c.Log = "c", 1, testSpec{every: int64(20 * time.Millisecond), writes: true, got: g}
	m := map[string]string{}
	p := Plan{Groups: []Group{{a, b, c}}, CommandLine: []string{"clyde"}, Shape: fioShape, WriteLog: func(name string, fill func(io.Writer) error) error {
		var s strings.Builder
		err := fill(&s)
		m[name] = s.String()
		return err
	}}
	res, err := RunPlan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.ws) != 2 || g.ws[0].Name != "a" || g.ws[0].FirstWorker != 1 || g.ws[1].Name != "c" || g.ws[1].FirstWorker != 4 {
		t.Fatalf("StartGroup saw %+v, want a from worker 1 and c from worker 4", g.ws)
	}
	if len(g.recs) != 3 || g.closed < 1 {
		t.Fatalf("%d recorders, closed %d times; want 3, closed", len(g.recs), g.closed)
	}
	for i, r := range g.recs {
		if r.starts != 1 || !r.finished {
			t.Errorf("recorder %d: started %d times, finished %v", i, r.starts, r.finished)
		}
	}
	ja := res.Jobs[0]
	if seen := g.recs[0].ios + g.recs[1].ios; seen != ja.Read.TotalIOs+ja.Write.TotalIOs {
		t.Errorf("a's recorders saw %d I/Os, the job did %d", seen, ja.Read.TotalIOs+ja.Write.TotalIOs)
	}
	rc := g.recs[2]
	jc := res.Jobs[2]
	// A window is due every 20 ms of the measured span; a busy machine
	// ticks less often, so the span bounds the count from above, and the
	// deadline's own tick makes at least one.
	if most := (rc.endNs-rc.startNs)/int64(20*time.Millisecond) + 1; rc.ios != 0 || rc.windows < 1 || rc.windows > most {
		t.Errorf("c's recorder saw %d I/Os and %d windows; want none (not per I/O) and 1 to %d windows (one per 20 ms of its %v)", rc.ios, rc.windows, most, time.Duration(rc.endNs-rc.startNs))
	}
	if got := rc.finish.IOs[0] + rc.finish.IOs[1]; got != jc.Read.TotalIOs+jc.Write.TotalIOs || rc.finish.LatSumNs[0] <= 0 {
		t.Errorf("c's totals at the end: %+v; the job did %d I/Os", rc.finish, jc.Read.TotalIOs+jc.Write.TotalIOs)
	}
	if rc.finish.ClatSumNs != rc.finish.LatSumNs || rc.finish.SlatSumNs != [2]float64{} {
		t.Errorf("psync's totals %+v: clat is lat and slat 0 without a submission stage", rc.finish)
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "a.1 a.2 c.4" {
		t.Errorf("files %v, want a.1 a.2 c.4", names)
	}
	if !slices.Contains(ja.Notes, "recorded a.2") || !slices.Contains(jc.Notes, "recorded c.4") || slices.ContainsFunc(res.Jobs[1].Notes, func(s string) bool { return strings.HasPrefix(s, "recorded") }) {
		t.Errorf("notes a %q, b %q, c %q", ja.Notes, res.Jobs[1].Notes, jc.Notes)
	}
	if ja.Options.Get("test_record") != "1" || res.Jobs[1].Options.Get("test_record") != "" {
		t.Errorf("options a %v, b %v: the spec's options echo in its job only", ja.Options, res.Jobs[1].Options)
	}
}

// TestRecordHookRefusals: a spec's refusal is the plan's, and a spec that
// writes needs a WriteLog.
func TestRecordHookRefusals(t *testing.T) {
	w := Workload{Name: "j", Filename: filepath.Join(t.TempDir(), "f"), RW: Read, BS: 4096, Size: 1 << 20, IODepth: 1,
		NumJobs: 1, IOEngine: EnginePsync, Runtime: time.Millisecond, Buffer: Buffer{Kind: BufferRandom}}
	bad := errors.New("refused by the spec")
	w.Log = testSpec{bad: bad, got: &testGroup{}}
	if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}}); !errors.Is(err, bad) {
		t.Errorf("a refused spec ran: %v", err)
	}
	w.Log = testSpec{writes: true, got: &testGroup{}}
	if _, err := RunPlan(context.Background(), Plan{Groups: []Group{{w}}}); err == nil || !strings.Contains(err.Error(), "WriteLog") {
		t.Errorf("a plan with a writing record and no WriteLog ran: %v", err)
	}
}
