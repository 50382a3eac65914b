// Package blockreport renders a clyde block result: fio-shaped JSON, a text
// report laid out like fio's normal output, CSV, and the preset tables shaped
// like CrystalDiskMark's, Iometer's and ORION's. Numbers in the result are
// raw; only this package formats them.
package blockreport

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/rankreport"
	"github.com/clydebench/clyde/result"
)

// Formats lists the accepted --output-format values; "normal" is fio's
// name for text, and ParseFormats takes a comma list of them as fio does.
var Formats = []string{"text", "normal", "json", "json+", "csv"}

// Write renders res in format (one of Formats).
func Write(w io.Writer, format string, res *result.Block) error {
	switch format {
	case "json":
		return JSON(w, res)
	case "json+":
		return JSONPlus(w, res)
	case "csv":
		return CSV(w, res)
	case "text", "normal":
		return Text(w, res)
	}
	return fmt.Errorf("unknown output format %q; accepted: %s", format, strings.Join(Formats, ", "))
}

// JSON writes the result as indented JSON; the jobs array is in fio's shape,
// and like fio's it leaves "<", ">" and "&" unescaped (">=64").
func JSON(w io.Writer, res *result.Block) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(res)
}

// Text writes a preset's table, or for plain jobs fio's normal layout.
func Text(w io.Writer, res *result.Block) error {
	ew := &errWriter{w: w}
	if res.Profile != nil {
		profileTable(ew, res)
	} else if res.Orion != nil {
		orionText(ew, res) // orion.go: each matrix's summary; the JSON has the jobs
	} else {
		for i := range res.Jobs {
			jobText(ew, &res.Jobs[i])
		}
	}
	sustainedText(ew, res)
	if res.Job != nil && ew.err == nil {
		ew.err = rankreport.Text(w, res.Job)
	}
	for _, n := range res.Notes {
		ew.printf("note: %s\n", n)
	}
	if res.Interrupted {
		ew.printf("interrupted: the figures cover what finished\n")
	}
	return ew.err
}

// sizeRange is one direction's block sizes in bytes: one size, or
// smallest-largest.
func sizeRange(d result.BlockSizeDir) string {
	if d.MinBytes == d.MaxBytes {
		return strconv.FormatInt(d.MinBytes, 10)
	}
	return strconv.FormatInt(d.MinBytes, 10) + "-" + strconv.FormatInt(d.MaxBytes, 10)
}

func jobText(ew *errWriter, j *result.BlockJob) {
	c := j.Config
	bs := strconv.FormatInt(c.BSBytes, 10)
	if s := c.BlockSizes; s != nil {
		// fio's head line for sizes per direction: (R) min-max, (W) ..., (T) ...
		bs = fmt.Sprintf("(R) %s, (W) %s, (T) %s", sizeRange(s.Read), sizeRange(s.Write), sizeRange(s.Trim))
	}
	ew.printf("%s: (bs=%s, rw=%s, ioengine=%s, iodepth=%d, numjobs=%d, direct=%d)\n",
		j.JobName, bs, c.RW, c.IOEngine, c.IODepth, c.NumJobs, b2i(c.Direct))
	for _, nd := range textDirs(j) {
		name, dir := nd.name, nd.dir
		ew.printf("  %s: IOPS=%s, BW=%s/s (%s/s)(%s/%dmsec)\n", name, count(dir.IOPS),
			humanize.IBytes(uint64(dir.BWBytes)), humanize.Bytes(uint64(dir.BWBytes)),
			humanize.IBytes(uint64(dir.IOBytes)), dir.Runtime)
		l := dir.Lat
		ps := dir.LatPercentiles()
		ew.printf("    lat (nsec): min=%d, max=%d, avg=%.2f, stdev=%.2f\n", l.Min, l.Max, l.Mean, l.Stddev)
		ew.printf("    lat percentiles (nsec):\n")
		for i, p := range ps {
			if i%4 == 0 {
				ew.printf("     |")
			}
			ew.printf(" %6.2fth=[%d]", p.P, p.Value)
			if i%4 == 3 || i == len(ps)-1 {
				ew.printf("\n")
			} else {
				ew.printf(",")
			}
		}
		if dir.IOPSSamples > 0 {
			ew.printf("    iops        : min=%d, max=%d, avg=%.2f, stdev=%.2f, samples=%d (500 ms)\n",
				dir.IOPSMin, dir.IOPSMax, dir.IOPSMean, dir.IOPSStddev, dir.IOPSSamples)
		}
		if dir.ShortIOs > 0 {
			ew.printf("    short I/Os  : %d\n", dir.ShortIOs)
		}
	}
	if j.CPUKnown {
		ew.printf("  cpu          : usr=%.2f%%, sys=%.2f%%%s\n", j.UsrCPU, j.SysCPU, cpuScopeText(j.CPUScope))
	}
	if j.Syncs > 0 {
		ew.printf("  fsync        : %d\n", j.Syncs)
	}
	ew.printf("  trend        : %s\n", trendText(j.Trend))
}

// namedDir is one direction of a job's text report.
type namedDir struct {
	name string
	dir  *result.BlockDir
}

// textDirs are the directions a job's text report shows, as fio's
// show_thread_status_normal: read, write and trim that did I/O, then with
// unified_rw_reporting the "mixed" sum of them, alone for mixed (fio's
// UNIFIED_MIXED) or after them for both.
func textDirs(j *result.BlockJob) []namedDir {
	var out []namedDir
	if !j.MixedOnly || j.Mixed == nil {
		for d, dir := range []*result.BlockDir{&j.Read, &j.Write, &j.Trim} {
			if dir.TotalIOs > 0 {
				out = append(out, namedDir{[3]string{"read", "write", "trim"}[d], dir})
			}
		}
	}
	if j.Mixed != nil && j.Mixed.TotalIOs > 0 {
		out = append(out, namedDir{"mixed", j.Mixed})
	}
	return out
}

// cpuScopeText says, after a job's CPU figures, when they are not the
// job's own but the whole process's (no per-thread CPU time on the
// platform). A result written before clyde measured threads has no scope
// and gets nothing: its figures were the process's too.
func cpuScopeText(scope string) string {
	if scope == result.CPUScopeProcess {
		return " (whole process, the same for every job of the group: no per-thread figure)"
	}
	return ""
}

// trendText is the summary line of the per-second series.
func trendText(t result.BlockTrend) string {
	if !t.Known {
		return fmt.Sprintf("n/a (%d whole second(s); needs 2)", t.Samples)
	}
	verb := "fell"
	pct := t.DropPct
	if pct < 0 {
		verb, pct = "rose", -pct
	}
	return fmt.Sprintf("last 10%% of the run %s %.1f%% vs the first 10%% (%s -> %s IOPS, %d samples)",
		verb, pct, count(t.FirstIOPS), count(t.LastIOPS), t.Samples)
}

// count prints a rate as fio does: 687k, 1234, 2.1M.
func count(v float64) string {
	switch {
	case v >= 10e6:
		return strconv.FormatFloat(v/1e6, 'f', 0, 64) + "M"
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	case v >= 10e3:
		return strconv.FormatFloat(v/1e3, 'f', 0, 64) + "k"
	case v >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// CSV writes one line per job and direction, or per preset row.
func CSV(w io.Writer, res *result.Block) error {
	switch {
	case res.Iometer != nil:
		return iometerCSV(w, res)
	case res.CDM != nil:
		return cdmCSV(w, res)
	}
	cw := csv.NewWriter(w)
	if res.Profile != nil {
		_ = cw.Write([]string{"profile", "label", "rw", "rwmixread", "bs_bytes", "iodepth", "numjobs", "load",
			"iops", "bw_bytes", "read_iops", "write_iops", "mean_lat_ns", "read_mean_lat_ns", "read_max_lat_ns",
			"write_mean_lat_ns", "write_max_lat_ns", "p99_lat_ns"})
		for _, r := range res.Profile.Rows {
			_ = cw.Write([]string{res.Profile.Name, r.Label, r.RW, itoa(r.RWMixRead), i64(r.BSBytes), itoa(r.IODepth),
				itoa(r.NumJobs), itoa(r.Load), ftoa(r.IOPS), i64(r.BWBytes), ftoa(r.ReadIOPS), ftoa(r.WriteIOPS),
				ftoa(r.MeanLatNs), ftoa(r.ReadMeanNs), i64(r.ReadMaxNs), ftoa(r.WriteMeanNs), i64(r.WriteMaxNs), i64(r.P99LatNs)})
		}
		cw.Flush()
		return cw.Error()
	}
	header := []string{"jobname", "rw", "bs_bytes", "ioengine", "iodepth", "numjobs", "direction", "total_ios",
		"io_bytes", "iops", "bw_bytes", "runtime_ms", "lat_min_ns", "lat_mean_ns", "lat_stddev_ns", "lat_max_ns"}
	var ps []result.Percentile
	for i := range res.Jobs {
		if l := res.Jobs[i].Read.LatPercentiles(); len(l) > 0 {
			ps = l
			break
		}
		if l := res.Jobs[i].Write.LatPercentiles(); len(l) > 0 {
			ps = l
			break
		}
	}
	for _, p := range ps {
		header = append(header, "lat_p"+strconv.FormatFloat(p.P, 'f', -1, 64)+"_ns")
	}
	header = append(header, "usr_cpu", "sys_cpu", "trend_drop_pct")
	_ = cw.Write(header)
	for i := range res.Jobs {
		j := &res.Jobs[i]
		for d, dir := range []*result.BlockDir{&j.Read, &j.Write, &j.Trim} {
			if dir.TotalIOs == 0 {
				continue
			}
			c := j.Config
			row := []string{j.JobName, c.RW, i64(c.BSBytes), c.IOEngine, itoa(c.IODepth), itoa(c.NumJobs),
				[3]string{"read", "write", "trim"}[d], i64(dir.TotalIOs), i64(dir.IOBytes), ftoa(dir.IOPS), i64(dir.BWBytes),
				i64(dir.Runtime), i64(dir.Lat.Min), ftoa(dir.Lat.Mean), ftoa(dir.Lat.Stddev), i64(dir.Lat.Max)}
			lat := dir.LatPercentiles()
			for _, p := range ps {
				v, _ := lat.At(p.P)
				row = append(row, i64(v))
			}
			trend := ""
			if j.Trend.Known {
				trend = ftoa(j.Trend.DropPct)
			}
			row = append(row, ftoa(j.UsrCPU), ftoa(j.SysCPU), trend)
			_ = cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

func itoa(v int) string     { return strconv.Itoa(v) }
func i64(v int64) string    { return strconv.FormatInt(v, 10) }
func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// errWriter keeps the first write error so the layout code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err != nil {
		return
	}
	_, e.err = fmt.Fprintf(e.w, format, args...)
}
