// Package compare puts clyde results and bonnie++ outputs side by side: it
// reads every form a run can take (a clyde JSON result, a history entry, a
// bonnie++ CSV line or text report), turns each into comparable figures, and
// renders the table with each column's change against the first run.
package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/internal/bonnie"
	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// Run is one thing being compared: a clyde fs or block result, or a bonnie++
// import turned into an fs result.
type Run struct {
	// Label names the run in tables: "#12", "ssd.json", "m4.txt:2".
	Label string
	// Source says what the input was: "history", "clyde JSON",
	// "bonnie++ 1.98 CSV", "bonnie++ 2.00a text".
	Source string
	FS     *result.FS
	Block  *result.Block
	Copy   *result.Copy
	// UnknownRate marks fs tests whose rate the input could not give:
	// bonnie++ 2.00a text reports print the file count in place of the file
	// rates, and without the CSV line there is no way back to the rate.
	UnknownRate [result.FSTestCount]bool
}

// Kind is "fs", "block" or "copy".
func (r *Run) Kind() string {
	if r.Copy != nil {
		return "copy"
	}
	if r.Block != nil {
		return "block"
	}
	return "fs"
}

// Provenance is the run's provenance; imports have only what their input said.
func (r *Run) Provenance() result.Provenance {
	if r.Copy != nil {
		return r.Copy.Provenance
	}
	if r.Block != nil {
		return r.Block.Provenance
	}
	return r.FS.Provenance
}

// Host is the machine the run was made on: the recorded host name, or
// bonnie++'s machine name for imports.
func (r *Run) Host() string {
	if h := r.Provenance().Hostname; h != "" {
		return h
	}
	if r.FS != nil {
		return r.FS.Config.MachineName
	}
	return ""
}

// Target is the directory (fs) or file/device (block) the run measured.
func (r *Run) Target() string {
	fsPath := r.Provenance().Filesystem.Path
	switch {
	case r.Copy != nil:
		c := r.Copy.Config
		if fsPath != "" {
			c.Dir = fsPath
		}
		if r.Copy.ToFilesystem != nil && r.Copy.ToFilesystem.Path != "" {
			c.To = r.Copy.ToFilesystem.Path
		}
		return copyTarget(c)
	case r.Block != nil:
		return blockTarget(r.Block.Target, r.Block.Profile, fsPath)
	}
	if fsPath != "" {
		return fsPath // -d resolved: ".", "mnt" and "/mnt" are one directory
	}
	return r.FS.Config.Dir
}

// Volume names the target by its filesystem: the filesystem's identity
// (FilesystemID) and the target's path inside it ("UUID@DEVICE:/bench"),
// so that the history knows a run on the same filesystem mounted elsewhere
// (a USB disk on another mount point), and never takes a clone of it (dd,
// cp: the same UUID on another device) for it; "" where the filesystem
// has no identity, and for copy runs (two targets).
func (r *Run) Volume() string {
	fs := r.Provenance().Filesystem
	if r.Copy != nil {
		return ""
	}
	return VolumeOf(FilesystemID(fs), fs.MountPoint, r.Target())
}

// FilesystemID is a filesystem's identity for the history: its UUID, its
// creation time where the superblock keeps one, and the device it is on,
// which tells two clones apart. "" without a UUID or a device (a result
// made without root, or before clyde recorded the device: such runs are
// found by their path alone).
func FilesystemID(fs result.Filesystem) string {
	if fs.UUID == "" || fs.DeviceID == "" {
		return ""
	}
	id := fs.UUID
	if !fs.Created.IsZero() {
		id += "+" + strconv.FormatInt(fs.Created.Unix(), 10)
	}
	return id + "@" + fs.DeviceID
}

// VolumeOf is Run.Volume's form for a target under mountPoint of the
// filesystem id (FilesystemID); "" when id is, or target is not under it.
func VolumeOf(id, mountPoint, target string) string {
	if id == "" || mountPoint == "" {
		return ""
	}
	rel, err := filepath.Rel(mountPoint, target)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return ""
	}
	return id + ":" + filepath.ToSlash(filepath.Join("/", rel))
}

// blockTarget is what the user named for a block run, in the form that stays
// the same from run to run: a device's resolved path; a file's resolved
// directory (fsPath, absolute with symlinks resolved) joined with its name;
// and for a preset that makes its file in a private run directory (cdm, a
// new name every run) the directory named, which is fsPath itself.
func blockTarget(t result.BlockTarget, profile *result.BlockProfile, fsPath string) string {
	named := t.ResolvedPath
	if named == "" {
		named = t.Path
	}
	switch {
	case t.Kind == "block_device" || fsPath == "":
		return named
	case profile != nil && profile.Name == "cdm":
		return fsPath
	}
	sep := "/"
	if strings.Contains(fsPath, `\`) {
		sep = `\` // a Windows result read here
	}
	base := named[strings.LastIndexAny(named, `/\`)+1:]
	return strings.TrimSuffix(fsPath, sep) + sep + base
}

// blockParams is what makes two block runs comparable: each job's
// configuration without its seed, and the preset.
type blockParams struct {
	Profile string                  `json:"profile"`
	Jobs    []result.BlockJobConfig `json:"jobs"`
	CDM     *cdmParams              `json:"cdm,omitempty"`
	// Fill is the fill level asked for ("50%", "200g"): a drive measured
	// half full is another measurement than the same drive empty.
	Fill string `json:"fill,omitempty"`
	// Ranks is a run across many ranks' count: four clients' sum is
	// another measurement than one client's.
	Ranks int `json:"ranks,omitempty"`
}

// copyRankParams are a copy run's parameters, with its rank count.
type copyRankParams struct {
	result.CopyConfig
	Ranks int `json:"ranks,omitempty"`
}

// cdmParams are the CrystalDiskMark settings that change what its rows
// hold: the test set, the test data, how the passes are kept and how many,
// the Mix rows' share and whether the page cache was used. The sizes and
// depths are in the jobs.
type cdmParams struct {
	Preset     string `json:"preset"`
	TestData   string `json:"test_data"`
	Aggregate  string `json:"aggregate"`
	Passes     int    `json:"passes"`
	MixReadPct int    `json:"mix_read_pct,omitempty"`
	Direct     bool   `json:"direct"`
}

// fillRequest is the fill level a block run asked for, "" for none.
func fillRequest(b *result.Block) string {
	if b.Space != nil && b.Space.Fill != nil {
		return b.Space.Fill.Request
	}
	return ""
}

// Params is a canonical JSON text of the parameters that must match for two
// runs to be comparable (--check-regression's "same parameters").
func (r *Run) Params() string {
	var v any
	if r.Copy != nil {
		v = copyParams(r.Copy.Config)
		if j := r.Copy.Job; j != nil {
			v = copyRankParams{CopyConfig: copyParams(r.Copy.Config), Ranks: j.Ranks}
		}
	} else if r.Block != nil {
		p := blockParams{}
		if r.Block.Profile != nil {
			p.Profile = r.Block.Profile.Name
		}
		if c := r.Block.CDM; c != nil {
			p.CDM = &cdmParams{Preset: c.Preset, TestData: c.TestData, Aggregate: c.Aggregate,
				Passes: c.Passes, MixReadPct: c.MixReadPct, Direct: c.Direct}
		}
		p.Fill = fillRequest(r.Block)
		if j := r.Block.Job; j != nil {
			p.Ranks = j.Ranks
		}
		for _, j := range r.Block.Jobs {
			c := j.Config
			c.Seed = 0
			p.Jobs = append(p.Jobs, c)
		}
		v = p
	} else {
		// Everything that changes the work done, as for block jobs: the
		// configuration without where it ran, its name, seed, repeat count,
		// the RAM figure (it only picks defaults) and the version label.
		c := r.FS.Config
		c.Dir, c.MachineName, c.Seed, c.SeedFile = "", "", 0, ""
		c.RAMMiB, c.Iterations, c.SkipEviction, c.CompatVersion = 0, 0, false, ""
		c.Auto = nil // how the sizes were chosen; the sizes themselves count
		v = c
	}
	b, _ := json.Marshal(v) // plain structs: cannot fail
	return string(b)
}

// State says what a figure holds.
type State uint8

// The states of a figure.
const (
	// Known: Values hold one number per repeat.
	Known State = iota
	// NotRun: the test was skipped (-f, -s 0, -n 0) or the direction had no I/O.
	NotRun
	// TooFast: bonnie++'s "+++++" with no figure behind it: the test took
	// under 0.5 s and the input (bonnie++'s own output) kept no rate. A
	// clyde result keeps the rate: that is Known with Figure.Short.
	TooFast
	// Unknown: the input did not carry the figure (2.00a text file rates).
	Unknown
)

// Figure is one column of one run: a test's rate, a latency, a job's IOPS.
type Figure struct {
	// Key identifies the column across runs.
	Key string
	// Unit is the unit of Values: "KiB/s", "files/s", "seeks/s", "ns",
	// "IOPS", "B/s".
	Unit string
	// HigherIsBetter is true for rates, false for latencies.
	HigherIsBetter bool
	State          State
	// Values has one entry per repeat (-x iterations, CDM passes).
	Values []float64
	// Short marks Values measured over less than result.MinTimeNs in at
	// least one repeat: the test bonnie++ prints as +++++. The rate is
	// kept, so compare, the page, the history and the textfile show it,
	// with a mark that it is a low-confidence figure.
	Short bool
	// ElapsedNs is the mean measured time of the repeats, 0 when the input
	// did not say (bonnie++ imports).
	ElapsedNs float64
}

// Figures lists the run's columns in report order.
func (r *Run) Figures() []Figure {
	if r.Copy != nil {
		return copyFigures(r.Copy)
	}
	if r.Block != nil && r.Block.CDM != nil {
		return cdmFigures(r.Block.CDM)
	}
	if r.Block != nil {
		return blockFigures(r.Block)
	}
	return fsFigures(r)
}

func fsFigures(r *Run) []Figure {
	var rates, lats []Figure
	for t := result.FSTest(0); t < result.FSTestCount; t++ {
		rate := Figure{Key: t.Name(), HigherIsBetter: true, State: NotRun}
		lat := Figure{Key: t.Name() + " max latency", Unit: "ns", State: NotRun}
		var elapsed []float64
		for _, run := range r.FS.Runs {
			tr := run.Tests[t]
			if rate.Unit == "" && tr.RateUnit != "" {
				rate.Unit = tr.RateUnit
			}
			switch {
			case r.UnknownRate[t]:
				rate.State = Unknown
			case !tr.Ran:
			case tr.TooShort && !(tr.RatePerSec > 0):
				// bonnie++'s +++++: no number to keep.
				if rate.State == NotRun {
					rate.State = TooFast
				}
			default:
				rate.State = Known
				rate.Values = append(rate.Values, tr.RatePerSec)
				rate.Short = rate.Short || tr.TooShort
				if tr.ElapsedNs > 0 {
					elapsed = append(elapsed, float64(tr.ElapsedNs))
				}
			}
			if tr.Ran && tr.Latency.MaxNs > 0 {
				lat.State = Known
				lat.Values = append(lat.Values, float64(tr.Latency.MaxNs))
			}
		}
		if rate.Unit == "" {
			rate.Unit = t.RateUnit()
		}
		if rate.State == Unknown {
			rate.Values, rate.Short = nil, false
		}
		if len(elapsed) == len(rate.Values) && len(elapsed) > 0 {
			rate.ElapsedNs = mean(elapsed)
		}
		rates = append(rates, rate)
		lats = append(lats, lat)
	}
	return append(rates, lats...)
}

// JobKey names a block job by what it did, so the same job of two runs
// lines up even when their names differ.
func JobKey(c result.BlockJobConfig) string {
	rw := c.RW
	if c.RW == "rw" || c.RW == "randrw" {
		rw += " " + strconv.Itoa(c.RWMixRead) + "%r"
	}
	return fmt.Sprintf("%s %s qd%d j%d", rw, units.Label(c.BSBytes), c.IODepth, c.NumJobs)
}

func blockFigures(b *result.Block) []Figure {
	byKey := map[string]*Figure{}
	var order []string
	add := func(key, unit string, higher bool, v float64) {
		f, ok := byKey[key]
		if !ok {
			f = &Figure{Key: key, Unit: unit, HigherIsBetter: higher}
			byKey[key] = f
			order = append(order, key)
		}
		f.Values = append(f.Values, v)
	}
	// A job that ran beside others (a group: an ORION point, a fio job
	// file's concurrent jobs) is only the same measurement as another when
	// its companions were the same too.
	with := map[int]string{}
	for _, g := range b.Groups {
		keys := make([]string, len(g.Jobs))
		for k, i := range g.Jobs {
			if i >= 0 && i < len(b.Jobs) {
				keys[k] = JobKey(b.Jobs[i].Config)
			}
		}
		for k, i := range g.Jobs {
			others := append(append([]string(nil), keys[:k]...), keys[k+1:]...)
			with[i] = " (with " + strings.Join(others, ", ") + ")"
		}
	}
	for i, j := range b.Jobs {
		if j.Warmup {
			continue
		}
		k := JobKey(j.Config) + with[i]
		for _, d := range []struct {
			name string
			dir  result.BlockDir
		}{{"read", j.Read}, {"write", j.Write}} {
			if d.dir.TotalIOs == 0 {
				continue
			}
			add(k+" "+d.name+" iops", "IOPS", true, d.dir.IOPS)
			add(k+" "+d.name+" bw", "B/s", true, float64(d.dir.BWBytes))
			if p99, ok := d.dir.LatPercentile(99); ok {
				add(k+" "+d.name+" p99 latency", "ns", false, float64(p99))
			}
		}
	}
	out := make([]Figure, 0, len(order))
	for _, k := range order {
		out = append(out, *byKey[k])
	}
	return out
}

func mean(vs []float64) float64 {
	var sum float64
	for _, v := range vs {
		sum += v
	}
	return sum / float64(len(vs))
}

// spread is the run-to-run range of the repeats: max - min.
func spread(vs []float64) float64 {
	if len(vs) < 2 {
		return 0
	}
	lo, hi := vs[0], vs[0]
	for _, v := range vs[1:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return hi - lo
}

// Summary is a short line of a run's key figures for history listings:
// the block rates and the sequential create rate of an fs run, the first
// job's figures of a block run. A figure measured under 0.5 s is there
// with ShortMark.
func (r *Run) Summary() string {
	if r.Copy != nil {
		return copySummary(r.Copy)
	}
	var keys []string
	if r.FS != nil {
		keys = []string{"put_block", "get_block", "seeks", "seq_create"}
	}
	var parts []string
	for _, f := range r.Figures() {
		if keys != nil && !contains(keys, f.Key) || f.State != Known || len(f.Values) == 0 {
			continue
		}
		if keys == nil && len(parts) >= 2 {
			break
		}
		row := Row{Unit: f.Unit, Cells: []Cell{{State: Known, Value: mean(f.Values), Short: f.Short}}}
		unit, scale := displayUnit(row)
		parts = append(parts, f.Key+" "+strings.TrimSpace(cellText(row.Cells[0], scale))+" "+unit)
	}
	return strings.Join(parts, ", ")
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// Name is the run's own name for it: an fs run's machine name (-m, the
// host name by default), a block run's preset or first job. Label, by
// contrast, says where the run was read from.
func (r *Run) Name() string {
	switch {
	case r.FS != nil:
		return r.FS.Config.MachineName
	case r.Block != nil && r.Block.Profile != nil:
		return r.Block.Profile.Name
	case r.Block != nil && len(r.Block.Jobs) > 0:
		return r.Block.Jobs[0].JobName
	}
	return "" // a copy run has no name of its own: its key flags say what it copied
}

// KeyFlags are the options that decide what a run measured, as a command
// line would give them: "-s 2048 -n 256:4096:512:16" for an fs run (bonnie++'s
// spellings), "--profile cdm --size 1g" or "randread 4k qd32 j1 --direct"
// for a block run.
func (r *Run) KeyFlags() string {
	switch {
	case r.FS != nil:
		cfg := r.FS.Config
		if r.FS.Provenance.Tool == "bonnie++" {
			// bonnie++'s output does not say how much per-char I/O ran,
			// only whether it did: its default unless skipped.
			cfg.ByteIOMiB = 0
			if len(r.FS.Runs) > 0 && r.FS.Runs[0].Tests[result.PutChar].Ran {
				cfg.ByteIOMiB = 3
			}
		}
		return bonnie.Flags(cfg)
	case r.Block != nil:
		return blockFlags(r.Block)
	case r.Copy != nil:
		return copyFlags(r.Copy.Config)
	}
	return ""
}

// copyFlags is a copy run's options as clyde copy's flags would give them.
func copyFlags(c result.CopyConfig) string {
	var sets []string
	for _, s := range c.Sets {
		sets = append(sets, s.Name)
	}
	parts := []string{"--set " + strings.Join(sets, ","), "--method " + c.Method}
	if c.Dirs > 1 {
		parts = append(parts, "--dirs "+strconv.Itoa(c.Dirs))
	}
	if c.Buffer != "" && c.Buffer != "random" {
		parts = append(parts, "--buffer "+c.Buffer)
	}
	switch c.Sync {
	case "none":
		parts = append(parts, "--no-fsync")
	case "fs":
		parts = append(parts, "--syncfs")
	}
	if c.To != "" {
		parts = append(parts, "--to "+c.To)
	}
	return strings.Join(parts, " ")
}

func blockFlags(b *result.Block) string {
	var parts []string
	if b.Profile != nil {
		parts = append(parts, "--profile "+b.Profile.Name)
	}
	var first *result.BlockJobConfig
	for i := range b.Jobs {
		if !b.Jobs[i].Warmup {
			first = &b.Jobs[i].Config
			break
		}
	}
	if first == nil {
		return strings.Join(parts, " ")
	}
	if b.Profile == nil {
		parts = append(parts, JobKey(*first))
		if len(b.Jobs) > 1 {
			parts = append(parts, fmt.Sprintf("(+%d jobs)", len(b.Jobs)-1))
		}
	}
	if first.SizeBytes > 0 {
		parts = append(parts, "--size "+units.Label(first.SizeBytes))
	}

	switch cdm := b.Profile != nil && b.Profile.Name == "cdm"; {
	case cdm && !first.Direct:
		parts = append(parts, "--buffered") // cdm is unbuffered unless told
	case !cdm && first.Direct:
		parts = append(parts, "--direct")
	}
	if first.IOEngine != "" {
		parts = append(parts, "--ioengine "+first.IOEngine)
	}
	parts = append(parts, cdmFlags(b.CDM)...)
	if f := fillRequest(b); f != "" {
		parts = append(parts, "--fill "+f)
	}
	return strings.Join(parts, " ")
}

// cdmFlags are the CrystalDiskMark settings that differ from clyde's
// defaults, as the flags that set them: two runs whose key flags read the
// same measured the same rows the same way.
func cdmFlags(c *result.BlockCDM) []string {
	if c == nil {
		return nil
	}
	var parts []string
	if c.Preset != "" && c.Preset != "default" {
		parts = append(parts, "--cdm-preset "+c.Preset)
	}
	if c.TestData != "" && c.TestData != "random" {
		parts = append(parts, "--test-data "+c.TestData)
	}
	if c.Aggregate != "" && c.Aggregate != "best" {
		parts = append(parts, "--passes-kept "+c.Aggregate)
	}
	if c.Passes != 0 && c.Passes != 5 { // CrystalDiskMark's 5, blockbench.DefaultCDMPasses
		parts = append(parts, "--passes "+strconv.Itoa(c.Passes))
	}
	if c.MixReadPct != 0 {
		parts = append(parts, "--mix --mix-read "+strconv.Itoa(c.MixReadPct))
	}
	return parts
}

// Encode is the run's result as saved: clyde's JSON of its kind.
func (r *Run) Encode() ([]byte, error) {
	var b bytes.Buffer
	var err error
	switch {
	case r.Block != nil:
		err = result.EncodeJSON(&b, r.Block)
	case r.Copy != nil:
		err = result.EncodeJSON(&b, r.Copy)
	default:
		err = result.EncodeJSON(&b, r.FS)
	}
	return b.Bytes(), err
}

// SetCheck saves the regression check's record with the run's result, so
// its JSON file and the history hold it.
func (r *Run) SetCheck(c *result.RegressionCheck) {
	switch {
	case r.Copy != nil:
		r.Copy.Check = c
	case r.Block != nil:
		r.Block.Check = c
	case r.FS != nil:
		r.FS.Check = c
	}
}

// Check is the regression check saved with the run, nil for none.
func (r *Run) Check() *result.RegressionCheck {
	switch {
	case r.Copy != nil:
		return r.Copy.Check
	case r.Block != nil:
		return r.Block.Check
	case r.FS != nil:
		return r.FS.Check
	}
	return nil
}

// FromFS, FromBlock and FromCopy wrap a result clyde just made.
func FromFS(f *result.FS) *Run       { return &Run{FS: f, Source: "clyde"} }
func FromBlock(b *result.Block) *Run { return &Run{Block: b, Source: "clyde"} }
func FromCopy(c *result.Copy) *Run   { return &Run{Copy: c, Source: "clyde"} }
