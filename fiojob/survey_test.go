package fiojob

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// The survey of fio's own job files (issue 34): every file of fio 3.33's
// examples/ and t/jobs/, from Debian's fio source package (FIO_SRC, the
// unpacked fio-3.33/ directory; .ci/run fetches it with apt-get source),
// is cut for a test machine by scripts/fio-example-prepare.sh (the edits
// scripts/bench-fio-examples.sh makes, the same for both tools) and run by
// fio 3.33 and by clyde (fiojob.Load and blockbench.RunPlan, as clyde block
// FILE runs a job file), each in a scratch directory of its own. What each
// ran is compared (surveyCompare) and every file ends in one of four
// outcomes: it agrees with fio; clyde refuses it, with its reason; it
// differs, in the fields named; or fio fails on it here. surveyExpect says
// what each file does today: a file listed as agreeing that no longer does
// fails the test, so does a refusal or a difference the list does not
// name, and a file that now does better than its entry is printed for the
// list to catch up. The table it prints is the survey's result.

// surveySize, surveyRuntime and surveyRamp are the scratch sizes and
// times: 16 MiB per job, time-based jobs and runtime caps of 2 s, no ramp.
const (
	surveySize    = "16m"
	surveyRuntime = "2"
	surveyRamp    = "0"
	// surveyTimeout ends a tool's run of one file that outlives every cap
	// the edits set (a startdelay, a thinktime): the file then fails.
	surveyTimeout = 2 * time.Minute
)

// surveyEnv is the ${VAR}s fio's examples read, as a user running them
// would set them; the engine files that read them are refused by name.
var surveyEnv = map[string]string{
	"FIO_BS": "4k", "FIO_DIR": "/tmp", "FIO_IODEPTH": "4", "FIO_RW": "read", "GPU_DEV_IDS": "0",
	"CONT": "cont", "POOL": "pool", "SSE_KEY": "key", "STORAGE_CLASS": "STANDARD", "SWIFT_id": "id",
	"unixsocket": "/tmp/nbd.sock", "uri": "nbd://localhost",
}

// expect is what one file does today. Exactly one of agree, refused and
// differs is set.
type expect struct {
	agree bool
	// refused is a text clyde's refusal holds; hardware marks a refusal
	// by name of what this machine cannot have (an engine for hardware or a
	// service not on a stock Linux box, zoned devices), expected for good.
	refused  string
	hardware bool
	// differs lists the fields (surveyCompare's names) the file is known
	// to differ in, and why.
	differs []string
	why     string
	// fioFails: fio 3.33 itself fails on the file here (the reason).
	fioFails string
	// fioHangs: fio 3.33 hangs on the file here (the reason), so clyde
	// alone runs it; notRun: neither tool can run it within the survey's
	// caps (the reason), so it is only compiled.
	fioHangs string
	notRun   string
}

func agrees() expect                           { return expect{agree: true} }
func fioHangsOn(why string) expect             { return expect{fioHangs: why} }
func notRunFor(why string) expect              { return expect{notRun: why} }
func refusedByName(reason string) expect       { return expect{refused: reason, hardware: true} }
func refusedFor(reason string) expect          { return expect{refused: reason} }
func differsIn(why string, f ...string) expect { return expect{differs: f, why: why} }

// outcome is what a file did in this run.
type outcome struct {
	name   string
	kind   string // agree, refused, differs, fio failed, clyde failed
	reason string // a refusal or failure, one line without its FILE:LINE
	fields []string
	detail []string
}

func TestFioSurvey(t *testing.T) {
	src := os.Getenv("FIO_SRC")
	if src == "" {
		clydetest.Skip(t, "FIO_SRC is not set: the survey of fio 3.33's own job files needs Debian's fio source, unpacked (apt-get source --download-only fio; .ci/run sets FIO_SRC)")
	}
	fio := fioBinary(t)
	if out, err := exec.Command(fio, "--version").Output(); err != nil || strings.TrimSpace(string(out)) != "fio-3.33" {
		clydetest.Skipf(t, "fio --version says %q (%v): the survey's expectations are fio 3.33's (Debian 12's fio)", strings.TrimSpace(string(out)), err)
	}
	prep, err := filepath.Abs("../scripts/fio-example-prepare.sh")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, dir := range []string{"examples", "t/jobs"} {
		m, err := filepath.Glob(filepath.Join(src, dir, "*.fio"))
		if err != nil || len(m) == 0 {
			t.Fatalf("FIO_SRC=%s: no .fio files in %s (%v)", src, dir, err)
		}
		files = append(files, m...)
	}
	sort.Strings(files)
	if only := os.Getenv("FIO_SURVEY_ONLY"); only != "" {
		// A subset while working on some files: those whose names match
		// the regexp; every check applies to them as to the whole run.
		re, err := regexp.Compile(only)
		if err != nil {
			t.Fatalf("FIO_SURVEY_ONLY=%s: %v", only, err)
		}
		files = slices.DeleteFunc(files, func(f string) bool { return !re.MatchString(f) })
	}
	results := make([]outcome, len(files))
	scratch := make([]string, len(files))
	for i := range files {
		scratch[i] = t.TempDir()
	}
	// Two files at a time: a shared 2-core machine, and each run spends
	// much of its time waiting on I/O or its runtime.
	next := make(chan int)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rel, _ := filepath.Rel(src, files[i])
				results[i] = surveyFile(fio, prep, files[i], rel, scratch[i])
				// Each file's data goes as soon as it is compared: 114
				// files' worth at once would need gigabytes.
				if err := os.RemoveAll(scratch[i]); err != nil {
					t.Errorf("%s: %v", rel, err)
				}
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	t.Log("\n" + surveyTable(results))
	for _, r := range results {
		if r.kind == "differs" {
			t.Logf("%s differs: %s", r.name, strings.Join(r.detail[:min(len(r.detail), 3)], "; "))
		}
	}
	for _, f := range surveyCheck(results, surveyExpect) {
		t.Error(f)
	}
}

// surveyFile runs one file through both tools in scratch (a directory of
// its own) and says what came of it.
func surveyFile(fio, prep, path, name, scratch string) outcome {
	o := outcome{name: name}
	texts := map[string]string{}
	src, err := os.ReadFile(path)
	if err != nil {
		return failed(o, "clyde failed", err)
	}
	logBS := variesBS.Match(src) && !strings.Contains(string(src), "log_avg_msec")
	for _, tool := range []string{"fio", "clyde"} {
		dir := filepath.Join(scratch, tool)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return failed(o, "clyde failed", err)
		}
		out := filepath.Join(scratch, tool+".fio")
		cmd := exec.Command(prep, path, out, dir)
		cmd.Env = append(os.Environ(), "SIZE="+surveySize, "RUNTIME="+surveyRuntime, "RAMP_TIME="+surveyRamp)
		if b, err := cmd.CombinedOutput(); err != nil {
			return failed(o, "clyde failed", fmt.Errorf("%s: %v: %s", prep, err, b))
		}
		b, err := os.ReadFile(out)
		if err != nil {
			return failed(o, "clyde failed", err)
		}
		texts[tool] = string(b)
		if logBS {
			// The same edit for both: a latency log of every I/O, whose
			// fourth column is its block size.
			texts[tool] = strings.Replace(texts[tool], "\n", "\nwrite_lat_log="+surveyBSLog+"\n", 1)
			if err := os.WriteFile(out, []byte(texts[tool]), 0o644); err != nil {
				return failed(o, "clyde failed", err)
			}
		}
	}
	env := Env{Getenv: func(k string) (string, bool) { v, ok := surveyEnv[k]; return v, ok }}
	clydeFile := filepath.Join(scratch, "clyde.fio")
	plan, err := Load(clydeFile, env, Options{})
	if err != nil {
		o.kind, o.reason = "refused", oneLine(err.Error())
		return o
	}
	timed, err := surveyPlan(plan, filepath.Join(scratch, "clyde"))
	if err != nil {
		return failed(o, "clyde failed", err)
	}
	// What clyde refuses neither tool runs: a file whose refusal is in
	// the run's rules (the offsets and sizes fio would lay out) is not
	// laid out by fio either.
	check := plan
	check.WriteLog = func(string, func(io.Writer) error) error { return nil } // surveyClyde's writes them
	if err := blockbench.CheckPlan(check); err != nil {
		if result.IsUsage(err) {
			o.kind, o.reason = "refused", oneLine(err.Error())
			return o
		}
		return failed(o, "clyde failed", err)
	}
	switch e := surveyExpect[name]; {
	case e.notRun != "":
		o.kind, o.reason = "not run", e.notRun
		return o
	case e.fioHangs != "":
		ctx, cancel := context.WithTimeout(context.Background(), surveyTimeout)
		defer cancel()
		if _, err := surveyClyde(ctx, plan, filepath.Join(scratch, "clyde")); err != nil {
			return failed(o, "clyde failed", err)
		}
		o.kind, o.reason = "fio hangs", e.fioHangs
		return o
	}
	// Each tool gets surveyTimeout of its own: a file that lays out a
	// large file (t0002's offset=4G) takes a while in both on a loaded
	// machine.
	fioCtx, fioCancel := context.WithTimeout(context.Background(), surveyTimeout)
	defer fioCancel()
	want, err := surveyFio(fioCtx, fio, filepath.Join(scratch, "fio"), texts["fio"])
	if err != nil {
		return failed(o, "fio failed", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), surveyTimeout)
	defer cancel()
	got, err := surveyClyde(ctx, plan, filepath.Join(scratch, "clyde"))
	if err != nil {
		if ctx.Err() == nil && result.IsUsage(err) {
			o.kind, o.reason = "refused", oneLine(err.Error())
			return o
		}
		return failed(o, "clyde failed", err)
	}
	if logBS {
		// Every I/O's size, for comparing what the draws make of the
		// bytes and the counts.
		for _, v := range []struct {
			dir string
			to  *view
		}{{"fio", &want}, {"clyde", &got}} {
			ios, logs, err := surveyLogIOs(filepath.Join(scratch, v.dir))
			if err != nil {
				return failed(o, "clyde failed", err)
			}
			sh := shareOf(ios)
			v.to.drawn = &sh
			v.to.bytesSlack = int64(logs) * sh.max
		}
	}
	for _, d := range surveyCompare(want, got, timed || ranToRuntime(want, plan) || ranToRuntime(got, plan)) {
		field, _, _ := strings.Cut(d, ": ")
		if !containsString(o.fields, field) {
			o.fields = append(o.fields, field)
		}
		o.detail = append(o.detail, d)
	}
	if logBS {
		f, ferr := bsShares(filepath.Join(scratch, "fio"))
		c, cerr := bsShares(filepath.Join(scratch, "clyde"))
		if ferr != nil || cerr != nil {
			return failed(o, "clyde failed", fmt.Errorf("block size logs: fio's %v, clyde's %v", ferr, cerr))
		}
		if d := compareBSShares(f, c); d != "" {
			o.fields = append(o.fields, "block size distribution")
			o.detail = append(o.detail, "block size distribution: "+d)
		}
	}
	o.kind = "agree"
	if len(o.fields) > 0 {
		o.kind = "differs"
	}
	return o
}

func failed(o outcome, kind string, err error) outcome {
	o.kind, o.reason = kind, oneLine(err.Error())
	return o
}

// oneLine is an error's first line without the FILE:LINE it starts with.
func oneLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if i := strings.Index(s, ": "); i >= 0 && strings.Contains(s[:i], ".fio:") {
		s = s[i+2:]
	}
	return s
}

// surveyFio runs fio on the prepared text from dir, with surveyEnv.
func surveyFio(ctx context.Context, fio, dir, text string) (view, error) {
	if err := os.WriteFile(filepath.Join(dir, "job.fio"), []byte(text), 0o644); err != nil {
		return view{}, err
	}
	cmd := exec.CommandContext(ctx, fio, "--output-format=json", "--output=out.json", "--eta=never", "job.fio")
	cmd.Dir = dir
	killTreeOnCancel(cmd) // fio's jobs are processes of their own
	cmd.Env = os.Environ()
	for k, v := range surveyEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return view{}, fmt.Errorf("fio: %v: %s", err, lastLine(string(out)))
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		return view{}, err
	}
	i := strings.IndexByte(string(data), '{')
	if i < 0 {
		return view{}, fmt.Errorf("fio wrote no JSON: %s", lastLine(string(data)))
	}
	var out struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal(data[i:], &out); err != nil {
		return view{}, fmt.Errorf("fio's JSON: %v", err)
	}
	var v view
	for _, raw := range out.Jobs {
		j, err := decodeJob(raw)
		if err != nil {
			return view{}, err
		}
		v.jobs = append(v.jobs, j)
	}
	return v, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// surveyPlan points the plan at dir, as clyde block FILE run from dir
// would (relative names there), and refuses a name outside it, before
// either tool runs. timed says a job's bytes depend on speed
// (time-based, paced by a rate or a think time, or stopped by exitall).
func surveyPlan(p blockbench.Plan, dir string) (timed bool, err error) {
	for _, g := range p.Groups {
		for i := range g {
			w := &g[i]
			if !filepath.IsAbs(w.Filename) && w.Filename != "" {
				w.Filename = filepath.Join(dir, w.Filename)
			}
			if w.Filename != "" && !strings.HasPrefix(w.Filename, dir+string(filepath.Separator)) {
				// The edits put every name in scratch; one they missed is
				// not run, by either tool.
				return timed, fmt.Errorf("job %s would use %s, outside its scratch directory", w.Name, w.Filename)
			}
			if fs := w.Files; fs != nil && !w.Diskless() {
				for k, n := range fs.Names {
					if !filepath.IsAbs(n) {
						fs.Names[k] = filepath.Join(dir, n)
					}
					if !strings.HasPrefix(fs.Names[k], dir+string(filepath.Separator)) {
						return timed, fmt.Errorf("job %s would use %s, outside its scratch directory", w.Name, fs.Names[k])
					}
				}
			}
			if w.TimeBased || w.ThinkTime > 0 || w.Rate != [2]int64{} || w.RateIOPS != [2]int64{} || w.Exit != blockbench.ExitNone {
				timed = true
			}
		}
	}
	return timed, nil
}

// surveyClyde runs the plan as clyde block FILE does from dir, its logs
// written there.
func surveyClyde(ctx context.Context, p blockbench.Plan, dir string) (view, error) {
	p.WriteLog = func(name string, write func(io.Writer) error) error {
		out, err := os.Create(filepath.Join(dir, filepath.Base(name)))
		if err != nil {
			return err
		}
		if err := write(out); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	res, err := blockbench.RunPlan(ctx, p)
	if err != nil {
		return view{}, err
	}
	data, err := json.Marshal(res)
	if err != nil {
		return view{}, err
	}
	var out struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return view{}, err
	}
	v := view{notes: append(append([]string(nil), p.Notes...), res.Notes...)}
	for _, raw := range out.Jobs {
		j, err := decodeJob(raw)
		if err != nil {
			return view{}, err
		}
		v.jobs = append(v.jobs, j)
	}
	return v, nil
}

// variesBS finds a job file whose I/Os are not all of one size: fio's
// JSON then says too little, and the survey compares the share of each
// size in a latency log of every I/O (surveyBSLog) per direction.
var variesBS = regexp.MustCompile(`(?m)^[ \t]*(bssplit|bsrange|blocksize_range|bs_unaligned|blocksize_unaligned|[rwt]?bs|blocksize)[ \t]*=[^;#\n]*[,:/-]`)

// surveyBSLog is the prefix of that log.
const surveyBSLog = "surveybs"

// surveyBSPoints is how far apart the share of one block size may be, in
// percentage points: each I/O draws its size.
const surveyBSPoints = 5

// bsShares reads the surveyBSLog logs a run left in dir: per direction
// (0 read, 1 write, 2 trim), the share of each block size.
func bsShares(dir string) (map[int]map[int64]float64, error) {
	logs, err := filepath.Glob(filepath.Join(dir, surveyBSLog+"_lat.*.log"))
	if err != nil || len(logs) == 0 {
		return nil, fmt.Errorf("no %s_lat.*.log in %s (%v)", surveyBSLog, dir, err)
	}
	counts := map[int]map[int64]int64{}
	totals := map[int]int64{}
	for _, l := range logs {
		data, err := os.ReadFile(l)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			f := strings.Split(line, ",")
			if len(f) < 4 {
				return nil, fmt.Errorf("%s: %q has no block size", l, line)
			}
			d, err1 := strconv.Atoi(strings.TrimSpace(f[2]))
			bs, err2 := strconv.ParseInt(strings.TrimSpace(f[3]), 10, 64)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("%s: %q", l, line)
			}
			if counts[d] == nil {
				counts[d] = map[int64]int64{}
			}
			counts[d][bs]++
			totals[d]++
		}
	}
	shares := map[int]map[int64]float64{}
	for d, m := range counts {
		shares[d] = map[int64]float64{}
		for bs, n := range m {
			shares[d][bs] = float64(n) * 100 / float64(totals[d])
		}
	}
	return shares, nil
}

// compareBSShares says where two runs' block sizes differ, "" when each
// size's share is within surveyBSPoints in every direction.
func compareBSShares(fio, clyde map[int]map[int64]float64) string {
	var out []string
	for _, d := range []int{0, 1, 2} {
		sizes := map[int64]bool{}
		for bs := range fio[d] {
			sizes[bs] = true
		}
		for bs := range clyde[d] {
			sizes[bs] = true
		}
		for bs := range sizes {
			if math.Abs(fio[d][bs]-clyde[d][bs]) > surveyBSPoints {
				out = append(out, fmt.Sprintf("direction %d: fio %v, clyde %v", d, fio[d], clyde[d]))
				break
			}
		}
	}
	return strings.Join(out, "; ")
}

// surveyLogIOs reads every surveyBSLog log a run left in dir: the I/Os,
// and how many logs (workers) there were.
func surveyLogIOs(dir string) ([]loggedIO, int, error) {
	logs, err := filepath.Glob(filepath.Join(dir, surveyBSLog+"_lat.*.log"))
	if err != nil || len(logs) == 0 {
		return nil, 0, fmt.Errorf("no %s_lat.*.log in %s (%v)", surveyBSLog, dir, err)
	}
	var all []loggedIO
	for _, l := range logs {
		ios, err := readLogIOs(l)
		if err != nil {
			return nil, 0, err
		}
		all = append(all, ios...)
	}
	return all, len(logs), nil
}

// ranToRuntime says an entry ran until its runtime cap, so its bytes are
// the speed's, not the size's.
func ranToRuntime(v view, p blockbench.Plan) bool {
	var limit time.Duration
	for _, g := range p.Groups {
		for _, w := range g {
			limit = max(limit, w.Runtime)
		}
	}
	if limit == 0 {
		return false
	}
	for _, j := range v.jobs {
		if time.Duration(j.JobRuntime)*time.Millisecond >= limit*9/10 {
			return true
		}
	}
	return false
}

// surveyCompare lists each field in which clyde's run differs from fio's,
// as "field: detail": the against-fio suite's comparison (entries, names,
// groups, bytes per direction, trim, syncs, the depth the queue ran at),
// then the I/O counts per direction, the block size of each direction,
// the share of each iodepth_level bucket. timed runs
// are compared in what does not depend on speed.
func surveyCompare(fio, clyde view, timed bool) []string {
	diffs := compareRuns(fio, clyde, nil, timed, 0)
	if len(fio.jobs) != len(clyde.jobs) {
		return diffs
	}
	for i, f := range fio.jobs {
		c := clyde.jobs[i]
		dirs := []struct {
			name   string
			fb, fn int64
			cb, cn int64
		}{
			{"read", f.Read.IOBytes, f.Read.TotalIOs, c.Read.IOBytes, c.Read.TotalIOs},
			{"write", f.Write.IOBytes, f.Write.TotalIOs, c.Write.IOBytes, c.Write.TotalIOs},
			{"trim", f.Trim.IOBytes, f.Trim.TotalIOs, c.Trim.IOBytes, c.Trim.TotalIOs},
		}
		mixed := f.Read.TotalIOs > 0 && f.Write.TotalIOs > 0
		// Sizes drawn per I/O: counts and average sizes within what the
		// draws vary by (sizecompare_test.go), not exactly.
		drawn := fio.drawn != nil && clyde.drawn != nil
		countsDiffer := func(a, b int64) bool {
			if !drawn {
				return a != b
			}
			return math.Abs(float64(a-b)) > sharePoints*math.Sqrt(float64(a))*fio.drawn.cv()+2
		}
		if !timed && mixed && countsDiffer(f.Read.TotalIOs+f.Write.TotalIOs, c.Read.TotalIOs+c.Write.TotalIOs) {
			diffs = append(diffs, fmt.Sprintf("ios: entry %s: fio %d I/Os, clyde %d", f.Name, f.Read.TotalIOs+f.Write.TotalIOs, c.Read.TotalIOs+c.Write.TotalIOs))
		}
		for di, d := range dirs {
			if !timed && !mixed && countsDiffer(d.fn, d.cn) {
				diffs = append(diffs, fmt.Sprintf("ios: entry %s: fio %d %s I/Os, clyde %d", f.Name, d.fn, d.name, d.cn))
			}
			if d.fn > 0 && d.cn > 0 {
				fbs, cbs := float64(d.fb)/float64(d.fn), float64(d.cb)/float64(d.cn)
				tol := 0.01 * fbs
				if drawn {
					_, vf := fio.drawn.meanVar(di)
					_, vc := clyde.drawn.meanVar(di)
					tol = sharePoints*math.Sqrt(vf/float64(d.fn)+vc/float64(d.cn)) + 0.01*fbs
				}
				if math.Abs(fbs-cbs) > tol {
					diffs = append(diffs, fmt.Sprintf("block size: entry %s: fio's %s I/Os are %.0f bytes on average, clyde's %.0f", f.Name, d.name, fbs, cbs))
				}
			}
		}
		if (f.Read.TotalIOs+f.Write.TotalIOs > 0) && (c.Read.TotalIOs+c.Write.TotalIOs > 0) {
			for _, k := range []string{"1", "2", "4", "8", "16", "32", ">=64"} {
				if math.Abs(f.DepthLevel[k]-c.DepthLevel[k]) > surveyDepthPoints && !sameDepthShift(f.DepthLevel, c.DepthLevel) {
					diffs = append(diffs, fmt.Sprintf("depth distribution: entry %s: fio %v, clyde %v", f.Name, f.DepthLevel, c.DepthLevel))
					break
				}
			}
		}
	}
	return diffs
}

// surveyDepthPoints is how far apart a bucket of iodepth_level may be:
// the levels are shares of submissions, and a buffered or a short run
// moves a few points between neighbours.
const surveyDepthPoints = 10

// sameDepthShift says clyde's iodepth_level is fio's moved down one
// bucket: fio counts the I/O it takes from its pool before the one it
// replaces is back (sameDepth), so a full queue of 15 is in fio's 16
// bucket and clyde's 8.
func sameDepthShift(fio, clyde map[string]float64) bool {
	keys := []string{"1", "2", "4", "8", "16", "32", ">=64"}
	for i, k := range keys {
		var up float64
		if i+1 < len(keys) {
			up = fio[keys[i+1]]
		}
		if math.Abs(up-clyde[k]) > surveyDepthPoints {
			return false
		}
	}
	return true
}

// optionsDiff says how two "job options" objects differ, "" when equal:
// fio writes them in its own order, so the same members in another order
// differ too.
func optionsDiff(fio, clyde result.Options) string {
	fm, cm := optionsMap(fio), optionsMap(clyde)
	var missing, extra, changed []string
	for k, v := range fm {
		cv, ok := cm[k]
		switch {
		case !ok:
			missing = append(missing, k+"="+v)
		case cv != v:
			changed = append(changed, fmt.Sprintf("%s=%s (clyde %s)", k, v, cv))
		}
	}
	for k, v := range cm {
		if _, ok := fm[k]; !ok {
			extra = append(extra, k+"="+v)
		}
	}
	if len(missing)+len(extra)+len(changed) == 0 {
		if !slices.Equal(fio, clyde) {
			return fmt.Sprintf("order: fio %v, clyde %v", fio, clyde)
		}
		return ""
	}
	sort.Strings(missing)
	sort.Strings(extra)
	sort.Strings(changed)
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "clyde lacks "+strings.Join(missing, " "))
	}
	if len(extra) > 0 {
		parts = append(parts, "clyde adds "+strings.Join(extra, " "))
	}
	if len(changed) > 0 {
		parts = append(parts, "values "+strings.Join(changed, " "))
	}
	return strings.Join(parts, "; ")
}

// optionsMap is an Options object's members by name, the last value of a
// name given twice (as fio's JSON object is read).
func optionsMap(o result.Options) map[string]string {
	m := make(map[string]string, len(o))
	for _, opt := range o {
		m[opt.Name] = opt.Value
	}
	return m
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// surveyCheck holds the run to the expectations: what each file does that
// its entry does not allow.
func surveyCheck(results []outcome, want map[string]expect) []string {
	var fails []string
	for _, r := range results {
		e, listed := want[r.name]
		if !listed {
			fails = append(fails, fmt.Sprintf("%s: %s (%s%s): not in surveyExpect; add it", r.name, r.kind, r.reason, strings.Join(r.fields, ", ")))
			continue
		}
		switch r.kind {
		case "agree":
			// as good as it gets; a better entry is surveyTable's to print
		case "refused":
			switch {
			case e.agree || e.differs != nil:
				fails = append(fails, fmt.Sprintf("%s: refused (%s); it ran before", r.name, r.reason))
			case e.refused == "" || !strings.Contains(r.reason, e.refused):
				fails = append(fails, fmt.Sprintf("%s: refused for %q, not %q as listed", r.name, r.reason, e.refused))
			}
		case "differs":
			if e.agree {
				fails = append(fails, fmt.Sprintf("%s: agreed with fio, now differs: %s", r.name, strings.Join(r.detail, "; ")))
				continue
			}
			for _, f := range r.fields {
				if !containsString(e.differs, f) {
					fails = append(fails, fmt.Sprintf("%s: differs silently in %s: %s", r.name, f, detailOf(r, f)))
				}
			}
		case "fio failed":
			if e.fioFails == "" || !strings.Contains(r.reason, e.fioFails) {
				fails = append(fails, fmt.Sprintf("%s: fio failed: %s", r.name, r.reason))
			}
		case "not run", "fio hangs":
			// Set from the entry itself: the file compiled (and, when fio
			// hangs, clyde ran it without an error).
		default:
			fails = append(fails, fmt.Sprintf("%s: %s: %s", r.name, r.kind, r.reason))
		}
	}
	return fails
}

func detailOf(r outcome, field string) string {
	for _, d := range r.detail {
		if strings.HasPrefix(d, field+": ") {
			return d
		}
	}
	return ""
}

// surveyTable is the survey's result: how many files agree, how many
// are refused and why (the refusals of hardware clyde cannot have apart),
// how many differ and in what, and which do better than their entry.
func surveyTable(results []outcome) string {
	groups := map[string]map[string][]string{"agree": {}, "refused": {}, "refused, expected": {}, "differs": {}, "failed": {}, "not compared": {}}
	count := map[string]int{}
	var better []string
	for _, r := range results {
		short := strings.TrimSuffix(r.name, ".fio")
		e := surveyExpect[r.name]
		kind, key := r.kind, r.reason
		switch r.kind {
		case "agree":
			key = ""
			if !e.agree {
				better = append(better, short)
			}
		case "refused":
			if e.hardware {
				kind = "refused, expected"
			}
			if i := strings.Index(key, "; accepted:"); i > 0 {
				key = key[:i]
			}
			if len(key) > 100 {
				key = key[:100] + "..."
			}
		case "differs":
			key = strings.Join(r.fields, ", ")
			if len(r.fields) < len(e.differs) {
				better = append(better, short)
			}
		case "not run", "fio hangs":
			kind = "not compared"
		default:
			kind, key = "failed", r.kind+": "+key
		}
		groups[kind][key] = append(groups[kind][key], short)
		count[kind]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "fio 3.33's examples/ and t/jobs/ (%d files; size=%s, runtime=%ss, ramp_time=%s), fio and clyde on %s/%s:\n",
		len(results), surveySize, surveyRuntime, surveyRamp, runtime.GOOS, runtime.GOARCH)
	for _, kind := range []string{"agree", "differs", "refused", "refused, expected", "not compared", "failed"} {
		label := map[string]string{"agree": "run and agree with fio", "differs": "run and differ from fio (by field)",
			"refused": "refused by clyde (by reason)", "refused, expected": "refused by name, expected (hardware or services a stock Linux box has not)",
			"not compared": "read by clyde, not compared: fio 3.33 cannot run them here (why)", "failed": "failed"}[kind]
		fmt.Fprintf(&b, "%4d  %s\n", count[kind], label)
		var keys []string
		for k := range groups[kind] {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			a, c := groups[kind][keys[i]], groups[kind][keys[j]]
			if len(a) != len(c) {
				return len(a) > len(c)
			}
			return keys[i] < keys[j]
		})
		for _, k := range keys {
			if k == "" {
				fmt.Fprintf(&b, "        %s\n", strings.Join(groups[kind][k], " "))
				continue
			}
			fmt.Fprintf(&b, "      %3d  %s  [%s]\n", len(groups[kind][k]), k, strings.Join(groups[kind][k], " "))
		}
	}
	if len(better) > 0 {
		fmt.Fprintf(&b, "better than surveyExpect says (update the list): %s\n", strings.Join(better, " "))
	}
	return b.String()
}

// Why the files that run differ from fio today, or are not compared.
const (
	offloadHang  = "io_submit_mode=offload at an iodepth above 1: fio 3.33 does the I/O and then hangs in its offload threads here"
	posixaioFill = "posixaio, buffered, at iodepth=16: fio's queue is at 8 for 55-62% of submissions and at 16 for 10-31% (it varies from run to run), clyde's at 8 for about 51% and lower for most of the rest"
)

// surveyExpect is what each of fio 3.33's files does today (fio 3.33 and
// clyde on Debian 12, 2 cores). Helpers who teach clyde an option move
// files up: refused to differs or agrees, differs to agrees. A comment
// names what a refused file needs besides the option, when it is
// hardware or a service.
var surveyExpect = map[string]expect{
	"examples/1mbs_clients.fio":               notRunFor("rate=1250 bytes/s over 16 MiB: hours for either tool"),
	"examples/aio-read.fio":                   agrees(),
	"examples/backwards-read.fio":             agrees(),
	"examples/basic-verify.fio":               agrees(),
	"examples/butterfly.fio":                  agrees(),
	"examples/cmdprio-bssplit.fio":            refusedFor("option log_prio "),
	"examples/cmdprio-percentage.fio":         refusedFor("option log_prio "),
	"examples/cpp_null.fio":                   refusedByName(`unknown engine "cpp_null"`), // needs an engine built outside fio
	"examples/cpuio.fio":                      agrees(),
	"examples/cross-stripe-verify.fio":        refusedFor("clyde verifies a write pass without gaps"),
	"examples/dedupe-global.fio":              refusedFor("option dedupe_mode "),
	"examples/dev-dax.fio":                    refusedByName(`unknown engine "dev-dax"`),                      // needs a device-DAX persistent memory device
	"examples/dfs.fio":                        refusedByName(`unknown engine "dfs"`),                          // needs a DAOS pool
	"examples/disk-zone-profile.fio":          refusedFor("--zonerange: 268435456 is larger than the region"), // the survey's 16m leaves zonesize=256m larger than the region
	"examples/e4defrag.fio":                   refusedFor(`unknown engine "e4defrag"`),
	"examples/e4defrag2.fio":                  refusedFor(`unknown engine "e4defrag"`),
	"examples/enospc-pressure.fio":            refusedFor("option continue_on_error "),
	"examples/exec.fio":                       refusedFor("std_redirect=1 (fio's default 1) writes"), // turbostat's output to files in the working directory
	"examples/exitwhat.fio":                   differsIn("rate=300 with libaio at iodepth=32: fio holds each submission back until the rate allows it, so its queue runs at 1-2; clyde paces after completions and fills its queue first", "depth", "depth distribution"),
	"examples/falloc.fio":                     refusedFor("clyde does not sum trims with other I/O in one entry"), // group_reporting over a falloc randwrite job and its punch-hole trims
	"examples/filecreate-ioengine.fio":        refusedFor(`unknown engine "filecreate"`),
	"examples/filedelete-ioengine.fio":        refusedFor(`unknown engine "filedelete"`),
	"examples/filestat-ioengine.fio":          refusedFor(`unknown engine "filestat"`),
	"examples/fio-rand-RW.fio":                agrees(),
	"examples/fio-rand-read.fio":              agrees(),
	"examples/fio-rand-write.fio":             agrees(),
	"examples/fio-seq-RW.fio":                 agrees(),
	"examples/fio-seq-read.fio":               agrees(),
	"examples/fio-seq-write.fio":              agrees(),
	"examples/fixed-rate-submission.fio":      fioHangsOn(offloadHang),
	"examples/flow.fio":                       differsIn("flow_sleep quiesces a held job in both tools, so how deep job2's queue of 256 gets between holds follows the two jobs' relative speed at the moment: fio's job2 submitted at 64 or more 15.6% and 26% of the time in two CI runs and at 1-2 in others, so its mean depth moves too; entries, groups, bytes and I/O counts agree", "depth", "depth distribution"),
	"examples/fsx.fio":                        agrees(),
	"examples/ftruncate.fio":                  agrees(),
	"examples/gfapi.fio":                      refusedByName(`unknown engine "gfapi"`),     // needs a GlusterFS volume
	"examples/gpudirect-rdmaio-client.fio":    refusedByName(`unknown engine "rdma"`),      // needs RDMA hardware
	"examples/gpudirect-rdmaio-server.fio":    refusedByName(`unknown engine "rdma"`),      // needs RDMA hardware
	"examples/http-s3-crypto.fio":             refusedByName(`unknown engine "http"`),      // needs an HTTP, S3 or Swift server
	"examples/http-s3-storage-class.fio":      refusedByName(`unknown engine "http"`),      // needs an HTTP, S3 or Swift server
	"examples/http-s3.fio":                    refusedByName(`unknown engine "http"`),      // needs an HTTP, S3 or Swift server
	"examples/http-swift.fio":                 refusedByName(`unknown engine "http"`),      // needs an HTTP, S3 or Swift server
	"examples/http-webdav.fio":                refusedByName(`unknown engine "http"`),      // needs an HTTP, S3 or Swift server
	"examples/ime.fio":                        refusedByName(`unknown engine "ime_psync"`), // needs DDN's Infinite Memory Engine
	"examples/iometer-file-access-server.fio": agrees(),
	"examples/jesd219.fio":                    agrees(),
	"examples/latency-profile.fio":            refusedFor("option latency_target "),
	"examples/libcufile-cufile.fio":           refusedByName(`unknown engine "libcufile"`),            // needs an NVIDIA GPU and cuFile
	"examples/libcufile-posix.fio":            refusedByName(`unknown engine "libcufile"`),            // needs an NVIDIA GPU and cuFile
	"examples/libhdfs.fio":                    refusedByName(`unknown engine "libhdfs"`),              // needs an HDFS cluster
	"examples/libiscsi.fio":                   refusedByName(`unknown engine "libiscsi"`),             // needs an iSCSI target
	"examples/libpmem.fio":                    refusedByName(`unknown engine "libpmem"`),              // needs persistent memory
	"examples/librpma_apm-client.fio":         refusedByName(`unknown engine "librpma_apm_client"`),   // needs RDMA hardware
	"examples/librpma_apm-server.fio":         refusedByName(`unknown engine "librpma_apm_server"`),   // needs RDMA hardware
	"examples/librpma_gpspm-client.fio":       refusedByName(`unknown engine "librpma_gpspm_client"`), // needs RDMA hardware
	"examples/librpma_gpspm-server.fio":       refusedByName(`unknown engine "librpma_gpspm_server"`), // needs RDMA hardware
	"examples/libzbc-rand-write.fio":          refusedByName("zonemode=zbd"),                          // needs a zoned block device
	"examples/libzbc-seq-read.fio":            refusedByName("zonemode=zbd"),                          // needs a zoned block device
	"examples/mtd.fio":                        refusedByName(`unknown engine "mtd"`),                  // needs an MTD flash device
	"examples/nbd.fio":                        refusedByName(`unknown engine "nbd"`),                  // needs an NBD server
	"examples/netio.fio":                      refusedFor(`unknown engine "net"`),
	"examples/netio_multicast.fio":            refusedFor(`unknown engine "net"`),
	"examples/nfs.fio":                        refusedFor("option nfs_url "), // engine nfs: an NFS server
	"examples/null.fio":                       agrees(),
	"examples/numa.fio":                       refusedFor("option numa_cpu_nodes "),
	"examples/pmemblk.fio":                    refusedByName(`unknown engine "pmemblk"`), // needs persistent memory
	"examples/poisson-rate-submission.fio":    refusedFor("option rate_process "),
	"examples/rados.fio":                      refusedByName(`unknown engine "rados"`), // needs a Ceph cluster
	"examples/rand-zones.fio":                 agrees(),
	"examples/rbd.fio":                        refusedByName(`unknown engine "rbd"`),  // needs a Ceph cluster
	"examples/rdmaio-client.fio":              refusedByName(`unknown engine "rdma"`), // needs RDMA hardware
	"examples/rdmaio-server.fio":              refusedByName(`unknown engine "rdma"`), // needs RDMA hardware
	"examples/sg_verify-fail.fio":             refusedByName(`unknown engine "sg"`),   // needs a SCSI generic device
	"examples/sg_verify.fio":                  refusedByName(`unknown engine "sg"`),   // needs a SCSI generic device
	"examples/sg_write_same_ndob.fio":         refusedByName(`unknown engine "sg"`),   // needs a SCSI generic device
	"examples/ssd-steadystate.fio":            agrees(),
	"examples/ssd-test.fio":                   agrees(),
	"examples/steadystate.fio":                refusedFor("option ss "),
	"examples/surface-scan.fio":               refusedFor("option fill_device "),
	"examples/tiobench-example.fio":           agrees(),
	"examples/uring-cmd-ng.fio":               refusedByName(`unknown engine "io_uring_cmd"`), // needs an NVMe character device
	"examples/uring-cmd-zoned.fio":            refusedByName(`unknown engine "io_uring_cmd"`), // needs an NVMe character device
	"examples/waitfor.fio":                    agrees(),
	"examples/xnvme-compare.fio":              refusedFor("option allow_file_create "), // engine xnvme: an NVMe device and xNVMe
	"examples/xnvme-zoned.fio":                refusedByName("zonemode=zbd"),           // needs a zoned block device
	"examples/zbd-rand-write.fio":             refusedByName("zonemode=zbd"),           // needs a zoned block device
	"examples/zbd-seq-read.fio":               refusedByName("zonemode=zbd"),           // needs a zoned block device
	"examples/zipf.fio":                       agrees(),
	"t/jobs/t0001-52c58027.fio":               agrees(),
	"t/jobs/t0002-13af05ae-post.fio":          refusedFor("fio verifies after each of loops=2 passes"), // the edits' loops=2 on its mixed job; its read job checks every block against headers no job of its own wrote, which fails in fio too
	"t/jobs/t0002-13af05ae-pre.fio":           agrees(),
	"t/jobs/t0003-0ae2c6e1-post.fio":          {fioFails: "hdr_fail data dumped"}, // its read jobs check every block against headers the -pre file's jobs write, not run before it here: fio's verify fails, as the file says it should
	"t/jobs/t0003-0ae2c6e1-pre.fio":           agrees(),
	"t/jobs/t0004-8a99fdf6.fio":               differsIn("not verify's: with the edits' loops=2, 16 writes of 1M a pass at iodepth=128, fio drains its queue at the end of each pass and starts the next at depth 1 (depths 1-16 twice: its queue ran at 8 by fio's buckets, the same without verify=), while clyde carries the queue across the passes (1-32)", "depth", "depth distribution"),
	"t/jobs/t0005-f7078f7b.fio":               agrees(),
	"t/jobs/t0006-82af2a7c.fio":               refusedFor("clyde runs it with one I/O in flight"),
	"t/jobs/t0007-37cf9e3c.fio":               refusedFor("option write_iolog "),
	"t/jobs/t0008-ae2fafc8.fio":               differsIn("rw=readwrite reads back every block it writes (verify_backlog=1): which of the 4096 I/Os are writes is each tool's rwmix draw (fio wrote 2104, clyde 2049 in one run), so the bytes and I/Os read back differ by the draw; the reads are 16 MiB in both, the relation TestAgainstFio's \"verify= on mixed jobs\" checks", "bytes", "ios"),
	"t/jobs/t0009-f8b0bd10.fio":               refusedFor("option verify_async "),
	"t/jobs/t0010-b7aae4ba.fio":               fioHangsOn(offloadHang),
	"t/jobs/t0011-5d2788d5.fio":               agrees(),
	"t/jobs/t0012.fio":                        agrees(),
	"t/jobs/t0013.fio":                        refusedFor("option serialize_overlap "),
	"t/jobs/t0014.fio":                        agrees(),
	"t/jobs/t0015-e78980ff.fio":               agrees(),
	"t/jobs/t0016-d54ae22.fio":                agrees(),
	"t/jobs/t0017.fio":                        differsIn(posixaioFill, "depth distribution"),
	"t/jobs/t0018.fio":                        agrees(),
	"t/jobs/t0019.fio":                        agrees(),
	"t/jobs/t0020.fio":                        agrees(),
	"t/jobs/t0021.fio":                        agrees(),
	"t/jobs/t0022.fio":                        agrees(),
	"t/jobs/t0023.fio":                        refusedFor("bsrange=512/25:1k:"), // a bssplit written as a bsrange
	"t/jobs/t0024.fio":                        refusedFor("bsrange=512/25:1k:"), // a bssplit written as a bsrange
	"t/jobs/t0025.fio":                        agrees(),
	"t/jobs/t0026.fio":                        refusedFor("verifies after each of loops=2 passes"),
}
