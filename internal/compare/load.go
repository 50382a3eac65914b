package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/internal/bonnie"
	"github.com/clydebench/clyde/internal/input"
	"github.com/clydebench/clyde/result"
)

// Lookup returns the saved JSON of history entry id, or an error naming
// why it cannot (an unknown id, no database).
type Lookup func(id int64) ([]byte, error)

// ErrNotResult is returned for input that is neither a clyde result nor
// bonnie++ output.
var ErrNotResult = errors.New("neither a clyde JSON result nor bonnie++ output (text report or CSV line)")

// MaxInputBytes is the most compare and report read from one file or from
// standard input: far above any result (a year of -x 10 CSV lines is a
// few MiB), far below what would exhaust memory (a symlink to /dev/zero).
const MaxInputBytes = input.DefaultMaxBytes

// Input turns command-line arguments into runs. Files must be regular
// files (after symlinks) up to the size limit; "-" is standard input, read
// once. Reading stops at the first ^C (ctx).
type Input struct {
	// Lookup finds history ids; nil when there is no history.
	Lookup Lookup
	// Stdin is what "-" reads; nil refuses "-".
	Stdin io.Reader
	// MaxBytes caps one input; 0 means MaxInputBytes.
	MaxBytes int64

	stdinRead bool
}

// Load turns one argument into runs with no standard input and no ^C:
// Input.Load for callers that have neither.
func Load(arg string, lookup Lookup) ([]*Run, error) {
	return (&Input{Lookup: lookup}).Load(context.Background(), arg)
}

// Load turns one command-line argument into runs: an existing file (clyde
// JSON, bonnie++ CSV, bonnie++ text), "-" for standard input, a history id
// ("12" or "#12"), or a bonnie++ CSV line given inline. A file may hold
// several runs (a CSV file, or two text reports pasted together). Every
// error is one line and names the argument.
func (in *Input) Load(ctx context.Context, arg string) ([]*Run, error) {
	if arg == "" {
		return nil, errors.New("empty argument: want a history id, a result file or a bonnie++ CSV line")
	}
	if arg == "-" {
		data, err := in.readStdin(ctx)
		if err != nil {
			return nil, err
		}
		return LoadBytes("stdin", data)
	}
	if _, err := os.Stat(arg); err == nil {
		data, err := in.readFile(ctx, arg)
		if err != nil {
			return nil, err
		}
		runs, err := loadData(filepath.Base(arg), data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", arg, err)
		}
		return runs, nil
	}
	if id, ok := historyID(arg); ok {
		if in.Lookup == nil {
			return nil, fmt.Errorf("%s: no such file, and there is no history to look the id up in", arg)
		}
		data, err := in.Lookup(id)
		if err != nil {
			return nil, err
		}
		runs, err := LoadBytes("#"+strconv.FormatInt(id, 10), data)
		if err != nil {
			return nil, fmt.Errorf("history entry %d: %w", id, err)
		}
		for _, r := range runs {
			r.Source = "history"
		}
		return runs, nil
	}
	if strings.Count(arg, ",") >= 10 && !strings.ContainsAny(arg, "\n") {
		runs, err := LoadBytes("line", []byte(arg))
		if err != nil {
			return nil, fmt.Errorf("CSV line argument: %w", err)
		}
		return runs, nil
	}
	return nil, fmt.Errorf("%s: no such file, history id or bonnie++ CSV line", oneLine(arg))
}

func (in *Input) max() int64 {
	if in.MaxBytes > 0 {
		return in.MaxBytes
	}
	return MaxInputBytes
}

// readFile reads a regular file of at most the limit through the one
// reader of named inputs (internal/input): a FIFO, a device, a directory or
// a file of procfs is refused before anything is read, and a ^C ends the
// wait.
func (in *Input) readFile(ctx context.Context, arg string) ([]byte, error) {
	data, err := input.ReadFile(ctx, arg, in.max())
	if err != nil {
		if input.IsRefused(err) {
			return nil, refuse("%v: give a result file, or - to read standard input", err)
		}
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s is empty (only white space): not a result", arg)
	}
	return data, nil
}

func (in *Input) readStdin(ctx context.Context) ([]byte, error) {
	switch {
	case in.Stdin == nil:
		return nil, refuse("- (standard input): there is no standard input to read here")
	case in.stdinRead:
		return nil, refuse("- (standard input) is given twice; it can be read once")
	}
	in.stdinRead = true
	data, err := input.ReadAll(ctx, "- (standard input)", in.Stdin, in.max())
	if err != nil {
		if input.IsRefused(err) {
			return nil, refuse("%v", err)
		}
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("- (standard input) is empty: not a result")
	}
	return data, nil
}

// refuse is an input of the wrong kind (a directory, a device, too big):
// a usage error, exit 2, as a bad flag value is. Input that is the right
// kind but not a result (damaged, empty, neither format) stays exit 1.
func refuse(format string, args ...any) error {
	return &result.UsageError{Msg: fmt.Sprintf(format, args...)}
}

// historyID reads "12" or "#12".
func historyID(s string) (int64, bool) {
	s = strings.TrimPrefix(s, "#")
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil && n > 0
}

func oneLine(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s)
}

// LoadBytes reads data named name: a clyde JSON result, or bonnie++ output
// (CSV lines, text reports, or text reports each followed by their CSV line
// as bonnie++ prints them).
func LoadBytes(name string, data []byte) ([]*Run, error) {
	runs, err := loadData(name, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return runs, nil
}

func loadData(name string, data []byte) ([]*Run, error) {
	obj, ok := jsonObject(data)
	if ok || strings.HasPrefix(strings.TrimSpace(string(data)), "{") {
		if ok {
			data = obj // a broken JSON file keeps its own error below
		}
		r, err := decodeClyde(data)
		if err != nil {
			return nil, err
		}
		r.Label = name
		return []*Run{r}, nil
	}
	return loadBonnie(name, strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n"))
}

// jsonObject finds the clyde JSON result in a file that holds it with other
// output formats (--output-format text,json, as fio's normal,json writes
// both to one file): the first JSON object that starts a line, read to its
// end. ok is false when there is none that decodes.
func jsonObject(data []byte) ([]byte, bool) {
	for off := 0; off < len(data); {
		i := bytes.IndexByte(data[off:], '{')
		if i < 0 {
			return nil, false
		}
		start := off + i
		off = start + 1
		if start > 0 && data[start-1] != '\n' {
			continue
		}
		var raw json.RawMessage
		if err := json.NewDecoder(bytes.NewReader(data[start:])).Decode(&raw); err == nil {
			return raw, true
		}
	}
	return nil, false
}

// decodeClyde reads a saved clyde result of either kind.
func decodeClyde(data []byte) (*Run, error) {
	kind, err := result.Kind(data)
	if err != nil {
		return nil, err
	}
	switch kind {
	case "fs":
		f, err := result.DecodeFS(data)
		if err != nil {
			return nil, err
		}
		if err := fsHasFigures(f); err != nil {
			return nil, err
		}
		return &Run{Source: "clyde JSON", FS: f}, nil
	case "block":
		b, err := result.DecodeBlock(data)
		if err != nil {
			return nil, fmt.Errorf("block result: %v", err)
		}
		if err := blockHasFigures(b); err != nil {
			return nil, err
		}
		return &Run{Source: "clyde JSON", Block: b}, nil
	case "copy":
		c, err := result.DecodeCopy(data)
		if err != nil {
			return nil, err
		}
		return &Run{Source: "clyde JSON", Copy: c}, nil
	}
	return nil, fmt.Errorf("unknown result kind %q", kind)
}

// fsHasFigures refuses an fs result with nothing to show, such as
// {"kind":"fs","schema_version":1}: a report of it would print nothing.
func fsHasFigures(f *result.FS) error {
	if len(f.Runs) == 0 {
		return errors.New("a clyde fs result with no runs: nothing to show")
	}
	for i, run := range f.Runs {
		ran := false
		for _, t := range run.Tests {
			ran = ran || t.Ran
		}
		if !ran {
			return fmt.Errorf("a clyde fs result whose run %d has no test that ran: nothing to show", i+1)
		}
	}
	return nil
}

// blockHasFigures refuses a block result with no job, or none that did
// any I/O.
func blockHasFigures(b *result.Block) error {
	if len(b.Jobs) == 0 {
		return errors.New("a clyde block result with no jobs: nothing to show")
	}
	for _, j := range b.Jobs {
		if j.Read.TotalIOs > 0 || j.Write.TotalIOs > 0 {
			return nil
		}
	}
	return errors.New("a clyde block result in which no job did any I/O: nothing to show")
}

// csvRecord is one parsed CSV data line and where it was.
type csvRecord struct {
	line  int
	l     bonnie.Line
	taken bool
}

// loadBonnie reads bonnie++ output: text reports and CSV lines. A text
// report followed by its CSV line (bonnie++'s normal output) is taken from
// the CSV line, whose figures are exact and whose file rates are right
// even where 2.00a's text prints the file count. Consecutive CSV lines of
// one machine and configuration (bonnie++ -x) become one run with repeats.
func loadBonnie(name string, lines []string) ([]*Run, error) {
	var recs []*csvRecord
	for i, ln := range lines {
		ln = strings.TrimSpace(ln)
		if ln == "" || strings.HasPrefix(ln, "#") || bonnie.IsHeader(ln) || !looksLikeCSV(ln) {
			continue
		}
		l, err := bonnie.ParseCSVLine(ln)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		recs = append(recs, &csvRecord{line: i + 1, l: l})
	}
	reports, err := ParseText(lines)
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 && len(reports) == 0 {
		return nil, ErrNotResult
	}
	var runs []*Run
	for _, rep := range reports {
		if rec := csvFor(rep, recs); rec != nil {
			rec.taken = true
			r := csvRun(name, []*csvRecord{rec})
			r.Source = "bonnie++ " + rep.Version + " text (figures from its CSV line)"
			runs = append(runs, r)
			continue
		}
		r := &Run{Source: "bonnie++ " + rep.Version + " text", FS: importedFS(rep.Config, []result.FSRun{rep.Run})}
		r.Label = fmt.Sprintf("%s:%d", name, rep.Line)
		if rep.FileRatesUnknown {
			for t := result.SeqCreate; t <= result.RandDelete; t++ {
				if r.FS.Runs[0].Tests[t].Ran {
					r.UnknownRate[t] = true
				}
			}
		}
		runs = append(runs, r)
	}
	var group []*csvRecord
	flush := func() {
		if len(group) > 0 {
			runs = append(runs, csvRun(name, group))
			group = nil
		}
	}
	for _, rec := range recs {
		if rec.taken {
			flush()
			continue
		}
		if len(group) > 0 && !sameConfig(group[0].l, rec.l) {
			flush()
		}
		group = append(group, rec)
	}
	flush()
	if len(runs) == 1 {
		runs[0].Label = name
	}
	return runs, nil
}

// looksLikeCSV is true for lines that claim to be bonnie++ CSV data, so that
// a damaged one is reported rather than skipped.
func looksLikeCSV(s string) bool {
	return strings.HasPrefix(s, "1.9") && strings.Count(s, ",") >= 3 || strings.Count(s, ",") >= 10
}

// csvFor finds the CSV line bonnie++ printed after a text report: the first
// unused one of the same machine and file size after the report.
func csvFor(rep TextReport, recs []*csvRecord) *csvRecord {
	for _, rec := range recs {
		if rec.taken || rec.line < rep.Line {
			continue
		}
		if rec.l.Name == rep.Config.MachineName && rec.l.SizeMiB == rep.Config.FileSizeMiB && rec.l.FilesK == rep.Config.FilesK {
			return rec
		}
	}
	return nil
}

func sameConfig(a, b bonnie.Line) bool {
	return a.Name == b.Name && a.Version == b.Version && a.Size == b.Size && a.FilesK == b.FilesK &&
		a.MaxFileBytes == b.MaxFileBytes && a.MinFileBytes == b.MinFileBytes && a.Dirs == b.Dirs &&
		a.Concurrency == b.Concurrency && a.Seeks == b.Seeks
}

func csvRun(name string, group []*csvRecord) *Run {
	cfg, _ := group[0].l.Result()
	var fsRuns []result.FSRun
	for i, rec := range group {
		_, run := rec.l.Result()
		run.Iteration = i + 1
		fsRuns = append(fsRuns, run)
	}
	r := &Run{Source: "bonnie++ " + group[0].l.Format + " CSV", FS: importedFS(cfg, fsRuns)}
	r.Label = fmt.Sprintf("%s:%d", name, group[0].line)
	return r
}

// importedFS wraps a bonnie++ import in clyde's fs result, so it renders
// and compares like a clyde run.
func importedFS(cfg result.FSConfig, runs []result.FSRun) *result.FS {
	cfg.Iterations = len(runs)
	return &result.FS{
		SchemaVersion: result.SchemaVersion,
		Kind:          "fs",
		Provenance:    result.Provenance{Tool: "bonnie++", Version: cfg.CompatVersion},
		Config:        cfg,
		Runs:          runs,
	}
}
