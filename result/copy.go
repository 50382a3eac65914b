package result

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Copy is the whole result of clyde copy: every set copied with every method
// that ran, timed from the first open to the last close (and fsync) of the
// set, with the sources cold and every copy verified afterwards.
type Copy struct {
	SchemaVersion int        `json:"schema_version"`
	Kind          string     `json:"kind"` // "copy"
	Provenance    Provenance `json:"provenance"`
	// ToFilesystem describes the destination side when --to names one;
	// Provenance.Filesystem is the source side (-d).
	ToFilesystem *Filesystem `json:"to_filesystem,omitempty"`
	Config       CopyConfig  `json:"config"`
	// Methods lists every method asked for, each available or not and why.
	Methods []CopyMethod `json:"methods"`
	// Results holds one entry per set and method, sets in order, each set's
	// methods in the order of Methods.
	Results []CopyFigure `json:"results"`
	Notes   []string     `json:"notes,omitempty"`
	// Interrupted is true when a signal stopped the run; Results holds what finished.
	Interrupted bool   `json:"interrupted,omitempty"`
	Error       string `json:"error,omitempty"`
	// MaxRSSBytes is the peak memory of the clyde process over the run.
	MaxRSSBytes int64 `json:"max_rss_bytes,omitempty"`
	// Job is a run across many ranks (clyde copy under a launcher):
	// Results then hold every rank's copies summed.
	Job *RankJob `json:"job,omitempty"`
	// Check is what --check-regression found (result/check.go).
	Check *RegressionCheck `json:"regression_check,omitempty"`
}

// CopyConfig is the resolved configuration of a clyde copy run.
type CopyConfig struct {
	Dir string `json:"dir"`
	// To is the destination directory; empty when copies are made beside
	// the sources, in the same private directory.
	To   string        `json:"to,omitempty"`
	Sets []CopySetSpec `json:"sets"`
	// Dirs spreads each set's files over this many directories.
	Dirs int `json:"dirs"`
	// Method is what was asked: readwrite, copy_file_range, clone or all.
	Method string `json:"method"`
	// BlockBytes is readwrite's buffer: each read and write moves this much.
	BlockBytes int `json:"block_bytes"`
	// Buffer is the sources' data: "random" (incompressible) or "zero".
	Buffer string `json:"buffer"`
	// Sync is how copies reach the disk inside the timed part: "file" (an
	// fsync of each copy before it is closed), "fs" (one syncfs of the
	// destination at the end of each set) or "none" (--no-fsync: the page
	// cache may still hold them when the set is counted).
	Sync string `json:"sync"`
	Seed uint64 `json:"seed"`
}

// CopySetSpec is one set: Files files of FileBytes each.
type CopySetSpec struct {
	// Name is CopySpdBench's label without "Copy ": "100Mx1", "512Kx200".
	Name      string `json:"name"`
	FileBytes int64  `json:"file_bytes"`
	Files     int    `json:"files"`
}

// CopyMethod says whether a method could run on these directories.
type CopyMethod struct {
	Method    string `json:"method"`
	Available bool   `json:"available"`
	// Reason says why not, when not available.
	Reason string `json:"reason,omitempty"`
}

// CopyFigure is one set copied with one method. Numbers are raw; Finish
// derives the rates.
type CopyFigure struct {
	Set         string `json:"set"`
	Method      string `json:"method"`
	Ran         bool   `json:"ran"`
	Interrupted bool   `json:"interrupted,omitempty"`
	// Files and Bytes are what was copied (and verified, when Verified).
	Files     int64 `json:"files"`
	Bytes     int64 `json:"bytes"`
	ElapsedNs int64 `json:"elapsed_ns"`
	CPUUserNs int64 `json:"cpu_user_ns"`
	CPUSysNs  int64 `json:"cpu_sys_ns"`
	CPUKnown  bool  `json:"cpu_known"`
	// Latency is per file: from the open of the source to the close of the
	// copy, its fsync included.
	Latency LatencySummary `json:"lat_ns"`
	// SourceCache sums the page-cache check of every source file made just
	// before the set was copied: Cold when under 1% was still resident.
	SourceCache CacheState `json:"source_cache"`
	// DeviceCache is, on a FUSE filesystem on a block device (ntfs-3g),
	// the page cache of the device beneath, dropped too: such a file's data
	// stays cached there when the file's own pages are gone. FileBytes is
	// the device's size; Cold is under 1% of the set's bytes resident.
	DeviceCache *CacheState `json:"device_cache,omitempty"`
	// Verified is true when every copy's checksum matched its source's.
	Verified bool `json:"verified"`
	// SharedFiles counts the copies FIEMAP found sharing extents with
	// another file: cloned, not copied. ExtentCheck says why that could not
	// be checked, when it could not.
	SharedFiles int64  `json:"shared_files"`
	ExtentCheck string `json:"extent_check,omitempty"`
	// NotDataCopy is true for clones and for copies whose extents are
	// shared: no data moved, so MBPerSec is not a copy rate and reporters
	// print the elapsed time apart from the real copies.
	NotDataCopy bool `json:"not_data_copy"`
	// MBPerSec is Bytes per second in MB (10^6 bytes), the write-ups' unit.
	MBPerSec    float64  `json:"mb_per_sec"`
	FilesPerSec float64  `json:"files_per_sec"`
	CPUPercent  float64  `json:"cpu_percent"`
	Notes       []string `json:"notes,omitempty"`
}

// Finish fills the derived figures from the raw ones.
func (f *CopyFigure) Finish() {
	f.NotDataCopy = f.Method == "clone" || f.SharedFiles > 0
	if !f.Ran || f.ElapsedNs <= 0 {
		f.MBPerSec, f.FilesPerSec, f.CPUPercent = 0, 0, 0
		return
	}
	secs := float64(f.ElapsedNs) / 1e9
	f.MBPerSec = float64(f.Bytes) / 1e6 / secs
	f.FilesPerSec = float64(f.Files) / secs
	if f.CPUKnown {
		f.CPUPercent = float64(f.CPUUserNs+f.CPUSysNs) / float64(f.ElapsedNs) * 100
	}
}

// SourcesCold says whether the set was copied from sources found out of
// every page cache they could be in.
func (f *CopyFigure) SourcesCold() bool {
	return f.SourceCache.Cold && (f.DeviceCache == nil || f.DeviceCache.Cold)
}

// Figure returns the result of set with method, or nil.
func (c *Copy) Figure(set, method string) *CopyFigure {
	for i := range c.Results {
		if c.Results[i].Set == set && c.Results[i].Method == method {
			return &c.Results[i]
		}
	}
	return nil
}

// DecodeCopy reads a saved clyde copy result and checks it is one this
// version understands.
func DecodeCopy(data []byte) (*Copy, error) {
	kind, err := Kind(data)
	if err != nil {
		return nil, err
	}
	if kind != "copy" {
		return nil, fmt.Errorf("a clyde %s result, not a copy result", kind)
	}
	var c Copy
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&c); err != nil {
		return nil, describeJSONError(err)
	}
	if c.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("result schema %d is newer than this clyde reads (%d)", c.SchemaVersion, SchemaVersion)
	}
	return &c, nil
}
