package blockbench

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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
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

func logPlan(t *testing.T, engine Engine, log LogSpec, runtime time.Duration, numJobs int) (Plan, *memLogs) {
	t.Helper()
	if engine == EngineIOUring && uringAvailable() != nil {
		t.Skip("io_uring not available here")
	}
	m := &memLogs{}
	w := Workload{Name: "j", Filename: filepath.Join(t.TempDir(), "f"), RW: RandRW, RWMixRead: 50, BS: 4096, Size: 1 << 20,
		IODepth: 4, NumJobs: numJobs, IOEngine: engine, Runtime: runtime, TimeBased: true, Buffer: Buffer{Kind: BufferRandom},
		Seed: 7, Log: log}
	return Plan{Groups: []Group{{w}}, WriteLog: m.write, CommandLine: []string{"clyde"}}, m
}

func TestPerIOLogs(t *testing.T) {
	for _, engine := range []Engine{EnginePsync, EngineIOUring} {
		t.Run(string(engine), func(t *testing.T) {
			p, m := logPlan(t, engine, LogSpec{BW: "bw", IOPS: "io", Lat: "lat", Offset: true}, 30*time.Millisecond, 2)
			names := LogNames(p)
			res, err := RunPlan(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"bw_bw.1.log", "io_iops.1.log", "lat_slat.1.log", "lat_clat.1.log", "lat_lat.1.log",
				"bw_bw.2.log", "io_iops.2.log", "lat_slat.2.log", "lat_clat.2.log", "lat_lat.2.log"}
			if strings.Join(names, " ") != strings.Join(want, " ") {
				t.Fatalf("LogNames = %v, want %v", names, want)
			}
			job := res.Jobs[0]
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
					case l.ms > 100:
						t.Fatalf("%s line %d: at %d ms of a 30 ms run", name, i+1, l.ms)
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
			if engine == EnginePsync && lines[2] != 0 {
				t.Errorf("psync's slat log has %d lines; it has no submission stage, fio writes it empty", lines[2])
			}
			if engine == EngineIOUring && lines[2] != ios {
				t.Errorf("slat logs: %d lines, the job did %d I/Os", lines[2], ios)
			}
		})
	}
}

// TestAveragedLogs: with log_avg_msec the logs hold one line per direction
// per window, runtime/log_avg_msec of them.
func TestAveragedLogs(t *testing.T) {
	const runtime, avg = 600 * time.Millisecond, 100
	p, m := logPlan(t, EnginePsync, LogSpec{BW: "a", IOPS: "a", Lat: "a", AvgMsec: avg}, runtime, 1)
	res, err := RunPlan(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	want := int(runtime / (avg * time.Millisecond))
	for _, name := range []string{"a_bw.1.log", "a_iops.1.log", "a_clat.1.log", "a_lat.1.log"} {
		ls := parseLog(t, name, m.files[name], false)
		perDir := map[int64][]logLine{}
		for _, l := range ls {
			perDir[l.dir] = append(perDir[l.dir], l)
		}
		for dir, dl := range perDir {
			if len(dl) != want {
				t.Errorf("%s direction %d: %d lines, want runtime/log_avg_msec = %d", name, dir, len(dl), want)
			}
			for i, l := range dl {
				if l.ms < int64(i+1)*avg || l.ms > int64(i+1)*avg+avg/2 || l.bs != 0 {
					t.Errorf("%s direction %d line %d: at %d ms with bs %d, want the end of window %d and bs 0", name, dir, i+1, l.ms, l.bs, i+1)
				}
			}
		}
		if len(perDir) != 2 {
			t.Errorf("%s: lines for %d directions, want read and write", name, len(perDir))
		}
	}
	if len(m.files["a_slat.1.log"]) != 0 {
		t.Error("psync's slat log is not empty")
	}
	// The windows add up to the job: the iops lines' mean is the job's IOPS.
	var sum, n float64
	for _, l := range parseLog(t, "a_iops.1.log", m.files["a_iops.1.log"], false) {
		if l.dir == 0 {
			sum += float64(l.value)
			n++
		}
	}
	if mean, iops := sum/n, res.Jobs[0].Read.IOPS; mean < iops*0.8 || mean > iops*1.25 {
		t.Errorf("mean of the read iops windows %.0f, the job's read IOPS %.0f", mean, iops)
	}
}

// TestFio2gnuplotReadsLogs runs fio's fio2gnuplot on clyde's bandwidth log.
func TestFio2gnuplotReadsLogs(t *testing.T) {
	tool, err := exec.LookPath("fio2gnuplot")
	if err != nil {
		t.Skip("needs fio2gnuplot (Debian's fio package): not in PATH")
	}
	p, m := logPlan(t, EnginePsync, LogSpec{BW: "clyde", AvgMsec: 100}, 500*time.Millisecond, 1)
	if _, err := RunPlan(context.Background(), p); err != nil {
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
			err := tc.log.validate()
			if err == nil || !strings.HasPrefix(err.Error(), tc.flag+":") {
				t.Fatalf("validate() = %v, want an error naming %s", err, tc.flag)
			}
		})
	}
	p := Plan{Groups: []Group{{{Name: "j", Filename: filepath.Join(t.TempDir(), "f"), RW: Read, BS: 4096, Size: 1 << 20, IODepth: 1,
		NumJobs: 1, IOEngine: EnginePsync, Runtime: time.Millisecond, Buffer: Buffer{Kind: BufferRandom}, Log: LogSpec{BW: "x"}}}}}
	if _, err := RunPlan(context.Background(), p); err == nil || !strings.Contains(err.Error(), "WriteLog") {
		t.Errorf("a plan with logs and no WriteLog ran: %v", err)
	}
}
