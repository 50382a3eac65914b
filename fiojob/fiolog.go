package fiojob

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// fio's log files: what a LogSpec asks for, their names, and the writers of
// the per-I/O bw, iops and latency logs (here) and the histogram log
// (fiohist.go). They reach into a run through blockbench's record hook
// (blockbench.RecordSpec): a LogSpec is a workload's Log.

// LogSpec is fio's write_bw_log, write_iops_log, write_lat_log,
// log_avg_msec and log_offset for one workload: which of fio's log files
// each of its workers writes, and how. It is a Workload's (or Job's) Log,
// its blockbench.RecordSpec; the zero spec writes nothing and attaches no
// recorder to a worker.
type LogSpec struct {
	// BW, IOPS and Lat are the prefixes of the bw, iops and latency (slat,
	// clat, lat) logs; "" writes none. fio's default prefix, for the option
	// given without a value, is the job's name.
	BW, IOPS, Lat string
	// AvgMsec is log_avg_msec: 0 writes one line per I/O, N one line per
	// direction per N ms window with the window's rate or mean latency.
	AvgMsec int
	// Offset adds each I/O's offset to its lines (log_offset).
	Offset bool
	// Hist is the prefix of fio's completion-latency histogram log
	// (write_hist_log: PREFIX_clat_hist.N.log, fiologparser_hist.py's
	// input), one line per direction per HistMsec ms (log_hist_msec) with
	// the I/Os of the window in fio's 1856 buckets, summed 2^HistCoarseness
	// at a time (log_hist_coarseness).
	Hist           string
	HistMsec       int
	HistCoarseness int
	// Shared is per_job_logs=0: the logs are named PREFIX_bw.log, without
	// the worker's number (init.c gen_log_name). fio appends the logs of
	// every worker of one prefix to that one file; clyde takes a prefix
	// only one worker writes (Compile refuses the rest).
	Shared bool
}

// Any says whether the spec asks for a log.
func (l LogSpec) Any() bool { return l.perIO() || l.Hist != "" }

// perIO says whether the spec asks for a bw, iops or latency log.
func (l LogSpec) perIO() bool { return l.BW != "" || l.IOPS != "" || l.Lat != "" }

// Writes says whether the spec writes a file (blockbench.RecordSpec).
func (l LogSpec) Writes() bool { return l.Any() }

// Validate refuses what fio would not write (blockbench.RecordSpec).
func (l LogSpec) Validate() error {
	switch {
	case l.AvgMsec < 0:
		return result.Usagef("--log_avg_msec", "%d is negative; give a window in ms, or 0 for one line per I/O", l.AvgMsec)
	case l.AvgMsec > 0 && !l.perIO():
		return result.Usagef("--log_avg_msec", "averages the logs, but none was asked for; add --write_bw_log, --write_iops_log or --write_lat_log")
	case l.HistMsec < 0:
		return result.Usagef("--log_hist_msec", "%d is negative; give the histogram log's window in ms", l.HistMsec)
	case l.Hist != "" && l.HistMsec == 0:
		return result.Usagef("--write_hist_log", "needs log_hist_msec, the window of each line: without it fio writes the log empty")
	case l.HistMsec > 0 && l.Hist == "":
		return result.Usagef("--log_hist_msec", "is the window of the histogram log, but none was asked for; add write_hist_log")
	case l.HistCoarseness < 0 || l.HistCoarseness > 6:
		return result.Usagef("--log_hist_coarseness", "%d is outside fio's 0..6", l.HistCoarseness)
	}
	for _, p := range []struct{ flag, prefix string }{{"--write_bw_log", l.BW}, {"--write_iops_log", l.IOPS}, {"--write_lat_log", l.Lat}, {"--write_hist_log", l.Hist}} {
		if strings.ContainsRune(p.prefix, 0) || strings.HasSuffix(p.prefix, "/") {
			return result.Usagef(p.flag, "%q is not a file name prefix", p.prefix)
		}
	}
	return nil
}

// Options echoes the log options in fio's syntax (blockbench.RecordSpec).
func (l LogSpec) Options(set func(k, v string)) {
	for _, o := range []struct{ key, prefix string }{{"write_bw_log", l.BW}, {"write_iops_log", l.IOPS}, {"write_lat_log", l.Lat}} {
		if o.prefix != "" {
			set(o.key, o.prefix)
		}
	}
	if l.perIO() {
		set("log_avg_msec", strconv.Itoa(l.AvgMsec))
	}
	if l.Hist != "" {
		set("write_hist_log", l.Hist)
		set("log_hist_msec", strconv.Itoa(l.HistMsec))
		if l.HistCoarseness > 0 {
			set("log_hist_coarseness", strconv.Itoa(l.HistCoarseness))
		}
	}
	if l.Offset {
		set("log_offset", "1")
	}
	if l.Shared && l.Any() {
		set("per_job_logs", "0")
	}
}

// logKind is one of fio's log files.
type logKind int

const (
	logBW logKind = iota
	logIOPS
	logSlat
	logClat
	logLat
	logClatHist
)

var logSuffix = [...]string{"bw", "iops", "slat", "clat", "lat", "clat_hist"}

// kinds are the files the spec writes per worker, in fio's order.
func (l LogSpec) kinds() []struct {
	kind   logKind
	prefix string
} {
	var out []struct {
		kind   logKind
		prefix string
	}
	add := func(k logKind, p string) {
		out = append(out, struct {
			kind   logKind
			prefix string
		}{k, p})
	}
	if l.BW != "" {
		add(logBW, l.BW)
	}
	if l.IOPS != "" {
		add(logIOPS, l.IOPS)
	}
	if l.Lat != "" {
		add(logSlat, l.Lat)
		add(logClat, l.Lat)
		add(logLat, l.Lat)
	}
	if l.Hist != "" {
		add(logClatHist, l.Hist)
	}
	return out
}

// logName is fio's name for a worker's log: PREFIX_bw.N.log, N the
// worker's number in the whole run, from 1.
func logName(prefix string, k logKind, n int, shared bool) string {
	if shared {
		return prefix + "_" + logSuffix[k] + ".log"
	}
	return prefix + "_" + logSuffix[k] + "." + strconv.Itoa(n) + ".log"
}

// logFlag is the option that asks for each kind of log.
var logFlag = [...]string{"--write_bw_log", "--write_iops_log", "--write_lat_log", "--write_lat_log", "--write_lat_log", "--write_hist_log"}

// LogFlag is the flag that asked for a log LogNames listed, for a refusal
// of its path to name: --write_bw_log for PREFIX_bw.N.log, and so on; the
// kind is read from the end of the name, so a prefix may hold anything.
func LogFlag(name string) string {
	stem := strings.TrimSuffix(name, ".log")
	if i := strings.LastIndexByte(stem, '.'); i >= 0 {
		stem = stem[:i]
	}
	best, flag := 0, "--write_lat_log"
	for k, s := range logSuffix {
		if strings.HasSuffix(stem, "_"+s) && len(s) > best {
			best, flag = len(s), logFlag[k]
		}
	}
	return flag
}

// LogNames lists every log file p's workloads ask for, in the order they
// are written: per workload and worker (numbered through the whole plan
// from 1, as fio numbers its jobs), bw, iops, then slat, clat and lat. A
// caller checks these output paths before RunPlan.
func LogNames(p blockbench.Plan) []string {
	var out []string
	n := 0
	for _, g := range p.Groups {
		for _, w := range g {
			if l, ok := w.Log.(LogSpec); ok {
				for i := range max(w.NumJobs, 0) {
					for _, k := range l.kinds() {
						out = append(out, logName(k.prefix, k.kind, n+i+1, l.Shared))
					}
				}
			}
			n += max(w.NumJobs, 0)
		}
	}
	return out
}

// checkSharedLogs refuses a plan in which two workers would write one log
// file: fio's per_job_logs=0 appends the logs of every worker of a prefix
// to one file, which clyde does not.
func checkSharedLogs(p blockbench.Plan, pos string) error {
	seen := map[string]bool{}
	for _, name := range LogNames(p) {
		if seen[name] {
			return result.Usagef(pos, "per_job_logs=0: several workers would write %s (fio appends each worker's log to it); clyde writes one log per worker: give each job its own log prefix, or per_job_logs=1", name)
		}
		seen[name] = true
	}
	return nil
}

// JobLogNames lists the log files the job will write (see LogNames); nil
// when it writes none.
func JobLogNames(j *blockbench.Job) []string {
	if l, ok := j.Log.(LogSpec); !ok || !l.Any() {
		return nil
	}
	return LogNames(j.Plan())
}

// Per-I/O logs keep their samples in chunks a pool goroutine allocates
// ahead of the workers, so the I/O loop never allocates; a group's logs
// hold at most maxLogBytes, and a worker whose next chunk would pass it
// stops logging (a note says so), as fio stops a log it has no memory for.
const (
	logChunkLen = 1 << 15
	maxLogBytes = 512 << 20
)

// ioSample is one I/O of a per-I/O log.
type ioSample struct {
	prepNs, submitNs, doneNs, off int64
	n                             int32
	dir                           int8
}

type logChunk [logChunkLen]ioSample

// logWindow is one direction of one log_avg_msec window.
type logWindow struct {
	atNs      int64
	dir       int8
	bw, iops  int64
	lat       [3]int64 // slat, clat, lat means
	hasSlat   bool
	latFilled bool
}

// workerLog is one worker's logs while it runs: its
// blockbench.IORecorder.
type workerLog struct {
	spec LogSpec
	// dirs is fio's direction of each slot of an I/O's Dir: a trim job's
	// write slot is fio's trim, 2 (RecordedWorkload.FioDirs).
	dirs    [2]int8
	number  int    // fio's job number of the worker
	index   uint64 // the worker as notes name it
	startNs int64
	split   bool
	// perIOLines is true when every I/O is a line of the per-I/O logs.
	perIOLines bool

	// Averaged logs: the window being filled and the counters at its start.
	avgNs      int64
	nextWindow int64
	lastAt     int64
	lastIOs    [2]int64
	lastBytes  [2]int64
	lastSums   [2][3]float64
	windows    []logWindow

	// hist is the clat histogram log; nil without write_hist_log.
	hist *histLog

	// Per-I/O logs.
	cur       *logChunk
	used      int
	chunks    []*logChunk
	spare     <-chan *logChunk
	truncated bool
}

func newWorkerLog(spec LogSpec, w blockbench.RecordedWorker, number int, runtime time.Duration, pool *logPool) *workerLog {
	l := &workerLog{spec: spec, number: number, index: w.Index, split: w.Split, nextWindow: math.MaxInt64, dirs: [2]int8{0, 1}}
	if l.spec.Hist != "" {
		l.hist = newHistLog(l.spec.HistMsec)
	}
	if !l.spec.perIO() {
		// Only the histogram log.
	} else if l.spec.AvgMsec > 0 {
		l.avgNs = int64(l.spec.AvgMsec) * int64(time.Millisecond)
		n := 16
		if runtime > 0 {
			n = int(int64(runtime)/l.avgNs)*2 + 8
		}
		l.windows = make([]logWindow, 0, n)
	} else {
		l.spare = pool.spare
		l.chunks = make([]*logChunk, 0, maxLogBytes/(logChunkLen*sizeofSample)+2)
		l.perIOLines = true
	}
	return l
}

// perIO says whether the recorder sees every I/O: for the per-I/O lines
// or the histogram log.
func (l *workerLog) perIO() bool { return l.perIOLines || l.hist != nil }

const sizeofSample = 40 // bytes of an ioSample, for the budget

// Start begins the logs at the end of the ramp.
func (l *workerLog) Start(now int64) int64 {
	l.startNs, l.lastAt = now, now
	l.lastIOs, l.lastBytes, l.lastSums = [2]int64{}, [2]int64{}, [2][3]float64{}
	l.windows = l.windows[:0] // observe keeps nothing before this
	if l.hist != nil {
		l.hist.reset()
	}
	if l.avgNs > 0 {
		l.nextWindow = now + l.avgNs
	}
	return l.nextWindow
}

// IO keeps one I/O of the per-I/O logs and counts it in the histogram
// log; it does not allocate.
func (l *workerLog) IO(r blockbench.IORecord) {
	if l.perIOLines {
		l.add(ioSample{prepNs: r.PrepNs, submitNs: r.SubmitNs, doneNs: r.DoneNs, off: r.Offset, n: int32(r.Bytes), dir: int8(r.Dir)})
	}
	if l.hist != nil {
		l.hist.add(r.Dir, r.Bytes, r.DoneNs-r.SubmitNs, r.DoneNs-l.startNs)
	}
}

// add keeps one I/O; it does not allocate.
func (l *workerLog) add(s ioSample) {
	if l.cur == nil || l.used == logChunkLen {
		if !l.next() {
			return
		}
	}
	l.cur[l.used] = s
	l.used++
}

// next takes a fresh chunk from the pool; false when the budget is spent.
func (l *workerLog) next() bool {
	if l.truncated {
		return false
	}
	if l.cur != nil {
		l.chunks = append(l.chunks, l.cur) // within the capacity made for the budget
	}
	c, ok := <-l.spare
	if !ok {
		l.cur, l.truncated = nil, true
		return false
	}
	l.cur, l.used = c, 0
	return true
}

// Window closes the averaged window that ends at now (a tick) and the ones
// it skipped.
func (l *workerLog) Window(now int64, t blockbench.IOTotals) int64 {
	l.closeWindow(t, now)
	for l.nextWindow <= now {
		l.nextWindow += l.avgNs
	}
	return l.nextWindow
}

// closeWindow adds one line per direction that moved data since lastAt, as
// fio writes a window only when it had samples.
func (l *workerLog) closeWindow(t blockbench.IOTotals, now int64) {
	spentMs := (now - l.lastAt) / int64(time.Millisecond)
	for d := range 2 {
		ios := t.IOs[d] - l.lastIOs[d]
		bytes := t.Bytes[d] - l.lastBytes[d]
		sums := [3]float64{t.SlatSumNs[d], t.ClatSumNs[d], t.LatSumNs[d]}
		if ios > 0 && spentMs > 0 {
			win := logWindow{atNs: now - l.startNs, dir: int8(d), bw: bytes * 1000 / spentMs / 1024, iops: ios * 1000 / spentMs,
				hasSlat: l.split, latFilled: true}
			for k := range 3 {
				win.lat[k] = int64((sums[k]-l.lastSums[d][k])/float64(ios) + 0.5)
			}
			// Within the capacity a runtime sized; a job without one (a
			// pass over its region) grows it, once per window at most.
			l.windows = append(l.windows, win)
		}
		l.lastIOs[d], l.lastBytes[d], l.lastSums[d] = t.IOs[d], t.Bytes[d], sums
	}
	l.lastAt = now
}

// Finish closes a last window of at least half the length, as the series
// keeps a last second of at least half a second.
func (l *workerLog) Finish(endNs int64, t blockbench.IOTotals) {
	if l.avgNs > 0 && endNs-l.lastAt >= l.avgNs/2 {
		l.closeWindow(t, endNs)
	}
	if l.cur != nil {
		l.chunks = append(l.chunks, l.cur)
		l.cur = nil
	}
}

// samples is how many lines the worker's per-I/O logs hold.
func (l *workerLog) samples() int {
	n := 0
	for i, c := range l.chunks {
		if i == len(l.chunks)-1 {
			n += l.used
		} else {
			n += len(c)
		}
	}
	return n
}

// write writes one of the worker's logs in fio's format: "time, value,
// direction, bs, prio", with the offset before prio when log_offset is on;
// time in ms from the end of the ramp, direction 0 read, 1 write, 2 trim.
func (l *workerLog) write(out io.Writer, k logKind) error {
	bw := bufio.NewWriterSize(out, 256<<10)
	if k == logClatHist {
		if err := l.hist.write(bw, l.spec.HistCoarseness, l.dirs); err != nil {
			return err
		}
		return bw.Flush()
	}
	var line []byte
	emit := func(atNs int64, value int64, dir int8, bs int64, off int64) error {
		line = strconv.AppendInt(line[:0], atNs/int64(time.Millisecond), 10)
		line = append(line, ", "...)
		line = strconv.AppendInt(line, value, 10)
		line = append(line, ", "...)
		line = strconv.AppendInt(line, int64(l.dirs[dir]), 10)
		line = append(line, ", "...)
		line = strconv.AppendInt(line, bs, 10)
		if l.spec.Offset {
			line = append(line, ", "...)
			line = strconv.AppendInt(line, off, 10)
		}
		line = append(line, ", 0\n"...)
		_, err := bw.Write(line)
		return err
	}
	if l.avgNs > 0 {
		for _, win := range l.windows {
			v := win.bw
			switch k {
			case logIOPS:
				v = win.iops
			case logSlat, logClat, logLat:
				if k == logSlat && !win.hasSlat {
					continue
				}
				v = win.lat[k-logSlat]
			}
			// fio's averaged lines carry no block size or offset.
			if err := emit(win.atNs, v, win.dir, 0, 0); err != nil {
				return err
			}
		}
		return bw.Flush()
	}
	if k == logSlat && !l.split {
		return bw.Flush() // no submission stage: fio writes the slat log empty
	}
	for i, c := range l.chunks {
		n := len(c)
		if i == len(l.chunks)-1 {
			n = l.used
		}
		for _, s := range c[:n] {
			at, v := s.doneNs, int64(0)
			switch k {
			case logBW:
				// fio's per-I/O bandwidth: bytes * 10^6 / clat in ns.
				if clat := s.doneNs - s.submitNs; clat > 0 {
					v = int64(s.n) * 1_000_000 / clat
				}
			case logIOPS:
				v = 1
			case logSlat:
				at, v = s.submitNs, s.submitNs-s.prepNs
			case logClat:
				v = s.doneNs - s.submitNs
			case logLat:
				v = s.doneNs - s.prepNs
			}
			if err := emit(at-l.startNs, v, s.dir, int64(s.n), s.off); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// logPool hands out per-I/O log chunks, allocated off the I/O loop.
type logPool struct {
	spare chan *logChunk
	quit  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// startLogPool starts the chunk allocator for workers per-I/O loggers; nil
// when none logs per I/O.
func startLogPool(workers int) *logPool {
	if workers == 0 {
		return nil
	}
	p := &logPool{spare: make(chan *logChunk, workers+1), quit: make(chan struct{}), done: make(chan struct{})}
	budget := maxLogBytes / (logChunkLen * sizeofSample)
	go func() {
		defer close(p.done)
		defer close(p.spare)
		for range budget {
			c := new(logChunk)
			select {
			case p.spare <- c:
			case <-p.quit:
				return
			}
		}
	}()
	return p
}

// stop ends the allocator once the workers are done; stopping twice is
// stopping once.
func (p *logPool) stop() {
	if p == nil {
		return
	}
	p.once.Do(func() { close(p.quit) })
	<-p.done
}

// logGroup is one group's logs: its blockbench.GroupRecorder.
type logGroup struct {
	ws    []blockbench.RecordedWorkload
	specs []LogSpec
	pool  *logPool
	// logs are each workload's workers' logs, in the order they were made.
	logs [][]*workerLog
}

// StartGroup begins the logs of one group (blockbench.RecordSpec): the
// per-I/O loggers of the group share one chunk pool and its budget.
func (l LogSpec) StartGroup(ws []blockbench.RecordedWorkload) (blockbench.GroupRecorder, error) {
	g := &logGroup{ws: ws, specs: make([]LogSpec, len(ws)), logs: make([][]*workerLog, len(ws))}
	perIO := 0
	for i, w := range ws {
		s, ok := w.Spec.(LogSpec)
		if !ok {
			return nil, fmt.Errorf("job %s: its record (%T) is not fio's logs, which the group's first job records; a group records one kind", w.Name, w.Spec)
		}
		g.specs[i] = s
		if s.perIO() && s.AvgMsec == 0 {
			perIO += w.NumJobs
		}
	}
	g.pool = startLogPool(perIO)
	return g, nil
}

// Worker makes one worker's logs (blockbench.GroupRecorder); none when its
// spec asks for none.
func (g *logGroup) Worker(w blockbench.RecordedWorker) (blockbench.IORecorder, bool) {
	spec := g.specs[w.Set]
	if !spec.Any() {
		return nil, false
	}
	l := newWorkerLog(spec, w, g.ws[w.Set].FirstWorker+w.I, g.ws[w.Set].Runtime, g.pool)
	if d := g.ws[w.Set].FioDirs; d != [2]int{} {
		l.dirs = [2]int8{int8(d[0]), int8(d[1])}
	}
	g.logs[w.Set] = append(g.logs[w.Set], l)
	return l, l.perIO()
}

// Close stops the chunk allocator (blockbench.GroupRecorder).
func (g *logGroup) Close() { g.pool.stop() }

// Write writes every log the group's workers kept through write (the
// plan's WriteLog), and says per workload which logs were cut short.
func (g *logGroup) Write(write func(name string, fill func(io.Writer) error) error) (notes [][]string, err error) {
	var errs []error
	notes = make([][]string, len(g.ws))
	for set, wl := range g.ws {
		for _, l := range g.logs[set] {
			if l.hist != nil && l.hist.truncated {
				notes[set] = append(notes[set], fmt.Sprintf("job %s worker %d: the histogram log stops after %d lines, the most clyde keeps per worker; give a longer log_hist_msec",
					wl.Name, l.index, maxHistLines))
			}
			if l.truncated {
				notes[set] = append(notes[set], fmt.Sprintf("job %s worker %d: the per-I/O logs stop after %d I/Os, the %d MiB clyde keeps for a group's logs; give --log_avg_msec for logs of the whole run",
					wl.Name, l.index, l.samples(), maxLogBytes>>20))
			}
			for _, k := range g.specs[set].kinds() {
				name := logName(k.prefix, k.kind, l.number, g.specs[set].Shared)
				if write == nil {
					errs = append(errs, fmt.Errorf("log %s: no writer for logs", name))
					continue
				}
				if err := write(name, func(out io.Writer) error { return l.write(out, k.kind) }); err != nil {
					errs = append(errs, fmt.Errorf("log %s: %w", name, err))
				}
			}
		}
	}
	return notes, errors.Join(errs...)
}
