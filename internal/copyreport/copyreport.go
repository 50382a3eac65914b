// Package copyreport renders a clyde copy result: a text report in the
// write-ups' shape (one row per target and method, one column per set, MB/s
// of 10^6 bytes), CSV, and JSON. Numbers in the result are raw; only this
// package formats them.
package copyreport

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/internal/rankreport"
	"github.com/clydebench/clyde/result"
)

// Formats lists the accepted formats.
var Formats = []string{"text", "csv", "json"}

// Write renders res in format (one of Formats).
func Write(w io.Writer, format string, res *result.Copy) error {
	switch format {
	case "json":
		return result.EncodeJSON(w, res)
	case "csv":
		return CSV(w, res)
	case "text":
		return Text(w, res)
	}
	return fmt.Errorf("unknown format %q; accepted: %s", format, strings.Join(Formats, ", "))
}

// Target names where a run copied: -d, or "-d -> --to".
func Target(c result.CopyConfig) string {
	if c.To == "" {
		return c.Dir
	}
	return c.Dir + " -> " + c.To
}

// SetColumn is a set's column title, as the write-ups print it.
func SetColumn(set string) string { return "Copy " + set }

// Text writes the report: a heading that says what was measured, the MB/s
// table, files/s, per-file latency, clones apart, and what was not run.
func Text(w io.Writer, res *result.Copy) error {
	var b strings.Builder
	heading(&b, res)
	copies, clones := rowsOf(res)
	if len(copies) > 0 {
		b.WriteByte('\n')
		table(&b, res, "MB/s (10^6 bytes/s)", copies, func(f *result.CopyFigure) string {
			return fmt.Sprintf("%.3f", f.MBPerSec) + warmMark(f)
		})
		b.WriteByte('\n')
		table(&b, res, "files/s", copies, func(f *result.CopyFigure) string {
			return fmt.Sprintf("%.1f", f.FilesPerSec) + warmMark(f)
		})
		b.WriteByte('\n')
		latencyTable(&b, res, copies)
	}
	if len(clones) > 0 {
		b.WriteString("\nno data copied: each copy shares the source's extents (a clone), so these are times, not copy rates\n")
		table(&b, res, "time per set", clones, func(f *result.CopyFigure) string { return FormatDuration(f.ElapsedNs) })
	}
	footer(&b, res)
	if res.Job != nil {
		if err := rankreport.Text(&b, res.Job); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func heading(b *strings.Builder, res *result.Copy) {
	c := res.Config
	fmt.Fprintf(b, "clyde copy %s\n", describeSide(res.Provenance.Filesystem, c.Dir))
	if n := res.Provenance.Filesystem.Note; n != "" {
		fmt.Fprintf(b, "        (%s)\n", n)
	}
	if res.ToFilesystem != nil || c.To != "" {
		fs := result.Filesystem{}
		if res.ToFilesystem != nil {
			fs = *res.ToFilesystem
		}
		fmt.Fprintf(b, "        to %s\n", describeSide(fs, c.To))
		if fs.Note != "" {
			fmt.Fprintf(b, "        (%s)\n", fs.Note)
		}
	} else {
		b.WriteString("        copies beside the sources, in the same directory\n")
	}
	var parts []string
	switch c.Sync {
	case "file":
		parts = append(parts, "each copy fsynced before it counts")
	case "fs":
		parts = append(parts, "one syncfs of the destination ends each set (--syncfs)")
	case "none":
		parts = append(parts, "no fsync: copies count once in the page cache (--no-fsync)")
	}
	if c.Method == "readwrite" || c.Method == "all" {
		parts = append(parts, "readwrite buffer "+sizeText(c.BlockBytes))
	}
	parts = append(parts, c.Buffer+" data, seed "+strconv.FormatUint(c.Seed, 10))
	if c.Dirs > 1 {
		parts = append(parts, fmt.Sprintf("files spread over %d directories", c.Dirs))
	}
	fmt.Fprintf(b, "        %s\n", strings.Join(parts, "; "))
}

// describeSide is "ext4 at /mnt/ssd (/dev/sdb, Samsung SSD 870)".
func describeSide(fs result.Filesystem, dir string) string {
	s := dir
	if fs.Type != "" {
		s = fs.Type + " at " + dir
	}
	var dev []string
	if fs.Source != "" {
		dev = append(dev, fs.Source)
	}
	if fs.DeviceModel != "" {
		dev = append(dev, fs.DeviceModel)
	}
	if len(dev) > 0 {
		s += " (" + strings.Join(dev, ", ") + ")"
	}
	return s
}

// rowsOf splits the methods into those with real copies and those whose
// copies share extents; a method can be in both (copy_file_range cloned
// one set but copied another).
func rowsOf(res *result.Copy) (copies, clones []string) {
	for _, m := range methodsOf(res) {
		var c, k bool
		for _, f := range res.Results {
			if f.Method != m {
				continue
			}
			if f.NotDataCopy && f.Ran {
				k = true
			} else {
				c = true
			}
		}
		if c {
			copies = append(copies, m)
		}
		if k {
			clones = append(clones, m)
		}
	}
	return copies, clones
}

// methodsOf lists the methods with results, in the order they ran.
func methodsOf(res *result.Copy) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range res.Results {
		if !seen[f.Method] {
			seen[f.Method] = true
			out = append(out, f.Method)
		}
	}
	return out
}

// table writes one row per method, one column per set; cell renders a
// figure that ran as a real copy (or, for the clone table, as a clone).
// The labels are padded to one width by hand, so only the figures are
// right-aligned.
func table(b *strings.Builder, res *result.Copy, title string, methods []string, cell func(*result.CopyFigure) string) {
	clones := strings.HasPrefix(title, "time")
	target := Target(res.Config)
	mw := 0
	for _, m := range methods {
		mw = max(mw, len(m))
	}
	width := max(len(title), len(target)+2+mw)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\t", width, title)
	for _, s := range res.Config.Sets {
		fmt.Fprintf(tw, "%s\t", SetColumn(s.Name))
	}
	fmt.Fprintln(tw)
	for _, m := range methods {
		fmt.Fprintf(tw, "%-*s\t", width, target+"  "+m)
		for _, s := range res.Config.Sets {
			f := res.Figure(s.Name, m)
			switch {
			case f == nil:
				fmt.Fprint(tw, "-\t")
			case f.Interrupted:
				fmt.Fprint(tw, "interrupted\t")
			case !f.Ran:
				fmt.Fprint(tw, "-\t")
			case f.NotDataCopy != clones:
				fmt.Fprint(tw, ifElse(clones, "copied\t", "cloned\t"))
			default:
				fmt.Fprintf(tw, "%s\t", cell(f))
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func ifElse(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

// warmMark flags a figure whose sources were not found cold.
func warmMark(f *result.CopyFigure) string {
	if f.SourcesCold() {
		return ""
	}
	return "*"
}

func latencyTable(b *strings.Builder, res *result.Copy, methods []string) {
	const title = "per-file latency"
	mw, sw := 0, 0
	for _, m := range methods {
		mw = max(mw, len(m))
	}
	for _, s := range res.Config.Sets {
		sw = max(sw, len(SetColumn(s.Name)))
	}
	width := max(len(title), mw+2+sw)
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tp50\tp90\tp99\tmax\t\n", width, title)
	for _, m := range methods {
		for _, s := range res.Config.Sets {
			f := res.Figure(s.Name, m)
			if f == nil || !f.Ran || f.NotDataCopy {
				continue
			}
			l := f.Latency
			fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t%s\t\n", width, fmt.Sprintf("%-*s  %s", mw, m, SetColumn(s.Name)),
				FormatDuration(l.P50Ns), FormatDuration(l.P90Ns), FormatDuration(l.P99Ns), FormatDuration(l.MaxNs))
		}
	}
	tw.Flush()
}

func footer(b *strings.Builder, res *result.Copy) {
	var lines []string
	for _, m := range res.Methods {
		if !m.Available {
			lines = append(lines, fmt.Sprintf("%s not available: %s", m.Method, m.Reason))
		}
	}
	var warm []string
	for _, s := range res.Config.Sets {
		var methods []string
		cache := ""
		for _, f := range res.Results {
			if f.Set == s.Name && f.Ran && !f.SourcesCold() {
				methods = append(methods, f.Method)
				if cache == "" {
					cache = cacheText(&f)
				}
			}
		}
		if len(methods) > 0 {
			warm = append(warm, fmt.Sprintf("%s %s (%s)", s.Name, cache, strings.Join(methods, ", ")))
		}
	}
	if len(warm) > 0 {
		lines = append(lines, "* sources still in the page cache when copied: "+strings.Join(warm, "; "))
	} else if anyRan(res) {
		lines = append(lines, "sources written back, evicted and found cold (mincore) before every copy"+deviceText(res))
	}
	switch n, all := verified(res); {
	case all && n > 0 && res.Interrupted:
		lines = append(lines, "every copy that finished verified: its xxhash64 matches its source's")
	case all && n > 0:
		lines = append(lines, "every copy verified: its xxhash64 matches its source's")
	}
	lines = append(lines, res.Notes...)
	if res.Interrupted {
		lines = append(lines, "interrupted: the figures above are what finished")
	}
	if len(lines) > 0 {
		b.WriteByte('\n')
	}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
}

// deviceText mentions the device beneath a FUSE filesystem, whose cache
// was dropped too.
func deviceText(res *result.Copy) string {
	for _, f := range res.Results {
		if f.DeviceCache != nil {
			return ", with the page cache of " + res.Provenance.Filesystem.Source + " beneath the FUSE filesystem"
		}
	}
	return ""
}

func anyRan(res *result.Copy) bool {
	for _, f := range res.Results {
		if f.Ran {
			return true
		}
	}
	return false
}

func verified(res *result.Copy) (n int, all bool) {
	all = true
	for _, f := range res.Results {
		if f.Ran {
			n++
			all = all && f.Verified
		}
	}
	return n, all
}

// cacheText says why a figure's sources were not cold.
func cacheText(f *result.CopyFigure) string {
	if !pagecache.FileCold(f.SourceCache) {
		return cacheStateText(f.SourceCache)
	}
	if f.DeviceCache != nil && !f.DeviceCache.Cold {
		return "the device beneath: " + cacheStateText(*f.DeviceCache)
	}
	for _, l := range f.SourceCache.Stack {
		if !l.Cold {
			return pagecache.ExplainLevel(l)
		}
	}
	return cacheStateText(f.SourceCache)
}

func cacheStateText(c result.CacheState) string {
	switch {
	case c.Error != "":
		return c.Error
	case c.ResidentBytes < 0:
		return "residency unknown"
	}
	return humanize.IBytes(uint64(c.ResidentBytes)) + " of " + humanize.IBytes(uint64(c.FileBytes)) + " resident"
}

// sizeText is a buffer size in the largest binary unit that divides it.
func sizeText(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}

// FormatDuration is a duration with three significant figures or so.
func FormatDuration(ns int64) string {
	switch {
	case ns <= 0:
		return "-"
	case ns < 1_000_000:
		return fmt.Sprintf("%.0fus", float64(ns)/1e3)
	case ns < 10_000_000:
		return fmt.Sprintf("%.2fms", float64(ns)/1e6)
	case ns < 1_000_000_000:
		return fmt.Sprintf("%.1fms", float64(ns)/1e6)
	}
	return fmt.Sprintf("%.2fs", float64(ns)/1e9)
}

// CSVHeader is the first line of CSV.
var CSVHeader = []string{"target", "method", "set", "file_bytes", "files", "bytes", "elapsed_ns", "mb_per_sec",
	"files_per_sec", "lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_max_ns", "cpu_percent", "sources_cold",
	"verified", "not_data_copy", "status"}

// CSV writes a header and one line per set and method, the methods that
// could not run included with their reason as the status. Clones have their
// time but no rates: they copy no data.
func CSV(w io.Writer, res *result.Copy) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(CSVHeader)
	target := Target(res.Config)
	for _, s := range res.Config.Sets {
		for _, m := range res.Methods {
			f := res.Figure(s.Name, m.Method)
			row := []string{target, m.Method, s.Name, strconv.FormatInt(s.FileBytes, 10)}
			switch {
			case !m.Available:
				row = append(row, "", "", "", "", "", "", "", "", "", "", "", "", "", "not available: "+m.Reason)
			case f == nil:
				row = append(row, "", "", "", "", "", "", "", "", "", "", "", "", "", "not run")
			default:
				// A clone copies no data: no rate to chart beside the copies.
				mbps, fps := fmt.Sprintf("%.3f", f.MBPerSec), fmt.Sprintf("%.1f", f.FilesPerSec)
				if f.NotDataCopy || !f.Ran {
					mbps, fps = "", ""
				}
				l := f.Latency
				row = append(row, strconv.FormatInt(f.Files, 10), strconv.FormatInt(f.Bytes, 10),
					strconv.FormatInt(f.ElapsedNs, 10), mbps, fps,
					strconv.FormatInt(l.P50Ns, 10), strconv.FormatInt(l.P90Ns, 10), strconv.FormatInt(l.P99Ns, 10),
					strconv.FormatInt(l.MaxNs, 10), fmt.Sprintf("%.1f", f.CPUPercent), strconv.FormatBool(f.SourcesCold()),
					strconv.FormatBool(f.Verified), strconv.FormatBool(f.NotDataCopy), status(f))
			}
			_ = cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

func status(f *result.CopyFigure) string {
	switch {
	case f.Interrupted:
		return "interrupted"
	case !f.Ran:
		return "failed"
	case !f.Verified:
		return "not verified"
	}
	return "ok"
}
