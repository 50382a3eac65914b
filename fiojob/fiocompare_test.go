package fiojob

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// The comparison suite: a job file runs through fio (when installed) and
// through clyde, each in a temporary directory of its own, and what fio
// means by it is compared with what clyde ran: the job entries, their
// names and descriptions, bytes per direction, the read share, the depth
// the queue reached, the files the jobs used and, with log_offset, the
// blocks a pass touched. A difference fails the test unless clyde says
// so in a note (each case lists the notes that may explain one).

// fioJob is the part of one entry of fio's .jobs[] the suite compares.
type fioJob struct {
	Name  string `json:"jobname"`
	Desc  string `json:"desc"`
	Group int    `json:"groupid"`
	Read  dirIO  `json:"read"`
	Write dirIO  `json:"write"`
	Trim  dirIO  `json:"trim"`
	// Mixed is fio's unified_rw_reporting object; HasRead says the job
	// has a "read" object (fio writes none with unified_rw_reporting=mixed).
	Mixed   *dirIO `json:"mixed"`
	HasRead bool   `json:"-"`
	// JobRuntime is fio's job_runtime, in ms.
	JobRuntime int64 `json:"job_runtime"`
	// Sync is fio's fsync count and the fsyncs and fdatasyncs it timed.
	Sync struct {
		TotalIOs int64 `json:"total_ios"`
		Lat      struct {
			N int64 `json:"N"`
		} `json:"lat_ns"`
	} `json:"sync"`
	// Options is fio's "job options", compared member for member, in
	// order (fio echoes a job's own option lines as written).
	Options    result.Options `json:"job options"`
	HasOptions bool           `json:"-"`
	DepthLevel map[string]float64
	// Submit and Complete are fio's iodepth_submit and iodepth_complete:
	// how many I/Os each submission and each reap took.
	Submit   map[string]float64 `json:"iodepth_submit"`
	Complete map[string]float64 `json:"iodepth_complete"`
	// Files is clyde's count of each file of a job of several (fio's
	// JSON has none: its iolog says, readIOLogs).
	Files []result.BlockFile `json:"files"`
}

// dirIO is one direction's bytes and I/Os of an entry.
type dirIO struct {
	IOBytes  int64 `json:"io_bytes"`
	TotalIOs int64 `json:"total_ios"`
}

// view is one run's entries, and the files left in (fio) or named by
// (clyde) the run, for the cases that check them.
type view struct {
	jobs []fioJob
	// global is "global options", hasGlobal whether the object is there
	// (fio writes none for a run without global options).
	global    result.Options
	hasGlobal bool
	files     []string
	notes     []string
	// offsets are the distinct offsets of the first latency log, when the
	// case writes one.
	offsets map[int64]bool
	logIOs  int
	// order is every offset of that log, in the log's order.
	order []int64
	// ios are that log's I/Os (direction, size, offset).
	ios []loggedIO
	// drawn, when set, are the sizes of every I/O of a run whose sizes
	// are drawn per I/O (the survey's logs), and bytesSlack how far
	// its bytes may be from the other's: the bytes, the I/O count and
	// the average size are then compared within what the draws vary
	// by.
	drawn      *sizeShares
	bytesSlack int64
	// hist is the shape of hh_clat_hist.1.log, when the case writes one.
	hist *histShape
	// perFile is the I/Os and bytes each file (by its base name) took,
	// read and write: from fio's write_iolog (withIOLogs), from clyde's
	// files counts.
	perFile map[string][4]int64
}

// histShape is what fiologparser_hist.py relies on in a histogram log:
// the columns of every line (time, direction, bs, fio's buckets), the
// directions, and that the buckets count I/Os.
type histShape struct {
	cols  map[int]bool
	dirs  map[int64]bool
	lines int
	ios   int64
}

func readHist(path string) (*histShape, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	h := &histShape{cols: map[int]bool{}, dirs: map[int64]bool{}}
	for _, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		fields := strings.Split(line, ", ")
		h.cols[len(fields)] = true
		h.lines++
		for i, f := range fields {
			v, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %v", path, f, err)
			}
			switch {
			case i == 1:
				h.dirs[v] = true
			case i >= 3:
				h.ios += v
			}
		}
	}
	return h, nil
}

// depthOf is the iodepth_level bucket (fio's: 1, 2, 4, 8, 16, 32, >=64)
// that holds the most I/Os: the depth the queue ran at.
func depthOf(levels map[string]float64) int {
	best, bestV := 0, -1.0
	for k, v := range levels {
		n, err := strconv.Atoi(strings.TrimPrefix(k, ">="))
		if err == nil && (v > bestV || v == bestV && n < best) {
			best, bestV = n, v
		}
	}
	return best
}

// sameDepth compares the depths of fio's run and clyde's. fio counts an
// I/O it has taken from its pool in the depth before the one it replaces is
// back (io_u.c: get_io_u's cur_depth++), so a full queue of 15 shows in
// fio's 16 bucket, clyde's 8: clyde's bucket may be fio's or the one below.
func sameDepth(fio, clyde int) bool { return clyde == fio || clyde*2 == fio }

func fioBinary(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("fio")
	if err != nil {
		clydetest.Skip(t, "fio is not installed (apt-get install fio; CI installs it): nothing to compare clyde with")
	}
	return path
}

// fioCaseTimeout ends a run of fio on a case, whose jobs take seconds:
// fio 3.33 sometimes hangs after its I/O (io_submit_mode=offload).
const fioCaseTimeout = 90 * time.Second

// errFioHung is a run of fio that outlived fioCaseTimeout.
var errFioHung = errors.New("fio hung")

// runFio runs fio on the job file in dir, a directory of its own. It
// runs on a goroutine of its own, so it returns its error.
func runFio(fio, dir, text string, logs bool) (view, error) {
	if err := os.WriteFile(filepath.Join(dir, "job.fio"), []byte(text), 0o644); err != nil {
		return view{}, err
	}
	return runFioArgs(fio, dir, text, logs, "job.fio")
}

// runFioArgs runs fio with args in dir; text is the job file's, if any.
func runFioArgs(fio, dir, text string, logs bool, args ...string) (view, error) {
	ctx, cancel := context.WithTimeout(context.Background(), fioCaseTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, fio, append([]string{"--output-format=json", "--output=out.json", "--eta=never"}, args...)...)
	cmd.Dir = dir
	killTreeOnCancel(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return view{}, fmt.Errorf("%w after %v: %v\n%s", errFioHung, fioCaseTimeout, err, out)
		}
		return view{}, fmt.Errorf("fio: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		return view{}, err
	}
	v, err := decodeRun(data[strings.IndexByte(string(data), '{'):])
	if err != nil {
		return view{}, fmt.Errorf("fio's JSON: %v", err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if n := e.Name(); n != "job.fio" && n != "out.json" && !strings.HasSuffix(n, ".log") && !strings.HasPrefix(n, ioLogPrefix) {
			v.files = append(v.files, n)
		}
	}
	if strings.Contains(text, "write_iolog="+ioLogPrefix) {
		if v.perFile, err = readIOLogs(dir); err != nil {
			return view{}, err
		}
		for i := range v.jobs {
			v.jobs[i].Options = slices.DeleteFunc(v.jobs[i].Options, func(o result.Option) bool { return o.Name == "write_iolog" })
		}
	}
	if logs {
		v.offsets, v.order, err = logOffsets(filepath.Join(dir, "lg_lat.1.log"))
		v.logIOs = len(v.order)
		if err == nil {
			v.ios, err = readLogIOs(filepath.Join(dir, "lg_lat.1.log"))
		}
	}
	if err == nil && strings.Contains(text, "write_hist_log") {
		v.hist, err = readHist(filepath.Join(dir, "hh_clat_hist.1.log"))
	}
	return v, err
}

// decodeRun reads one run's JSON, fio's or clyde's, into a view: its
// entries and its global options.
func decodeRun(data []byte) (view, error) {
	var out struct {
		Global *result.Options   `json:"global options"`
		Jobs   []json.RawMessage `json:"jobs"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return view{}, err
	}
	v := view{hasGlobal: out.Global != nil}
	if out.Global != nil {
		v.global = *out.Global
	}
	for _, raw := range out.Jobs {
		j, err := decodeJob(raw)
		if err != nil {
			return view{}, err
		}
		v.jobs = append(v.jobs, j)
	}
	return v, nil
}

func decodeJob(raw json.RawMessage) (fioJob, error) {
	var j fioJob
	if err := json.Unmarshal(raw, &j); err != nil {
		return j, err
	}
	var extra struct {
		L json.RawMessage `json:"iodepth_level"`
		O json.RawMessage `json:"job options"`
		R json.RawMessage `json:"read"`
	}
	if err := json.Unmarshal(raw, &extra); err != nil {
		return j, err
	}
	j.HasOptions, j.HasRead = extra.O != nil, extra.R != nil
	j.DepthLevel = map[string]float64{}
	return j, json.Unmarshal(extra.L, &j.DepthLevel)
}

// runClyde compiles and runs the job file in a directory of its own, as
// clyde block FILE does there.
func runClyde(t *testing.T, text string, logs bool) view { return runClydePlan(t, text, logs, nil) }

// runClydePlan is runClyde with edit applied to the compiled plan (a
// device target needs DestroyData, as clyde block --destroy-data sets it).
func runClydePlan(t *testing.T, text string, logs bool, edit func(*blockbench.Plan)) view {
	t.Helper()
	dir := t.TempDir()
	v, _ := clydeInDir(t, dir, text, edit)
	var err error
	if logs {
		if v.offsets, v.order, err = logOffsets(filepath.Join(dir, "lg_lat.1.log")); err != nil {
			t.Fatal(err)
		}
		v.logIOs = len(v.order)
		if v.ios, err = readLogIOs(filepath.Join(dir, "lg_lat.1.log")); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(text, "write_hist_log") {
		if v.hist, err = readHist(filepath.Join(dir, "hh_clat_hist.1.log")); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

// clydeInDir compiles the job file and runs it as clyde block FILE does
// from dir (the cases run in parallel, so no chdir), with edit applied to
// the plan; its logs stay in dir. It returns the entries and the result.
func clydeInDir(t *testing.T, dir, text string, edit func(*blockbench.Plan)) (view, *result.Block) {
	t.Helper()
	f, err := Parse("job.fio", []byte(text), Env{})
	if err != nil {
		t.Fatalf("clyde refused: %v", err)
	}
	return clydeFileInDir(t, dir, f, edit)
}

// clydeFileInDir is clydeInDir for a parsed job file (or command line).
func clydeFileInDir(t *testing.T, dir string, f *File, edit func(*blockbench.Plan)) (view, *result.Block) {
	t.Helper()
	p, err := Compile(f, Options{})
	if err != nil {
		t.Fatalf("clyde refused: %v", err)
	}
	for _, g := range p.Groups {
		for i := range g {
			if g[i].Filename != "" && !filepath.IsAbs(g[i].Filename) {
				g[i].Filename = filepath.Join(dir, g[i].Filename)
			}
			if fs := g[i].Files; fs != nil {
				for k, n := range fs.Names {
					if !filepath.IsAbs(n) {
						fs.Names[k] = filepath.Join(dir, n)
					}
				}
			}
		}
	}
	p.WriteLog = func(name string, write func(io.Writer) error) error {
		out, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := write(out); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	}
	if edit != nil {
		edit(&p)
	}
	res, err := blockbench.RunPlan(context.Background(), p)
	if err != nil {
		t.Fatalf("clyde: %v", err)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	v, err := decodeRun(data)
	if err != nil {
		t.Fatal(err)
	}
	v.notes = append(append([]string(nil), p.Notes...), res.Notes...)
	seen := map[string]bool{}
	for _, g := range p.Groups {
		for _, w := range g {
			names := []string{w.Filename}
			if w.Files != nil {
				names = w.Files.Names
			}
			for _, n := range names {
				if name := filepath.Base(n); !w.Diskless() && !seen[name] {
					seen[name] = true // fio's null uses no file, and neither did clyde
					v.files = append(v.files, name)
				}
			}
		}
	}
	sort.Strings(v.files)
	for _, j := range v.jobs {
		for _, f := range j.Files {
			if f.ReadIOs+f.WriteIOs == 0 {
				continue // fio's iolog names a file only for its I/O
			}
			if v.perFile == nil {
				v.perFile = map[string][4]int64{}
			}
			c := v.perFile[filepath.Base(f.Path)]
			c[0], c[1], c[2], c[3] = c[0]+f.ReadIOs, c[1]+f.ReadBytes, c[2]+f.WriteIOs, c[3]+f.WriteBytes
			v.perFile[filepath.Base(f.Path)] = c
		}
	}
	return v, res
}

// ioLogPrefix names the iologs withIOLogs has fio write.
const ioLogPrefix = "iolog."

// withIOLogs has every job section of a job file write fio's iolog
// (write_iolog=iolog.SECTION), whose lines name each I/O's file: what
// each file took, for the cases that compare it (readIOLogs). The option
// is left out of fio's job options before they are compared.
func withIOLogs(text string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		b.WriteString(line)
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") && !isGlobal(t[1:len(t)-1]) {
			b.WriteString("write_iolog=" + ioLogPrefix + t[1:len(t)-1] + "\n")
		}
	}
	return b.String()
}

// readIOLogs reads fio's version 3 iologs in dir (TIME FILE ACTION
// [OFFSET LENGTH]): each file's reads and writes, I/Os and bytes.
func readIOLogs(dir string) (map[string][4]int64, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, ioLogPrefix+"*"))
	out := map[string][4]int64{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) != 5 || (f[2] != "read" && f[2] != "write") {
				continue
			}
			n, err := strconv.ParseInt(f[4], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q: %v", p, line, err)
			}
			k, c := 0, out[filepath.Base(f[1])]
			if f[2] == "write" {
				k = 2
			}
			c[k]++
			c[k+1] += n
			out[filepath.Base(f[1])] = c
		}
	}
	return out, nil
}

// logOffsets reads the offsets of a latency log written with log_offset=1
// (time, value, direction, bs, offset, ...): the distinct ones, and all in
// the log's order.
func logOffsets(path string) (map[int64]bool, []int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	out := map[int64]bool{}
	var order []int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ",")
		if len(fields) < 5 {
			return nil, nil, fmt.Errorf("%s: %q has no offset field", path, sc.Text())
		}
		off, err := strconv.ParseInt(strings.TrimSpace(fields[4]), 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %q: %v", path, sc.Text(), err)
		}
		out[off] = true
		order = append(order, off)
	}
	return out, order, sc.Err()
}

// compareRuns lists every difference between fio's run and clyde's that
// no note of clyde's explains: explained maps a field to a text one of
// clyde's notes must hold for a difference in it to be accepted.
func compareRuns(fio, clyde view, explained map[string]string, timed bool, approx float64) []string {
	var diffs []string
	differs := func(field, format string, args ...any) {
		if want, ok := explained[field]; ok {
			for _, n := range clyde.notes {
				if strings.Contains(n, want) {
					return
				}
			}
		}
		diffs = append(diffs, field+": "+fmt.Sprintf(format, args...))
	}
	if fio.hasGlobal != clyde.hasGlobal || !slices.Equal(fio.global, clyde.global) {
		differs("global options", "fio %s, clyde %s", optionsText(fio.hasGlobal, fio.global), optionsText(clyde.hasGlobal, clyde.global))
	}
	if len(fio.jobs) != len(clyde.jobs) {
		differs("jobs", "fio reports %d entries, clyde %d (%s / %s)", len(fio.jobs), len(clyde.jobs), names(fio), names(clyde))
		return diffs
	}
	for i, f := range fio.jobs {
		c := clyde.jobs[i]
		if f.Name != c.Name {
			differs("name", "entry %d: fio %q, clyde %q", i, f.Name, c.Name)
		}
		if f.Desc != c.Desc {
			differs("desc", "entry %d: fio %q, clyde %q", i, f.Desc, c.Desc)
		}
		if f.HasOptions != c.HasOptions {
			differs("job options", "entry %s: fio %s, clyde %s", f.Name, optionsText(f.HasOptions, f.Options), optionsText(c.HasOptions, c.Options))
		} else if d := optionsDiff(f.Options, c.Options); d != "" {
			differs("job options", "entry %s: %s", f.Name, d)
		}
		if f.Group != c.Group {
			differs("groupid", "entry %d: fio %d, clyde %d", i, f.Group, c.Group)
		}
		fr, fw, cr, cw := f.Read.IOBytes, f.Write.IOBytes, c.Read.IOBytes, c.Write.IOBytes
		mixed := fr > 0 && fw > 0
		// Sizes drawn without fio's random map: a pass ends at the I/O
		// that reaches its bytes, so each worker may pass them by up to
		// its largest size.
		slack := max(fio.bytesSlack, clyde.bytesSlack)
		switch {
		case approx > 0:
			// Paced by a rate or a thinktime: as many bytes in the same
			// time, within approx.
			if fb, cb := float64(fr+fw), float64(cr+cw); math.Abs(cb-fb) > approx*fb {
				differs("bytes", "entry %s: fio %d bytes, clyde %d (more than %.0f%% apart)", f.Name, fr+fw, cr+cw, approx*100)
			}
		case timed:
			// Bytes depend on speed; that each did I/O both ways is compared.
			if (fr > 0) != (cr > 0) || (fw > 0) != (cw > 0) {
				differs("bytes", "entry %s: fio read %d write %d, clyde read %d write %d", f.Name, fr, fw, cr, cw)
			}
		case !mixed && (abs64(fr-cr) > slack || abs64(fw-cw) > slack):
			differs("bytes", "entry %s: fio read %d write %d, clyde read %d write %d", f.Name, fr, fw, cr, cw)
		case mixed && abs64(fr+fw-cr-cw) > slack:
			differs("bytes", "entry %s: fio %d bytes, clyde %d", f.Name, fr+fw, cr+cw)
		case mixed && fio.drawn != nil && clyde.drawn != nil:
			// Sizes drawn too: a share of bytes is as noisy as the
			// largest sizes are rare, so the shares of I/Os are
			// compared, within what their draws vary by.
			nf, nc := float64(f.Read.TotalIOs+f.Write.TotalIOs), float64(c.Read.TotalIOs+c.Write.TotalIOs)
			pf, pc := float64(f.Read.TotalIOs)/nf, float64(c.Read.TotalIOs)/nc
			p := (pf*nf + pc*nc) / (nf + nc)
			if math.Abs(pf-pc) > sharePoints*math.Sqrt(p*(1-p)*(1/nf+1/nc))+0.01 {
				differs("read share", "entry %s: fio %.1f%% of its I/Os reads, clyde %.1f%%", f.Name, 100*pf, 100*pc)
			}
		case mixed:
			// Each I/O draws its direction: the shares agree within
			// what a few hundred draws vary by.
			fs, cs := share(fr, fw), share(cr, cw)
			if math.Abs(fs-cs) > 5 {
				differs("read share", "entry %s: fio %.1f%% reads, clyde %.1f%%", f.Name, fs, cs)
			}
		}
		if f.HasRead != c.HasRead || (f.Mixed == nil) != (c.Mixed == nil) {
			differs("mixed", "entry %s: fio has read %v and mixed %v, clyde read %v and mixed %v", f.Name, f.HasRead, f.Mixed != nil, c.HasRead, c.Mixed != nil)
		} else if f.Mixed != nil && !timed && approx == 0 && *f.Mixed != *c.Mixed {
			differs("mixed", "entry %s: fio's mixed %+v, clyde's %+v", f.Name, *f.Mixed, *c.Mixed)
		}
		if ft, ct := f.Trim.IOBytes, c.Trim.IOBytes; ft != ct && !timed && approx == 0 {
			differs("trim", "entry %s: fio trimmed %d bytes, clyde %d", f.Name, ft, ct)
		}
		if fs, cs := f.Sync, c.Sync; !timed && approx == 0 && (fs.TotalIOs != cs.TotalIOs || fs.Lat.N != cs.Lat.N) {
			differs("sync", "entry %s: fio %d fsyncs, %d syncs timed; clyde %d, %d", f.Name, fs.TotalIOs, fs.Lat.N, cs.TotalIOs, cs.Lat.N)
		}
		if fd, cd := depthOf(f.DepthLevel), depthOf(c.DepthLevel); !sameDepth(fd, cd) {
			differs("depth", "entry %s: fio's queue ran at %d, clyde's at %d", f.Name, fd, cd)
		}
	}
	if explained["files"] != "" || len(fio.files) > 0 && len(clyde.files) > 0 {
		if strings.Join(fio.files, " ") != strings.Join(clyde.files, " ") {
			differs("files", "fio used %q, clyde %q", fio.files, clyde.files)
		}
	}
	if fio.offsets != nil && (len(fio.offsets) != len(clyde.offsets) || fio.logIOs != clyde.logIOs) {
		differs("offsets", "fio touched %d distinct blocks in %d I/Os, clyde %d in %d", len(fio.offsets), fio.logIOs, len(clyde.offsets), clyde.logIOs)
	}
	if fio.hist != nil {
		f, c := fio.hist, clyde.hist
		if len(f.cols) != 1 || len(c.cols) != 1 || fmt.Sprint(f.cols) != fmt.Sprint(c.cols) {
			differs("hist columns", "fio's lines have %v fields, clyde's %v", f.cols, c.cols)
		}
		if fmt.Sprint(f.dirs) != fmt.Sprint(c.dirs) || c.lines == 0 || c.ios == 0 {
			differs("hist lines", "fio: %d lines, directions %v, %d I/Os; clyde: %d lines, directions %v, %d I/Os", f.lines, f.dirs, f.ios, c.lines, c.dirs, c.ios)
		}
	}
	return diffs
}

// directWorks says whether a file in a temporary directory opens with
// O_DIRECT, as the direct=1 cases need.
func directWorks(t *testing.T) bool {
	path := filepath.Join(t.TempDir(), "probe")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := osio.OpenFile(path, osio.ReadWrite|osio.Direct)
	if err != nil {
		return false
	}
	_ = f.Close()
	return true
}

// compareDepthDist lists the iodepth_level buckets where clyde's share of
// submissions is more than tol points from fio's, entry by entry.
func compareDepthDist(fio, clyde view, tol float64) []string {
	var diffs []string
	for i := range min(len(fio.jobs), len(clyde.jobs)) {
		f, c := fio.jobs[i].DepthLevel, clyde.jobs[i].DepthLevel
		for _, k := range []string{"1", "2", "4", "8", "16", "32", ">=64"} {
			if math.Abs(f[k]-c[k]) > tol {
				diffs = append(diffs, fmt.Sprintf("iodepth_level of %s: fio %v, clyde %v (bucket %s more than %g points apart)", fio.jobs[i].Name, f, c, k, tol))
				break
			}
		}
	}
	return diffs
}

// compareBatchDist lists the iodepth_submit and iodepth_complete buckets
// where clyde's share is more than tol points from fio's, entry by entry.
func compareBatchDist(fio, clyde view, tol float64) []string {
	var diffs []string
	for i := range min(len(fio.jobs), len(clyde.jobs)) {
		f, c := fio.jobs[i], clyde.jobs[i]
		for _, d := range []struct {
			name   string
			fd, cd map[string]float64
		}{{"iodepth_submit", f.Submit, c.Submit}, {"iodepth_complete", f.Complete, c.Complete}} {
			for _, k := range []string{"0", "4", "8", "16", "32", "64", ">=64"} {
				if math.Abs(d.fd[k]-d.cd[k]) > tol {
					diffs = append(diffs, fmt.Sprintf("%s of %s: fio %v, clyde %v (bucket %s more than %g points apart)", d.name, f.Name, d.fd, d.cd, k, tol))
					break
				}
			}
		}
	}
	return diffs
}

// optionsText is an options object as the JSON has it, or "none" when
// the JSON has no such object.
func optionsText(present bool, o result.Options) string {
	if !present {
		return "none"
	}
	b, _ := json.Marshal(o)
	return string(b)
}

// compareShares compares each entry's share of the run's I/Os, within
// tol percentage points.
func compareShares(fio, clyde view, tol float64) []string {
	total := func(v view) (n int64) {
		for _, j := range v.jobs {
			n += j.Read.TotalIOs + j.Write.TotalIOs
		}
		return n
	}
	tf, tc := total(fio), total(clyde)
	if tf == 0 || tc == 0 || len(fio.jobs) != len(clyde.jobs) {
		return []string{fmt.Sprintf("shares: fio %d I/Os in %d entries, clyde %d in %d", tf, len(fio.jobs), tc, len(clyde.jobs))}
	}
	var out []string
	for i, f := range fio.jobs {
		c := clyde.jobs[i]
		sf := float64(f.Read.TotalIOs+f.Write.TotalIOs) * 100 / float64(tf)
		sc := float64(c.Read.TotalIOs+c.Write.TotalIOs) * 100 / float64(tc)
		if math.Abs(sf-sc) > tol {
			out = append(out, fmt.Sprintf("share: entry %d (%s): fio %.1f%% of the I/Os, clyde %.1f%%", i, f.Name, sf, sc))
		}
	}
	return out
}

// offWeights says where an entry's share of the run's I/Os is more than
// tol percentage points from its weight's share of the weights' sum.
func offWeights(v view, weights []float64, tol float64) []string {
	if len(v.jobs) != len(weights) {
		return []string{fmt.Sprintf("%d entries for %d weights", len(v.jobs), len(weights))}
	}
	var total int64
	for _, j := range v.jobs {
		total += j.Read.TotalIOs + j.Write.TotalIOs
	}
	var sum float64
	for _, w := range weights {
		sum += w
	}
	var out []string
	for i, j := range v.jobs {
		got := float64(j.Read.TotalIOs+j.Write.TotalIOs) * 100 / float64(max(total, 1))
		if want := weights[i] * 100 / sum; math.Abs(got-want) > tol {
			out = append(out, fmt.Sprintf("entry %d (%s): %.1f%% of the I/Os for a weight of %.1f%%", i, j.Name, got, want))
		}
	}
	return out
}

func share(r, w int64) float64 { return float64(r) * 100 / float64(r+w) }

func abs64(v int64) int64 { return max(v, -v) }

func names(v view) string {
	var out []string
	for _, j := range v.jobs {
		out = append(out, j.Name)
	}
	return strings.Join(out, ",")
}

// fioCases are job files that cover every silent difference issue 23
// found, several written as fio's examples are (comments, [global], more
// than one group), each small enough to run in well under a second.
var fioCases = []struct {
	name string
	text string
	// logs says the job file writes lg_lat.1.log with offsets; order
	// compares them in the log's order (a sequence fio and clyde both
	// know in advance).
	logs  bool
	order bool
	// explained: field -> the text of the note that says why it differs.
	explained map[string]string
	// files compares the files the jobs used.
	files bool
	// timed: a time_based file, whose bytes depend on speed; approx, for
	// one paced by a rate, how far apart the bytes may be.
	timed  bool
	approx float64
	// depthDist, when set, compares every bucket of iodepth_level: each
	// within this many percentage points of fio's; batchDist the same for
	// iodepth_submit and iodepth_complete.
	depthDist float64
	batchDist float64
	// fioMayHang: fio 3.33 now and then hangs on the case here; a run it
	// does not finish skips the case rather than failing it.
	fioMayHang bool
	// sizes, when set, compares the I/O sizes of the first latency log
	// instead of its offsets, one by one (sizecompare_test.go).
	sizes *sizeCase
	// perFile compares what each file took, I/Os and bytes per direction
	// (fio's from its iolog, withIOLogs).
	perFile bool
	// shares, when set, compares each entry's share of all the entries'
	// I/Os, within this many percentage points of fio's (flow's ratios
	// in a timed run).
	shares float64
	// weights, with shares, is the rule the shares follow (flow.c: each
	// entry's weight over the flow's total): clyde's shares must keep
	// it, and fio's run is the oracle only when fio kept it too. On a
	// loaded machine fio 3.33 strays (3.2/9.5/87.3% for 1:3:3 in one CI
	// run beside a CPU hog, 158/471/2750 I/Os in another), a race in its
	// own counters, not a rule clyde should copy.
	weights []float64
	// check, when set, asserts what the case is about on both runs.
	check func(t *testing.T, run view)
	// readsAll, when set, is the bytes every entry reads, fio's and
	// clyde's alike, whatever each drew: a mixed job with verify= reads
	// the blocks it did not write and reads back those it wrote.
	readsAll int64
}{
	// fio's files of one job (filesetup.c setup_files, io_u.c
	// __get_next_file): size= split over nrfiles, each file done once
	// per pass whatever the service; filename_format's keywords, any
	// case, $clientuid empty here; a filename list with an escaped colon.
	{name: "nrfiles, filename_format, filename lists", files: true, perFile: true, text: `[global]
size=64k
bs=4k
[rr]
rw=read
nrfiles=4
[fmt]
rw=write
nrfiles=3
filename_format=$jobname-f$filenum.$JOBNUM$clientuid
unique_filename=1
[list]
filename=a.dat:b\:c.dat::d.dat
size=48k
rw=write
file_service_type=sequential
[rand]
rw=randread
nrfiles=3
size=48k
file_service_type=random
`},
	// filesize: fixed, and a range each file draws its size from as fio
	// 3.33's get_rand_file_size does (clones draw their own); size= below
	// the files' sum ends the job there.
	{name: "filesize and ranges", files: true, perFile: true, text: `[global]
bs=4k
rw=write
[range]
nrfiles=4
filesize=8k-64k
[clones]
nrfiles=2
filesize=16k:48k
numjobs=2
[fixed]
nrfiles=2
filesize=32k
size=16k
`},
	// A pass's bytes: fio's do_io counts them for an engine that queues
	// (io_uring), not for psync, whose pass runs until its files are done
	// or the job's bytes are issued; openfiles and roundrobin:2.
	{name: "passes of several files, openfiles", perFile: true, text: `[global]
nrfiles=3
filesize=8k
size=4k
loops=3
file_service_type=sequential
rw=read
[psync]
ioengine=psync
[uring]
ioengine=io_uring
[open]
nrfiles=4
size=64k
loops=1
openfiles=2
file_service_type=roundrobin:2
[create]
rw=write
nrfiles=2
size=32k
loops=1
create_on_open=1
`},
	// Non-uniform services and a time-based job over several files:
	// bytes, directions and depths.
	{name: "zipf and gauss services, time based", timed: true, text: `[global]
nrfiles=4
size=64k
runtime=300ms
time_based
[zipf]
rw=randread
file_service_type=zipf:1.2
[gauss]
rw=read
file_service_type=gauss:10
[mixed]
rw=randrw
ioengine=io_uring
iodepth=4
file_service_type=random:3
`},
	{name: "inline comments", files: true, text: `; fio's example style
[global]
bs=4k                 ; block size
size=256k             # the region
runtime=3600  # Max runtime
[seq]
filename=data ; the test file
description=desc # comment
rw=write
numjobs=2  ; comment
`},
	{name: "leading zeros are decimal", text: `[global]
size=4m
bs=4k
; octal would read 070 as 56% reads, 010 as 8 passes
[mix]
filename=mix.dat
rw=randrw
rwmixread=070
[passes]
filename=passes.dat
size=64k
rw=read
loops=010
[deep]
filename=deep.dat
rw=randread
direct=1
ioengine=io_uring
iodepth=04
`},
	{name: "name in global keeps section names", text: `[global]
name=everyone
filename=f.dat
size=128k
[first]
rw=read
[second]
rw=write
`},
	// fio's parser takes any section whose name starts with "global" for
	// [global] (init.c: strncmp(name, "global", 6)).
	{name: "[global-foo] and [globalx] are global", files: true, text: `[global-foo]
size=128k
bs=4k
[globalx]
rw=write
[job]
filename=g.dat
[global2]
size=64k
[later]
filename=h.dat
`},
	{name: "name in a job renames its entry", text: `[sec]
name=renamed
filename=f.dat
size=128k
rw=write
`},
	{name: "IEC units are powers of 1000 under kb_base=1024", text: `[global]
bs=4k
rw=write
[mib]
filename=a.dat
size=1MiB
[kib]
filename=b.dat
size=512KiB
[mb]
filename=c.dat
size=1MB
`},
	{name: "kb_base=1000", text: `[global]
kb_base=1000
bs=4KiB
rw=write
[mib]
filename=a.dat
size=1MiB
[mb]
filename=c.dat
size=1MB
`},
	{name: "hex sizes", text: `[hex]
filename=h.dat
size=0x40000
bs=0x1000
rw=write
`},
	{name: "group_reporting sums the group", text: `[global]
group_reporting
size=128k
[a]
filename=a.dat
rw=write
[b]
filename=b.dat
rw=write
[c]
stonewall
filename=c.dat
rw=read
numjobs=2
`},
	{name: "numjobs without group_reporting", text: `[clones]
filename=shared.dat
size=128k
rw=randwrite
numjobs=4
`},
	{name: "numjobs with no filename", files: true, text: `[global]
size=64k
rw=write
[own]
numjobs=2
[format]
filename_format=$jobname-$jobnum.dat
numjobs=2
`},
	{name: "libaio direct", depthDist: 0.2, text: `[aio-direct]
filename=aiod.dat
size=1m
rw=randread
ioengine=libaio
iodepth=16
direct=1
`},
	{name: "buffered libaio", depthDist: 0.2, text: `[aio]
filename=aio.dat
size=256k
rw=randread
ioengine=libaio
iodepth=8
direct=0
`},
	{name: "null: no file, depth 1 and 8", files: true, depthDist: 0.2, batchDist: 0.2, text: `[global]
size=1m
bs=4k
ioengine=null
[sync]
rw=randread
[queued]
rw=randwrite
iodepth=8
[named]
filename=never.dat
rw=read
`},
	{name: "mmap", text: `[global]
filename=mm.dat
size=1m
ioengine=mmap
[read]
rw=randread
[write]
rw=randwrite
fsync=8
[mixed]
rw=randrw
`},
	{name: "posixaio", explained: map[string]string{"sync": "axboe/fio#1754"}, text: `[global]
size=1m
ioengine=posixaio
[read]
filename=pa.dat
rw=randread
iodepth=8
[write]
filename=pw.dat
rw=write
iodepth=4
fsync=16
`},
	// falloc and ftruncate (fio's engines/falloc.c, ftruncate.c): one
	// fallocate or ftruncate per block, counted as the block's bytes;
	// falloc's trims punch holes in a regular file, its reads allocate
	// beside writes; the groups run one after another on the same files.
	{name: "falloc and ftruncate", files: true, text: `[global]
size=2m
bs=16k
[fill]
ioengine=falloc
filename=fa.dat
rw=randwrite
bs=64k
[punch]
stonewall
ioengine=falloc
filename=fa.dat
rw=randtrim
[keep]
stonewall
ioengine=falloc
filename=fa.dat
rw=randrw
rwmixread=30
[grow]
stonewall
ioengine=ftruncate
filename=tr.dat
rw=write
[shrink]
stonewall
ioengine=ftruncate
filename=tr.dat
rw=randwrite
norandommap
`},
	// cpuio (fio's engines/cpu.c): no file, no I/O; each unit a burn,
	// counted as a read of 0 bytes, then the idle share of cpuload; the
	// job runs for its runtime, its engine options echoed after the rest.
	{name: "cpuio", timed: true, files: true, text: `[global]
cpuload=40
ioengine=cpuio
cpuchunks=20000
runtime=1
[noop]
numjobs=2
group_reporting
[qsort]
stonewall
cpumode=qsort
cpuload=80
`},
	// exec (fio's engines/exec.c): the program each job names, started by
	// its first unit, %r and %n expanded, stopped past the runtime; no
	// file, every unit a read of 0 bytes.
	{name: "exec", timed: true, files: true, text: `[global]
time_based
runtime=1
ioengine=exec
std_redirect=0
[sleep]
program=sleep
arguments=%r
grace_time=0
[true]
stonewall
program=true
arguments=%n
`},
	{name: "io_uring direct", depthDist: 0.2, batchDist: 0.2, text: `[uring-direct]
filename=urd.dat
size=1m
rw=randread
ioengine=io_uring
iodepth=16
direct=1
`},
	{name: "buffered io_uring", depthDist: 0.2, batchDist: 0.2, text: `[uring]
filename=uring.dat
size=1m
rw=randrw
ioengine=io_uring
iodepth=32
`},
	// fio's batching: with iodepth_batch_complete_min equal to its max
	// every submit and reap size is fixed by the loop, so the
	// distributions match bucket for bucket.
	{name: "io_uring direct, batches of 8, reaps of 4", depthDist: 0.2, batchDist: 0.2, text: `[uring-batch]
filename=urb.dat
size=2m
rw=randread
ioengine=io_uring
iodepth=16
iodepth_batch_submit=8
iodepth_batch_complete_min=4
direct=1
`},
	{name: "libaio direct, batches of 8, reaps of 4", depthDist: 0.2, batchDist: 0.2, text: `[aio-batch]
filename=aiob.dat
size=2m
rw=randread
ioengine=libaio
iodepth=16
iodepth_batch=8
iodepth_batch_complete=4
direct=1
`},
	{name: "batches that split, a low-water mark", depthDist: 0.2, batchDist: 0.2, text: `[global]
size=2m
rw=randread
iodepth=16
; fio's td_io_getevents commits without clearing its count: 1s and 2s
[split]
filename=split.dat
ioengine=libaio
iodepth_batch_submit=8
iodepth_batch_complete_min=3
[low]
filename=low.dat
ioengine=io_uring
iodepth_batch_submit=8
iodepth_low=4
[sync-ignores-them]
filename=sync.dat
ioengine=psync
iodepth_batch_submit=8
iodepth_batch_complete_min=4
`},
	// fio's examples/ime.fio with fio's own engines for DDN's ime_*
	// (psync, pvsync, libaio) and sizes cut: its [global]
	// iodepth_batch=16 and iodepth_batch_complete=16 are ignored by the
	// synchronous jobs and run by libaio's.
	{name: "examples/ime.fio on fio's local engines", depthDist: 0.2, batchDist: 0.2, text: `# This jobfile performs basic write+read operations using
# DDN's Infinite Memory Engine.

[global]

# Use as much jobs as possible to maximize performance
numjobs=2

# The filename should be uniform so that "read" jobs can read what
# the "write" jobs have written.
filename_format=fio-test-ime.$jobnum.$filenum

size=2m
bs=128k

# These settings are useful for the asynchronous ime_aio engine:
# by setting the io depth to twice the size of a "batch", we can
# queue IOs while other IOs are "in-flight".
iodepth=32
iodepth_batch=16
iodepth_batch_complete=16

[write-psync]
stonewall
rw=write
ioengine=psync

[read-psync]
stonewall
rw=read
ioengine=psync

[write-psyncv]
stonewall
rw=write
ioengine=pvsync

[read-psyncv]
stonewall
rw=read
ioengine=pvsync

[write-aio]
stonewall
rw=write
ioengine=libaio

[read-aio]
stonewall
rw=read
ioengine=libaio
`},
	{name: "random map: each block once per pass", logs: true, text: `[precondition]
filename=pre.dat
size=256k
bs=4k
rw=randwrite
write_lat_log=lg
log_offset=1
`},
	{name: "rw=write:8k: holes, the pass ending early", logs: true, order: true, text: `[holes]
filename=holes.dat
size=64k
bs=4k
rw=write:8k
loops=2
write_lat_log=lg
log_offset=1
`},
	{name: "rw=read:-8k: backwards from offset=", logs: true, order: true, text: `; as fio's examples/backwards-read.fio, cut down
[backwards-read]
bs=4k
rw=read:-8k
filename=back.dat
offset=16k
size=32k
write_lat_log=lg
log_offset=1
log_avg_msec=0
`},
	{name: "rw=randread:4 identical", logs: true, text: `[ident]
filename=ident.dat
size=64k
bs=4k
rw=randread:4
rw_sequencer=identical
write_lat_log=lg
log_offset=1
`},
	{name: "rw=randrw:4 sequential", text: `[runs]
filename=runs.dat
size=256k
bs=4k
rw=randrw:4
`},
	{name: "histogram log", timed: true, text: `[h]
filename=h.dat
size=1m
rw=randrw
runtime=600ms
time_based
write_hist_log=hh
log_hist_msec=100
`},
	{name: "rate", timed: true, approx: 0.15, text: `[global]
size=1m
runtime=1
time_based
[iops]
filename=r.dat
rw=randread
rate_iops=200
[bw]
filename=w.dat
rw=write
bs=4k
rate=,400k
`},
	{name: "loops", text: `[twice]
filename=l.dat
size=128k
rw=read
loops=2
`},
	{name: "escaped colon in a filename", files: true, text: `[colon]
filename=a\:b.dat
size=64k
rw=write
`},
	{name: "verify=crc32c reads every block back", text: `[global]
bs=4k
size=256k
[seq]
filename=seq.dat
rw=write
verify=crc32c
[rand]
filename=rand.dat
rw=randwrite
verify=md5
verify_fatal=1
`},
	// fio's verify_interval: a header every 512 bytes of a 4k write, one
	// larger than the write cut to it (init.c fixup_options); the verify
	// pass reads a write a read.
	{name: "verify_interval", text: `[global]
bs=4k
size=256k
verify=md5
[part]
filename=part.dat
rw=randwrite
verify_interval=512
[larger]
filename=larger.dat
rw=write
bs=1k
verify_interval=1m
`},
	// A job that only reads, with verify=, checks every block it reads
	// against the header a do_verify=0 writer left (fio's verify on a
	// read-only workload): every read, no verify pass.
	{name: "verify= on a read job", text: `[global]
bs=4k
size=256k
verify=md5
verify_interval=1k
filename=r.dat
[write]
rw=randwrite
do_verify=0
[seq]
stonewall
rw=read
[rand]
stonewall
rw=randread
ioengine=libaio
iodepth=8
`},
	// A mixed job with verify=: its reads are not checked, the blocks it
	// wrote are read back after the pass (verify_backlog=1: each right
	// after its write, t0008's "writes 16MB, reads 16+16MB").
	{name: "verify= on mixed jobs", text: `[global]
bs=4k
size=256k
verify=crc32c
[mixed]
filename=m.dat
rw=readwrite
[backlog]
filename=b.dat
rw=readwrite
verify_backlog=1
[random]
filename=r.dat
rw=randrw
rwmixread=30
verify=md5
[batch]
filename=c.dat
rw=randrw
verify_backlog=4
verify_backlog_batch=2
`, approx: 0.15, readsAll: 256 << 10},
	// examples/surface-scan's shape without fill_device: verify=meta with
	// a pattern, headers every 512 bytes, written by one job and read by
	// the next, which checks every block; a write job with its verify pass.
	{name: "verify=meta", text: `[global]
bs=64k
verify=meta
verify_pattern=0xaa555aa5
verify_interval=512
size=1m
[write-phase]
filename=datafile.tmp
rw=write
do_verify=0
[verify-phase]
stonewall
filename=datafile.tmp
rw=read
do_verify=1
[write-verify]
filename=wv.tmp
rw=randwrite
`},
	{name: "fdatasync=4 with end_fsync=1", text: `[global]
bs=4k
size=256k
rw=write
[datasync]
filename=a.dat
fdatasync=4
end_fsync=1
[both]
filename=b.dat
fsync=3
fdatasync=4
[onclose]
filename=c.dat
fsync_on_close=1
`},
	// fio's echo of the options: blanks after '=' kept, fio's names for
	// aliases, each section sorted by option priority (kb_base and
	// unit_base first, filename_format and filename last), a second bs=
	// kept, bare options left out, two [global*] sections, numjobs
	// clones, and a job with no option of its own (no "job options").
	{name: "job options as fio echoes them", files: true, text: `[global]
bs = 4k
readwrite=read
ioengine=sync
size=64k
[global-two]
kb_base=1000
thread
[echo]
size=256KiB
blocksize=8k
iodepth_batch_submit=1
bs=4k
description=a "q" \ b
unit_base=1
filename_format=echo.$jobnum
directory=.
numjobs=2
[bare]
[filename-last]
zero_buffers
filename=last.dat
rw=write
`},
	// fio's region options (options.c str_size_cb, str_offset_cb,
	// str_offset_increment_cb; filesetup.c): shares of the file the first
	// job lays out, rounded up to a block, and the clones' increments by
	// fio's subjob numbers.
	{name: "size=N%, offset=N%, offset_increment", text: `[global]
filename=p.dat
bs=4k
[lay]
size=1m
rw=write
[shares]
stonewall
rw=read
size=30%
offset=900k
[share]
rw=randread
size=30%
[off10]
rw=read
offset=10%
size=64k
[inc]
rw=randread
size=16k
offset=4k
offset_increment=10%
numjobs=3
[incabs]
rw=read
size=8k
offset_increment=100k
numjobs=3
`},
	// io_size: more passes than one, fewer, not whole blocks, with loops,
	// and in percent (backend.c keep_running and io_bytes_exceeded).
	{name: "io_size and io_limit", text: `[global]
bs=4k
size=64k
[seqr]
filename=a.dat
rw=read
io_size=160k
[seqw]
filename=b.dat
rw=write
io_limit=40k
[randr]
filename=c.dat
rw=randread
io_size=162k
[loops]
filename=d.dat
rw=read
io_size=200k
loops=2
[norandommap]
filename=e.dat
rw=randwrite
norandommap
io_size=160k
[mixed]
filename=f.dat
rw=rw
io_size=100k
[pct]
filename=g.dat
rw=read
size=256k
io_size=50%
loops=2
`},
	{name: "offset_increment: the clones' blocks", logs: true, text: `[lg]
filename=o.dat
size=16k
bs=4k
rw=read
offset_increment=20k
numjobs=3
write_lat_log=lg
log_offset=1
`},
	// startdelay, a range drawn per clone: counts agree (the order of the
	// starts is TestStartDelayAgainstFio's).
	{name: "startdelay", text: `[global]
ioengine=null
size=256k
rw=randread
[a]
startdelay=100ms
[b]
startdelay=0-300ms
numjobs=2
[c]
stonewall
startdelay=50ms-200ms
`},
	// io_submit_mode=offload runs fio's I/O from a thread of its own; at
	// iodepth 1 fio 3.33 reports what an inline run does (deeper, it
	// hangs at the end here; at 1, one run in a few).
	{name: "io_submit_mode=offload", depthDist: 0.2, batchDist: 0.2, fioMayHang: true, text: `[global]
size=1m
rw=randread
io_submit_mode=offload
[psync]
filename=s.dat
[null]
ioengine=null
[aio]
filename=a.dat
ioengine=libaio
direct=1
`},
	// Options fio takes and that change nothing clyde runs: echoed as
	// written, noted.
	{name: "threads, cpus_allowed_policy, experimental_verify, create_on_open", text: `[global]
threads=1
cpus_allowed_policy=split
bs=4k
size=128k
[verify]
filename=v.dat
rw=write
do_verify=1
verify=md5
experimental_verify=1
thread
[created]
filename=c.dat
rw=randwrite
create_on_open=1
`},
	// flow (flow.c): jobs sharing a flow id hold their I/O counts in the
	// ratio of their weights, each clone with its own weight.
	{name: "flow: counts in the weights' ratio", timed: true, shares: 3, weights: []float64{1, 3, 3}, text: `[global]
thread
ioengine=null
size=100g
runtime=1
time_based
flow_id=1
[a]
flow=1
[b]
flow=3
numjobs=2
`},
	// With flow_sleep a held job sleeps, and how far the shares come
	// from the weights' depends on how long (fio 3.33 gave the lighter
	// job 7.6% and 16% in two runs for its 16.7%): the heavier job does
	// more.
	{name: "flow_sleep: the ratio with a sleep when held", timed: true, text: `[global]
ioengine=null
size=100g
runtime=1
time_based
flow_id=3
flow_sleep=100
[a]
flow=1
[b]
flow=5
`, check: func(t *testing.T, run view) {
		if a, b := run.jobs[0].Read.TotalIOs, run.jobs[1].Read.TotalIOs; a == 0 || b <= a {
			t.Errorf("reads %d (weight 1) and %d (weight 5): want both, the heavier more", a, b)
		}
	}},
	// Every job's weight counts from the start, a later group's too: the
	// first job is held after two I/Os until its runtime (fio 3.33).
	{name: "flow: a later group's weight holds the first", text: `[global]
ioengine=null
size=1m
runtime=1
[a]
flow=1
[b]
stonewall
flow=1
`, check: func(t *testing.T, run view) {
		if run.jobs[0].Read.TotalIOs != 2 || run.jobs[1].Read.TotalIOs != 256 {
			t.Errorf("reads %d and %d, want 2 (held) and 256", run.jobs[0].Read.TotalIOs, run.jobs[1].Read.TotalIOs)
		}
	}},
	// wait_for: the readers start once both writers' clones are done.
	{name: "wait_for", text: `[global]
ioengine=null
size=256k
[w]
rw=write
numjobs=2
[r]
wait_for=w
rw=randread
bs=8k
`},
	// exitall: the job that ends stops its reporting group; the next
	// group runs whole. long is paced so that it is still running.
	{name: "exitall stops the group", timed: true, text: `[global]
ioengine=null
bs=4k
[short]
size=8k
thinktime=200000
exitall
[long]
size=1m
rate_iops=50
[later]
stonewall
size=64k
`, check: func(t *testing.T, run view) {
		if n := run.jobs[1].Read.TotalIOs; n >= 256 {
			t.Errorf("long did all its %d reads: exitall did not stop it", n)
		}
		if n := run.jobs[2].Read.TotalIOs; n != 16 {
			t.Errorf("the later group did %d reads, want its 16", n)
		}
	}},
	// exit_what=all: the later group's job never starts; fio reports it
	// with nothing done.
	{name: "exit_what=all: no later group runs", timed: true, text: `[global]
ioengine=null
bs=4k
exitall
[short]
size=8k
thinktime=200000
exit_what=all
[long]
size=1m
rate_iops=50
[never]
stonewall
size=64k
`, check: func(t *testing.T, run view) {
		if len(run.jobs) != 3 || run.jobs[1].Read.TotalIOs >= 256 || run.jobs[2].Read.TotalIOs != 0 {
			t.Fatalf("%d entries (%s): want 3, long stopped and never with nothing done", len(run.jobs), names(run))
		}
	}},
	// number_ios: a pass ends at that many I/Os (times loops), or at
	// the region's end if sooner.
	{name: "number_ios", text: `[global]
ioengine=null
number_ios=100
[twice]
size=1m
loops=2
[short]
size=64k
[random]
size=1m
rw=randread
`},
	// cpus_allowed, cpumask and cpus_allowed_policy pin each job's
	// thread; what the jobs do is the same (blockbench's
	// TestPinWorker checks the pinning).
	{name: "cpus_allowed split, cpumask", text: `[global]
ioengine=null
size=256k
[a]
cpus_allowed=0
cpus_allowed_policy=split
numjobs=2
[b]
cpumask=1
rw=randread
`},
	// Minimums far below the rates: met, however loaded the machine.
	{name: "rate_iops_min and ratemin met", timed: true, text: `[global]
size=1m
runtime=2500ms
time_based
ratecycle=500
[iops]
filename=r.dat
rw=randread
rate_iops=200
rate_iops_min=5
[bw]
filename=w.dat
rw=write
rate=400k
ratemin=10k
`},
	// unified_rw_reporting: fio's "mixed" object in place of the
	// directions (mixed, 1) or after them (both, 2).
	{name: "unified_rw_reporting", text: `[global]
size=4m
bs=4k
rw=randrw
[none]
filename=n.dat
unified_rw_reporting=none
[mixed]
filename=m.dat
unified_rw_reporting=mixed
[both]
filename=b.dat
unified_rw_reporting=both
[one]
filename=o.dat
unified_rw_reporting=1
rw=write
[two]
stonewall
filename=t.dat
unified_rw_reporting=2
rw=randread
numjobs=2
group_reporting
`},
	// fio's data patterns: buffer_pattern fills the writes, verify_pattern
	// the verified blocks (verify=pattern when no verify= is given), with
	// %o the block's offset; verify_dump changes nothing that is counted.
	{name: "buffer_pattern, verify_pattern, verify_dump", text: `[global]
size=64k
bs=4k
[bp]
filename=b.dat
rw=write
buffer_pattern=0xdeadbeef
[vp]
filename=v.dat
rw=randwrite
verify_pattern="ab"%o
[vmd5]
filename=m.dat
rw=write
verify=md5
verify_pattern=0x55aa
verify_dump=1
[compressible]
filename=c.dat
rw=write
buffer_compress_percentage=50
buffer_pattern=-1024
`},
	// verify_backlog reads back the blocks written so far between the
	// writes: after every 8, 3 at a time, the rest at the end, oldest
	// first (io_u.c check_get_verify), every I/O in the log's order.
	{name: "verify_backlog with a batch, in order", logs: true, order: true, text: `[lg]
filename=bl.dat
size=64k
bs=4k
rw=write
verify=crc32c
verify_backlog=8
verify_backlog_batch=3
write_lat_log=lg
log_offset=1
`},
	{name: "verify_backlog", text: `[global]
size=256k
bs=4k
[seq]
filename=s.dat
rw=write
verify=md5
verify_backlog=8
[rand]
filename=r.dat
rw=randwrite
verify=crc32c
verify_backlog=16
verify_backlog_batch=40
`},
	// Block sizes drawn per I/O (issue 34): fio's log of every I/O is
	// the oracle for each size's share per direction, the I/O count,
	// where I/Os start and what a pass covers (sizecompare_test.go).
	{name: "bssplit: Iometer's file server on a file, the map covering it once", logs: true,
		sizes: &sizeCase{align: [3]int64{512, 512, 512}, cover: 16 << 20}, text: `[iometer]
filename=io.dat
size=16m
rw=randrw
rwmixread=80
bssplit=512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10
write_lat_log=lg
log_offset=1
`},
	{name: "bs=4k,8k,16k: a size per direction, each in sequence", logs: true,
		sizes: &sizeCase{align: [3]int64{4 << 10, 8 << 10, 16 << 10}}, text: `[dirs]
ioengine=null
size=16m
rw=rw
bs=4k,8k,16k
write_lat_log=lg
log_offset=1
`},
	{name: "bs=,8k: writes changed alone", logs: true, approx: 0.001,
		sizes: &sizeCase{align: [3]int64{4 << 10, 8 << 10}}, text: `[writes]
ioengine=null
size=16m
rw=randrw
bs=,8k
norandommap
write_lat_log=lg
log_offset=1
`},
	{name: "bsrange=1k-4k twice: the random map cuts I/Os at used blocks", logs: true,
		sizes: &sizeCase{align: [3]int64{1 << 10}, cover: 16 << 20, loops: 2}, text: `[range]
ioengine=null
size=16m
rw=randread
bsrange=1k-4k
loops=2
write_lat_log=lg
log_offset=1
`},
	{name: "bssplit per direction, a size without a share", logs: true, approx: 0.01,
		sizes: &sizeCase{align: [3]int64{4 << 10, 64 << 10}}, text: `[split]
ioengine=null
size=64m
rw=randrw
bssplit=4k/50:8k/,64k/100
norandommap
write_lat_log=lg
log_offset=1
`},
	{name: "bssplit short of 100: the rest to the last size tried", logs: true, approx: 0.01,
		sizes: &sizeCase{align: [3]int64{4 << 10}}, text: `[short]
ioengine=null
size=64m
rw=randread
bssplit=4k/10:64k/50
norandommap
write_lat_log=lg
log_offset=1
`},
	{name: "bssplit past 100 with a size without a share: fio's unsigned share", logs: true,
		sizes: &sizeCase{align: [3]int64{4 << 10}, cover: 16 << 20}, text: `[past]
ioengine=null
size=16m
rw=randread
bssplit=4k/60:8k/50:16k
write_lat_log=lg
log_offset=1
`},
	{name: "blockalign=4k under 8k-32k with bs_unaligned: sizes as drawn, the map off", logs: true, approx: 0.01,
		sizes: &sizeCase{align: [3]int64{4 << 10}, unaligned: true}, text: `[align]
ioengine=null
size=64m
rw=randread
bsrange=8k-32k
blockalign=4k
bs_unaligned
write_lat_log=lg
log_offset=1
`},
	{name: "bs_is_seq_rand: random reads take the write size", logs: true,
		sizes: &sizeCase{align: [3]int64{4 << 10}, cover: 16 << 20}, text: `[seqrand]
ioengine=null
size=16m
rw=randread
bs=4k,16k
bs_is_seq_rand=1
write_lat_log=lg
log_offset=1
`},
	{name: "bs=4k,8k with randwrite: fio's map, in 4k blocks, ends the job early", logs: true, approx: 1,
		sizes: &sizeCase{align: [3]int64{0, 8 << 10}, short: 16 << 20, countFree: true}, text: `[quirk]
ioengine=null
size=16m
rw=randwrite
bs=4k,8k
write_lat_log=lg
log_offset=1
`},
	{name: "bssplit on libaio, direct", logs: true, depthDist: 0.2,
		sizes: &sizeCase{align: [3]int64{4 << 10}, cover: 16 << 20}, text: `[aio-split]
filename=aio.dat
size=16m
rw=randread
ioengine=libaio
iodepth=16
direct=1
bssplit=4k/50:64k/50
write_lat_log=lg
log_offset=1
`},
	{name: "an example's shape", text: `; -- start job file --
[global]
description=Emulation of a simple web server   ; what it is
bs=4k
size=256k
ioengine=psync
invalidate=1

[reader]
rw=randread
filename=web.dat

[writer]
rw=randwrite
filename=log.dat

[check]
stonewall
rw=read
filename=web.dat
numjobs=2
group_reporting
; -- end job file --
`},
}

func TestAgainstFio(t *testing.T) {
	fio := fioBinary(t)
	// fio spends most of its run asleep: every case's fio runs at once,
	// clyde's then one after another.
	type fioRun struct {
		v   view
		err error
	}
	runs := make([]chan fioRun, len(fioCases))
	slots := make(chan struct{}, 4) // a shared 2-core machine: a few at once
	// Every fio run ends before the test does (and its directory goes),
	// the runs of cases -run leaves out too: none is left behind.
	var started sync.WaitGroup
	defer started.Wait()
	for i, c := range fioCases {
		runs[i] = make(chan fioRun, 1)
		dir := t.TempDir()
		started.Add(1)
		go func() {
			defer started.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			text := c.text
			if c.perFile {
				text = withIOLogs(text)
			}
			v, err := runFio(fio, dir, text, c.logs)
			if c.fioMayHang && errors.Is(err, errFioHung) {
				// One more try: fio hangs on these now and then, not always.
				v, err = runFio(fio, dir, text, c.logs)
			}
			runs[i] <- fioRun{v, err}
		}()
	}
	for i, c := range fioCases {
		t.Run(c.name, func(t *testing.T) {
			run := <-runs[i]
			if strings.Contains(c.text, "direct=1") && !directWorks(t) {
				clydetest.Skip(t, "the temporary directory's filesystem does not take O_DIRECT")
			}
			if run.err != nil {
				if c.fioMayHang && errors.Is(run.err, errFioHung) {
					clydetest.Skip(t, "fio 3.33 hung on this case twice (its offload threads); nothing to compare with this time")
				}
				t.Fatal(run.err)
			}
			want := run.v
			got := runClyde(t, c.text, c.logs)
			if !c.files {
				want.files, got.files = nil, nil
			}
			if c.sizes != nil {
				// Sizes drawn per I/O: no two runs issue the same offsets.
				for _, d := range c.sizes.compare(want, got) {
					t.Error(d)
				}
				want.offsets, got.offsets = nil, nil
			}
			for _, d := range compareRuns(want, got, c.explained, c.timed, c.approx) {
				t.Errorf("%s (clyde's notes: %q)", d, got.notes)
			}
			for i := range want.jobs {
				if c.readsAll == 0 || i >= len(got.jobs) {
					break
				}
				if f, g := want.jobs[i].Read, got.jobs[i].Read; f.IOBytes != c.readsAll || g.IOBytes != c.readsAll || f.TotalIOs != g.TotalIOs {
					t.Errorf("entry %s reads: fio %+v, clyde %+v; want %d bytes each", want.jobs[i].Name, f, g, c.readsAll)
				}
			}
			if c.perFile && len(want.perFile) == 0 {
				t.Error("fio's iologs name no file: nothing compared per file")
			}
			if c.perFile && fmt.Sprint(want.perFile) != fmt.Sprint(got.perFile) {
				t.Errorf("per file (reads, read bytes, writes, written bytes): fio %v, clyde %v", want.perFile, got.perFile)
			}
			if c.order && fmt.Sprint(want.order) != fmt.Sprint(got.order) {
				t.Errorf("offsets in order: fio %v, clyde %v", want.order, got.order)
			}
			if c.depthDist > 0 {
				for _, d := range compareDepthDist(want, got, c.depthDist) {
					t.Error(d)
				}
			}
			if c.batchDist > 0 {
				for _, d := range compareBatchDist(want, got, c.batchDist) {
					t.Error(d)
				}
			}
			if c.shares > 0 {
				fioKept := true
				if c.weights != nil {
					for _, d := range offWeights(got, c.weights, c.shares) {
						t.Error("clyde: " + d)
					}
					if off := offWeights(want, c.weights, c.shares); len(off) > 0 {
						fioKept = false
						t.Logf("fio strayed from its own rule on this run (%s): clyde's shares are held to the weights alone", strings.Join(off, "; "))
					}
				}
				for _, d := range compareShares(want, got, c.shares) {
					if fioKept {
						t.Error(d)
					}
				}
			}
			if c.check != nil {
				t.Run("fio", func(t *testing.T) { c.check(t, want) })
				t.Run("clyde", func(t *testing.T) { c.check(t, got) })
			}
		})
	}
}
