package fiojob

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/clydetest"
)

// memLogs is a WriteLog that keeps every file in memory.
type memLogs struct {
	mu    sync.Mutex
	files map[string][]byte
}

func (m *memLogs) write(name string, fill func(io.Writer) error) error {
	var b bytes.Buffer
	if err := fill(&b); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.files == nil {
		m.files = map[string][]byte{}
	}
	if _, dup := m.files[name]; dup {
		return os.ErrExist
	}
	m.files[name] = b.Bytes()
	return nil
}

// fioLogLine is fio 3.33's log line: time (ms), value, direction, block
// size, then the offset with log_offset, then the priority.
var (
	fioLogLine       = regexp.MustCompile(`^(\d+), (\d+), ([012]), (\d+), (\d+)$`)
	fioLogLineOffset = regexp.MustCompile(`^(\d+), (\d+), ([012]), (\d+), (\d+), (\d+)$`)
)

type logLine struct{ ms, value, dir, bs, off int64 }

func parseLog(t *testing.T, name string, data []byte, offset bool) []logLine {
	t.Helper()
	var out []logLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		re := fioLogLine
		if offset {
			re = fioLogLineOffset
		}
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			t.Fatalf("%s:%d: %q is not a fio log line", name, n, sc.Text())
		}
		var v [6]int64
		for i := 1; i < len(m); i++ {
			v[i-1], _ = strconv.ParseInt(m[i], 10, 64)
		}
		l := logLine{ms: v[0], value: v[1], dir: v[2], bs: v[3]}
		if offset {
			l.off = v[4]
		}
		out = append(out, l)
	}
	return out
}

func logPlan(t *testing.T, engine blockbench.Engine, log LogSpec, runtime time.Duration, numJobs int) (blockbench.Plan, *memLogs) {
	t.Helper()
	if engine == blockbench.EngineIOUring && blockbench.EngineAvailable(blockbench.EngineIOUring) != nil {
		clydetest.Skip(t, "io_uring not available here")
	}
	m := &memLogs{}
	w := blockbench.Workload{Name: "j", Filename: filepath.Join(t.TempDir(), "f"), RW: blockbench.RandRW, RWMixRead: 50, BS: 4096, Size: 1 << 20,
		IODepth: 4, NumJobs: numJobs, IOEngine: engine, Runtime: runtime, TimeBased: true, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom},
		Seed: 7, Log: log}
	return blockbench.Plan{Groups: []blockbench.Group{{w}}, WriteLog: m.write, CommandLine: []string{"clyde"}}, m
}

func TestPerIOLogs(t *testing.T) {
	for _, engine := range []blockbench.Engine{blockbench.EnginePsync, blockbench.EngineIOUring} {
		t.Run(string(engine), func(t *testing.T) {
			p, m := logPlan(t, engine, LogSpec{BW: "bw", IOPS: "io", Lat: "lat", Offset: true}, 100*time.Millisecond, 2)
			names := LogNames(p)
			res, err := blockbench.RunPlan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"bw_bw.1.log", "io_iops.1.log", "lat_slat.1.log", "lat_clat.1.log", "lat_lat.1.log",
				"bw_bw.2.log", "io_iops.2.log", "lat_slat.2.log", "lat_clat.2.log", "lat_lat.2.log"}
			if strings.Join(names, " ") != strings.Join(want, " ") {
				t.Fatalf("LogNames = %v, want %v", names, want)
			}
			job := res.Jobs[0]
			// An I/O is logged at its completion, within the measured run
			// however long a busy machine made it.
			elapsedMs := job.ElapsedNs/int64(time.Millisecond) + 1
			var lines [5]int
			for _, name := range names {
				data, ok := m.files[name]
				if !ok {
					t.Fatalf("%s was not written", name)
				}
				ls := parseLog(t, name, data, true)
				kind := strings.TrimSuffix(strings.SplitN(name, "_", 2)[1], filepath.Ext(name))
				kind = strings.TrimSuffix(kind, filepath.Ext(kind))
				for i, l := range ls {
					switch {
					case l.bs != 4096 || l.off%4096 != 0 || l.off >= 1<<20:
						t.Fatalf("%s line %d: bs %d offset %d, want 4096 within the 1 MiB region", name, i+1, l.bs, l.off)
					case kind == "iops" && l.value != 1:
						t.Fatalf("%s line %d: value %d, fio's per-I/O iops lines say 1", name, i+1, l.value)
					case l.ms > elapsedMs:
						t.Fatalf("%s line %d: at %d ms of a %d ms run", name, i+1, l.ms, elapsedMs)
					}
				}
				for k, s := range []string{"bw", "iops", "slat", "clat", "lat"} {
					if kind == s {
						lines[k] += len(ls)
					}
				}
			}
			ios := int(job.Read.TotalIOs + job.Write.TotalIOs)
			for k, s := range []string{"bw", "iops", "clat", "lat"} {
				if n := lines[[]int{0, 1, 3, 4}[k]]; n != ios {
					t.Errorf("%s logs: %d lines, the job did %d I/Os", s, n, ios)
				}
			}
			if engine == blockbench.EnginePsync && lines[2] != 0 {
				t.Errorf("psync's slat log has %d lines; it has no submission stage, fio writes it empty", lines[2])
			}
			if engine == blockbench.EngineIOUring && lines[2] != ios {
				t.Errorf("slat logs: %d lines, the job did %d I/Os", lines[2], ios)
			}
		})
	}
}

// TestAveragedLogs: with log_avg_msec the logs hold one line per direction
// per window, runtime/log_avg_msec of them.
func TestAveragedLogs(t *testing.T) {
	const runtime, avg = 600 * time.Millisecond, 100
	p, m := logPlan(t, blockbench.EnginePsync, LogSpec{BW: "a", IOPS: "a", Lat: "a", AvgMsec: avg}, runtime, 1)
	res, err := blockbench.RunPlan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	// A window is closed by the worker's next tick past its end, so on a
	// busy machine a stalled worker closes several in one line, later:
	// what holds however loaded the machine is that the n-th line comes
	// no earlier than the end of the n-th window (the last, closed at the
	// end of the run, half a window earlier at most), none after the run,
	// and at most one line per window of the run's measured time.
	job := res.Jobs[0]
	elapsedMs := job.ElapsedNs / int64(time.Millisecond)
	maxLines := int(elapsedMs/avg) + 1
	for _, name := range []string{"a_bw.1.log", "a_iops.1.log", "a_clat.1.log", "a_lat.1.log"} {
		ls := parseLog(t, name, m.files[name], false)
		perDir := map[int64][]logLine{}
		for _, l := range ls {
			perDir[l.dir] = append(perDir[l.dir], l)
		}
		for dir, dl := range perDir {
			if len(dl) < 1 || len(dl) > maxLines {
				t.Errorf("%s direction %d: %d lines, want 1 to %d (one per %d ms window of the %d ms run)", name, dir, len(dl), maxLines, avg, elapsedMs)
			}
			prev := int64(0)
			for i, l := range dl {
				if l.ms < int64(i+1)*avg-avg/2 || l.ms > elapsedMs+1 || l.bs != 0 || l.ms <= prev {
					t.Errorf("%s direction %d line %d: at %d ms (the line before at %d) with bs %d; want bs 0, after window %d's end and the line before, within the %d ms run",
						name, dir, i+1, l.ms, prev, l.bs, i+1, elapsedMs)
				}
				prev = l.ms
			}
		}
		if len(perDir) != 2 {
			t.Errorf("%s: lines for %d directions, want read and write", name, len(perDir))
		}
	}
	if len(m.files["a_slat.1.log"]) != 0 {
		t.Error("psync's slat log is not empty")
	}
	// The windows add up to the job: each iops line is the window's I/Os
	// per second over the time since the previous line of either direction
	// (both close together), so the lines times their spans are the job's
	// I/Os, less what truncation and a last window under half a window
	// (which no line reports) leave out.
	iops := parseLog(t, "a_iops.1.log", m.files["a_iops.1.log"], false)
	closes := map[int64]bool{}
	for _, l := range iops {
		closes[l.ms] = true
	}
	var at []int64
	for ms := range closes {
		at = append(at, ms)
	}
	slices.Sort(at)
	var ios float64
	for _, l := range iops {
		if l.dir != 0 {
			continue
		}
		i, _ := slices.BinarySearch(at, l.ms)
		prev := int64(0)
		if i > 0 {
			prev = at[i-1]
		}
		ios += float64(l.value) * float64(l.ms-prev) / 1000
	}
	if total := float64(job.Read.TotalIOs); total == 0 || ios < total*0.8 || ios > total*1.05+10 {
		t.Errorf("the read iops lines add up to %.0f I/Os, the job did %.0f", ios, total)
	}
}

// TestFio2gnuplotReadsLogs runs fio's fio2gnuplot on clyde's bandwidth log.
func TestFio2gnuplotReadsLogs(t *testing.T) {
	tool, err := exec.LookPath("fio2gnuplot")
	if err != nil {
		clydetest.Skip(t, "needs fio2gnuplot (Debian's fio package): not in PATH")
	}
	p, m := logPlan(t, blockbench.EnginePsync, LogSpec{BW: "clyde", AvgMsec: 100}, 500*time.Millisecond, 1)
	if _, err := blockbench.RunPlan(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "clyde_bw.1.log"), m.files["clyde_bw.1.log"], 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tool, "-b")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "clyde_bw.1.log") {
		t.Fatalf("fio2gnuplot -b: %v\n%s", err, out)
	}
	global, err := os.ReadFile(filepath.Join(dir, "result.global"))
	if err != nil {
		t.Fatalf("fio2gnuplot wrote no result.global: %v", err)
	}
	// fio2gnuplot counts every line of the log (both directions' lines);
	// how many windows fit in the runtime is the machine's business.
	lines := strings.Count(string(m.files["clyde_bw.1.log"]), "\n")
	if want := fmt.Sprintf("values_count=%d", lines); lines == 0 || !strings.Contains(string(global), want) {
		t.Errorf("fio2gnuplot read:\n%s\nwant %s, the log's lines", global, want)
	}
}

func TestLogSpecRefusals(t *testing.T) {
	cases := []struct {
		name string
		log  LogSpec
		flag string
	}{
		{"negative window", LogSpec{BW: "x", AvgMsec: -1}, "--log_avg_msec"},
		{"window without a log", LogSpec{AvgMsec: 100}, "--log_avg_msec"},
		{"prefix is a directory", LogSpec{Lat: "dir/"}, "--write_lat_log"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.log.Validate()
			if err == nil || !strings.HasPrefix(err.Error(), tc.flag+":") {
				t.Fatalf("Validate() = %v, want an error naming %s", err, tc.flag)
			}
		})
	}
	p := blockbench.Plan{Groups: []blockbench.Group{{{Name: "j", Filename: filepath.Join(t.TempDir(), "f"), RW: blockbench.Read, BS: 4096, Size: 1 << 20, IODepth: 1,
		NumJobs: 1, IOEngine: blockbench.EnginePsync, Runtime: time.Millisecond, Buffer: blockbench.Buffer{Kind: blockbench.BufferRandom}, Log: LogSpec{BW: "x"}}}}}
	if _, err := blockbench.RunPlan(context.Background(), p); err == nil || !strings.Contains(err.Error(), "WriteLog") {
		t.Errorf("a plan with logs and no WriteLog ran: %v", err)
	}
}

// TestLogsDoNotAllocate: the logs' side of the record hook runs in the I/O
// loop: per-I/O lines take their chunks from the pool goroutine, averaged
// windows fill a slice made before the start, the histogram log counts in
// place between its lines.
func TestLogsDoNotAllocate(t *testing.T) {
	cases := []struct {
		name string
		spec LogSpec
	}{
		{"per-I/O", LogSpec{BW: "b", IOPS: "i", Lat: "l", Offset: true}},
		{"averaged", LogSpec{BW: "b", Lat: "l", AvgMsec: 1}},
		{"histogram", LogSpec{Hist: "h", HistMsec: 1 << 20}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := []blockbench.RecordedWorkload{{Spec: c.spec, Name: "j", NumJobs: 1, FirstWorker: 1, Runtime: time.Minute}}
			g, err := c.spec.StartGroup(ws)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			rec, perIO := g.Worker(blockbench.RecordedWorker{Split: true})
			if rec == nil {
				t.Fatal("no recorder")
			}
			next := rec.Start(0)
			var now, ios int64
			var tot blockbench.IOTotals
			allocs := testing.AllocsPerRun(3*logChunkLen, func() {
				now += 1000
				ios++
				tot.IOs[0], tot.Bytes[0], tot.LatSumNs[0] = ios, ios*4096, float64(ios*900)
				if perIO {
					rec.IO(blockbench.IORecord{Bytes: 4096, Offset: ios * 4096, PrepNs: now - 900, SubmitNs: now - 800, DoneNs: now})
				}
				if now >= next {
					next = rec.Window(now, tot)
				}
			})
			if allocs != 0 {
				t.Errorf("%g allocations per I/O", allocs)
			}
			wantPerIO := c.spec.AvgMsec == 0
			if perIO != wantPerIO {
				t.Errorf("perIO %v, want %v: only per-I/O lines and the histogram see every I/O", perIO, wantPerIO)
			}
		})
	}
}

// TestJobLogNames: a job's logs are named as its plan's, and a job
// without logs has none.
func TestJobLogNames(t *testing.T) {
	j := blockbench.NewJob(filepath.Join(t.TempDir(), "f"))
	j.BlockSizes, j.NumJobs = []int64{4096, 8192}, 2
	if names := JobLogNames(&j); names != nil {
		t.Errorf("no logs asked for, names %q", names)
	}
	j.Log = LogSpec{BW: "p"}
	want := []string{"p_bw.1.log", "p_bw.2.log", "p_bw.3.log", "p_bw.4.log"}
	if names := JobLogNames(&j); strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("JobLogNames = %q, want %q: one job per block size, workers numbered through the plan", names, want)
	}
}

// TestLogFlag: every log LogNames lists is named with the flag that asked
// for it, whatever its prefix holds.
func TestLogFlag(t *testing.T) {
	p, _ := logPlan(t, blockbench.EnginePsync, LogSpec{BW: "a", IOPS: "b", Lat: "c", Hist: "d", HistMsec: 100}, time.Second, 1)
	want := []string{"--write_bw_log", "--write_iops_log", "--write_lat_log", "--write_lat_log", "--write_lat_log", "--write_hist_log"}
	names := LogNames(p)
	if len(names) != len(want) {
		t.Fatalf("LogNames = %q", names)
	}
	for i, n := range names {
		if got := LogFlag(n); got != want[i] {
			t.Errorf("LogFlag(%q) = %s, want %s", n, got, want[i])
		}
	}
	for name, flag := range map[string]string{
		"run_bw.x_clat.1.log": "--write_lat_log", "dir/my_iops_bw.12.log": "--write_bw_log",
		"x_clat_hist.3.log": "--write_hist_log", "x_lat.1.log": "--write_lat_log", "x_slat.2.log": "--write_lat_log",
	} {
		if got := LogFlag(name); got != flag {
			t.Errorf("LogFlag(%q) = %s, want %s", name, got, flag)
		}
	}
}
