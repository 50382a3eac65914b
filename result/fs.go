package result

import (
	"time"

	"github.com/clydebench/clyde/internal/latency"
)

// LatencySummary is one test's latency distribution: exact count, min, max,
// mean and standard deviation, fixed percentiles and the whole HDR histogram.
type LatencySummary = latency.Summary

// FSTest numbers the twelve bonnie++ tests in bonnie++'s order, which is also
// the order of their columns in the text tables and the CSV line.
type FSTest int

// The bonnie++ tests.
const (
	PutChar FSTest = iota
	PutBlock
	Rewrite
	GetChar
	GetBlock
	Seeks
	SeqCreate
	SeqStat
	SeqDelete
	RandCreate
	RandStat
	RandDelete
	FSTestCount
)

// fsTests is the one table of what each bonnie++ test is called: its CSV
// header name, the phase name error messages give it, and bonnie++'s
// progress words for it.
var fsTests = [FSTestCount]struct{ name, phase, progress string }{
	{"putc", "per-char write", "Writing a byte at a time..."},
	{"put_block", "block write", "Writing intelligently..."},
	{"rewrite", "rewrite", "Rewriting..."},
	{"getc", "per-char read", "Reading a byte at a time..."},
	{"get_block", "block read", "Reading intelligently..."},
	{"seeks", "random seeks", "start 'em..."},
	{"seq_create", "sequential create", "Create files in sequential order..."},
	{"seq_stat", "sequential stat", "Stat files in sequential order..."},
	{"seq_del", "sequential delete", "Delete files in sequential order..."},
	{"ran_create", "random create", "Create files in random order..."},
	{"ran_stat", "random stat", "Stat files in random order..."},
	{"ran_del", "random delete", "Delete files in random order..."},
}

// Name is the test's bonnie++ CSV header name.
func (t FSTest) Name() string {
	if t < 0 || t >= FSTestCount {
		return "unknown"
	}
	return fsTests[t].name
}

// FSTestNamed is the test whose Name is name ("put_block").
func FSTestNamed(name string) (FSTest, bool) {
	for t := FSTest(0); t < FSTestCount; t++ {
		if fsTests[t].name == name {
			return t, true
		}
	}
	return 0, false
}

// Phase is the test's name in messages: "block write".
func (t FSTest) Phase() string {
	if t < 0 || t >= FSTestCount {
		return "unknown phase"
	}
	return fsTests[t].phase
}

// Progress is bonnie++'s progress message for the test, so logs read the same.
func (t FSTest) Progress() string {
	if t < 0 || t >= FSTestCount {
		return ""
	}
	return fsTests[t].progress
}

// IsIO reports whether t is one of the six tests on the big file.
func (t FSTest) IsIO() bool { return t < SeqCreate }

// MinTimeNs is bonnie++'s MinTime: a test shorter than this prints +++++.
const MinTimeNs = 500_000_000

// FSConfig is the resolved configuration a run used, in bonnie++'s terms.
type FSConfig struct {
	Dir         string `json:"dir"`
	MachineName string `json:"machine_name"`
	// FileSizeMiB is the size of the big file of each copy; 0 skips the IO tests.
	FileSizeMiB  int64  `json:"file_size_mib"`
	ChunkBytes   int    `json:"chunk_bytes"`
	Seeks        int    `json:"seeks"`
	SeekProcs    int    `json:"seek_procs"`
	ByteIOMiB    int64  `json:"byte_io_mib"`
	FilesK       int    `json:"files_k"`
	MaxFileBytes int64  `json:"max_file_bytes"`
	MinFileBytes int64  `json:"min_file_bytes"`
	Dirs         int    `json:"dirs"`
	FileChunk    int    `json:"file_chunk_bytes"`
	Concurrency  int    `json:"concurrency"`
	RAMMiB       int64  `json:"ram_mib"`
	Seed         uint32 `json:"seed"`
	SeedFile     string `json:"seed_file,omitempty"`
	SyncWrites   bool   `json:"sync_writes"`
	Direct       bool   `json:"direct"`
	RandomData   bool   `json:"random_data"`
	Iterations   int    `json:"iterations"`
	SkipEviction bool   `json:"skip_eviction,omitempty"`
	LinkMode     string `json:"link_mode,omitempty"` // "", "link" or "symlink"
	// VisitOrder is how the sequential stat and delete tests walk the
	// files: "" is bonnie++'s readdir order, "creation" by name in the
	// order they were made (--creation-order, and every shared tree), as
	// mdtest does.
	VisitOrder    string `json:"visit_order,omitempty"`
	CompatVersion string `json:"compat_version"` // bonnie++ version printed in tables and CSV
	// Auto is set when --auto chose the sizes: how, and from what.
	Auto *FSAuto `json:"auto,omitempty"`
}

// FSAuto records how clyde fs --auto chose a run's sizes (FileSizeMiB,
// Seeks, ByteIOMiB, FilesK): calibrated on this storage, or reused from an
// earlier --auto run on the same host and directory so that nightly runs
// stay comparable.
type FSAuto struct {
	// BudgetNs is the wall time asked for (--auto=BUDGET).
	BudgetNs int64 `json:"budget_ns"`
	// TargetNs is how long the quickest test of each kind was sized to
	// run; EstimatedNs the whole run's expected wall time.
	TargetNs    int64 `json:"target_ns,omitempty"`
	EstimatedNs int64 `json:"estimated_ns,omitempty"`
	// CalibrationNs is the wall time of the short, uncounted calibration
	// runs, CalibrationRuns their number, and CalibrationRates what they
	// measured per test (the tests' rate units).
	CalibrationNs    int64              `json:"calibration_ns,omitempty"`
	CalibrationRuns  int                `json:"calibration_runs,omitempty"`
	CalibrationRates map[string]float64 `json:"calibration_rates,omitempty"`
	// Limits says what kept a size below what its tests needed (free
	// space, free inodes, the budget), one line each.
	Limits []string `json:"limits,omitempty"`
	// ReusedFrom names the earlier run whose sizes were taken ("#12" in
	// the history), "" when calibrated.
	ReusedFrom  string    `json:"reused_from,omitempty"`
	ReusedStart time.Time `json:"reused_start,omitzero"`
}

// Room is the space a run had before it started, as the filesystem
// reported it: what later advice may suggest without the preflight
// refusing it.
type Room struct {
	FreeBytes uint64 `json:"free_bytes"`
	// FreeInodes means something only when InodesKnown (btrfs has no
	// fixed inode table).
	FreeInodes  uint64 `json:"free_inodes"`
	InodesKnown bool   `json:"inodes_known"`
}

// FSTestResult is one test of one run. Numbers are raw: the rate is
// computed by reporters from the work and the elapsed time.
type FSTestResult struct {
	Test FSTest `json:"-"`
	Name string `json:"name"`
	Ran  bool   `json:"ran"`
	// Ops counts operations: one-byte calls, blocks, seeks or files.
	Ops int64 `json:"ops"`
	// Bytes is the data the bonnie++ rate counts (0 for seeks and file tests).
	Bytes       int64          `json:"bytes"`
	ElapsedNs   int64          `json:"elapsed_ns"`
	CPUUserNs   int64          `json:"cpu_user_ns"`
	CPUSysNs    int64          `json:"cpu_sys_ns"`
	CPUKnown    bool           `json:"cpu_known"`
	Latency     LatencySummary `json:"lat_ns"`
	Cache       *CacheState    `json:"cache,omitempty"`
	Direct      bool           `json:"direct"`
	Interrupted bool           `json:"interrupted,omitempty"`
	RateUnit    string         `json:"rate_unit"`
	RatePerSec  float64        `json:"rate_per_sec"`
	CPUPercent  float64        `json:"cpu_percent"`
	TooShort    bool           `json:"too_short"`
	// Flush says what the create and delete tests flushed at their end,
	// where bonnie++ calls sync: the filesystem (syncfs), the volume, or
	// each file and directory of the phase where the platform cannot flush
	// a whole volume (Windows without administrator rights).
	Flush string `json:"flush,omitempty"`
	// FlushNs is how long that flush took, inside ElapsedNs: the longest
	// of the copies' (mdtest times no flush unless -Y).
	FlushNs int64    `json:"flush_ns,omitempty"`
	Notes   []string `json:"notes,omitempty"`
	// Stonewall is --stonewall's account of a create phase.
	Stonewall *FSStonewall `json:"stonewall,omitempty"`
}

// FSStonewall is mdtest's stonewall with wear-out (-W): a create phase
// stops on every worker (each copy of each rank) once Seconds have passed
// since its start or the first worker has made all its files; then the
// workers behind make files up to the highest count any worker reached, so
// every later phase sees equal trees. Ops and the phase's rate include that
// catch-up; Items and Rate are at the stonewall (mdtest's "stonewall rate":
// the items made by then over the time to the stonewall, the slowest
// worker's).
type FSStonewall struct {
	Seconds float64 `json:"seconds"`
	// Items is the sum over the workers of the files each had made at the
	// stonewall; MinItems and MaxItems the fewest and most one had.
	Items    int64 `json:"items"`
	MinItems int64 `json:"min_items"`
	MaxItems int64 `json:"max_items"`
	// ElapsedNs is the latest worker's time from the phase's start to its
	// stop.
	ElapsedNs  int64   `json:"elapsed_ns"`
	RatePerSec float64 `json:"rate_per_sec"`
	// Wall says what stopped the phase: "time" (Seconds passed) or
	// "first done" (a worker made all its files first).
	Wall string `json:"wall"`
}

// CacheState says how cold the page cache was when a read phase started.
type CacheState struct {
	// Evicted is true when clyde asked the kernel to drop the file's pages.
	Evicted bool `json:"evicted"`
	// ResidentBytes is how much of the file mincore still found in memory
	// after eviction; -1 when it could not be checked.
	ResidentBytes int64 `json:"resident_bytes"`
	FileBytes     int64 `json:"file_bytes"`
	// Cold is true when the check ran and found under 1% resident (and,
	// with Device, the device beneath was cold too); false when it found
	// more, or when there was no check (ResidentBytes -1): Method says which.
	Cold bool `json:"cold"`
	// Method is how the pages were dropped and how that was checked, or
	// that it could not be.
	Method string `json:"method,omitempty"`
	Error  string `json:"error,omitempty"`
	// Device is, beneath a FUSE filesystem on a block device (ntfs-3g), the
	// device's own page cache: such a filesystem reads the device through
	// it, so a file whose pages were dropped can still be read from memory.
	Device *CacheState `json:"device,omitempty"`
	// Stack is the loop devices the file's data is read through, nearest
	// first, each with what became of the host's cache of its backing file
	// (internal/pagecache); Cold holds only when every level is cold too.
	Stack []CacheLevel `json:"stack,omitempty"`
}

// CacheLevel is one loop device beneath a file that is read: a loop device
// without direct I/O reads its backing file through the host's page cache,
// so the file's data can be in memory there when the file's own pages are
// gone, and that cache is dropped too.
type CacheLevel struct {
	// Loop is the loop device; Backing its backing file or device, of which
	// it maps Bytes from OffsetBytes on.
	Loop        string `json:"loop"`
	Backing     string `json:"backing"`
	OffsetBytes int64  `json:"offset_bytes"`
	Bytes       int64  `json:"bytes"`
	// DirectIO: the loop device reads its backing with O_DIRECT (losetup
	// --direct-io=on), past the host's cache: nothing to drop.
	DirectIO bool `json:"direct_io,omitempty"`
	// Evicted is set when the range was written back and dropped;
	// ResidentBytes is what was still in memory after (-1: unknown).
	Evicted       bool  `json:"evicted"`
	ResidentBytes int64 `json:"resident_bytes"`
	// Cold is true when under 1% of the data about to be read was still
	// resident in the range, or nothing caches it (DirectIO on a disk).
	Cold bool `json:"cold"`
	// Cached says why this level keeps the data in memory whatever is
	// asked (a backing file on tmpfs); Error why it could not be dropped.
	Cached string `json:"cached,omitempty"`
	Error  string `json:"error,omitempty"`
}

// RateUnit is the unit of the test's rate, as bonnie++ prints it.
func (t FSTest) RateUnit() string {
	switch {
	case t == Seeks:
		return "seeks/s"
	case t.IsIO():
		return "KiB/s"
	}
	return "files/s"
}

// Finish fills the derived figures (rate, %CP, too-short flag) from the raw ones.
func (r *FSTestResult) Finish() {
	r.Name, r.RateUnit = r.Test.Name(), r.Test.RateUnit()
	if !r.Ran || r.ElapsedNs <= 0 {
		r.RatePerSec, r.CPUPercent, r.TooShort = 0, 0, false
		return
	}
	secs := float64(r.ElapsedNs) / 1e9
	work := float64(r.Ops)
	if r.Test.IsIO() && r.Test != Seeks {
		work = float64(r.Bytes) / 1024
	}
	r.RatePerSec = work / secs
	if r.CPUKnown {
		r.CPUPercent = float64(r.CPUUserNs+r.CPUSysNs) / float64(r.ElapsedNs) * 100
	}
	r.TooShort = r.ElapsedNs < MinTimeNs
}

// FSRun is one iteration of the suite (bonnie++ -x repeats it).
type FSRun struct {
	Iteration int                       `json:"iteration"`
	Seed      uint32                    `json:"seed"`
	Tests     [FSTestCount]FSTestResult `json:"tests"`
}

// FS is the whole result of clyde fs.
type FS struct {
	SchemaVersion int        `json:"schema_version"`
	Kind          string     `json:"kind"` // "fs"
	Provenance    Provenance `json:"provenance"`
	Config        FSConfig   `json:"config"`
	Runs          []FSRun    `json:"runs"`
	// Interrupted is true when a signal stopped the run early; Runs holds what finished.
	Interrupted bool   `json:"interrupted,omitempty"`
	Error       string `json:"error,omitempty"`
	// MaxRSSBytes is the peak memory of the clyde process over the run.
	MaxRSSBytes int64 `json:"max_rss_bytes,omitempty"`
	// Room is the free space and inodes of -d before the run.
	Room *Room `json:"room,omitempty"`
	// Job is set for a run across many clients (result/job.go).
	Job *FSJob `json:"job,omitempty"`
	// Check is what --check-regression found (result/check.go).
	Check *RegressionCheck `json:"regression_check,omitempty"`
	// CacheNote says that figures of the run are a page cache's, not the
	// drive's: read phases that could not be made cold (a loop device over
	// an image on tmpfs), or -D where the host caches what O_DIRECT asks
	// past (as result.Block.CacheNote). The text, the HTML page and the
	// history carry it; "" when nothing was cached that way.
	CacheNote string `json:"cache_note,omitempty"`
}

// Fixup restores what JSON does not carry (each test's index) after decoding.
func (f *FS) Fixup() {
	for i := range f.Runs {
		for t := range f.Runs[i].Tests {
			f.Runs[i].Tests[t].Test = FSTest(t)
		}
	}
}
