// Package copybench is clyde's file-copy test, the one the write-ups run as
// CopySpdBench: sets of files (one 100M file, 200 of 512K, 1000 of 4K) are
// created with incompressible data, written back and dropped from the page
// cache, then copied file by file (open, read, create, write, fsync, close)
// and reported in MB/s, files/s and per-file latency. Every copy is checked
// against its source's checksum outside the timed part.
//
// A copy can be made three ways: readwrite (a read/write loop, like cp
// --reflink=never), copy_file_range (the kernel copies, like cp's default
// on filesystems that cannot clone) and clone (FICLONE, like cp
// --reflink=always). A clone, and a copy_file_range the kernel turned into
// one, shares the source's extents rather than copying data: the result
// marks it, so no report prints its rate beside real copies.
package copybench

import (
	"io"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/clydebench/clyde/internal/cpuclock"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// Method is how each file is copied.
type Method string

// The methods. All runs each that works on the directories, side by side.
const (
	ReadWrite     Method = "readwrite"
	CopyFileRange Method = "copy_file_range"
	Clone         Method = "clone"
	All           Method = "all"
)

// Methods are the single methods in the order All runs and reports them.
var Methods = []Method{ReadWrite, CopyFileRange, Clone}

// ParseMethod reads --method.
func ParseMethod(s string) (Method, error) {
	switch m := Method(s); m {
	case ReadWrite, CopyFileRange, Clone, All:
		return m, nil
	}
	return "", result.Usagef("--method", "%q is not a method; accepted: readwrite, copy_file_range, clone, all", s)
}

// Buffer is what the source files hold.
type Buffer string

// The buffers: incompressible random bytes (the default: a compressing or
// deduplicating filesystem cannot shrink them), or zeros.
const (
	BufferRandom Buffer = "random"
	BufferZero   Buffer = "zero"
)

// ParseBuffer reads --buffer.
func ParseBuffer(s string) (Buffer, error) {
	switch b := Buffer(s); b {
	case BufferRandom, BufferZero:
		return b, nil
	}
	return "", result.Usagef("--buffer", "%q is not a buffer; accepted: random, zero", s)
}

// Sync is how the copies reach the disk inside the timed part.
type Sync string

// The sync modes.
const (
	// SyncFile fsyncs each copy before closing it: a copy is on the disk
	// when it is counted. The default.
	SyncFile Sync = "file"
	// SyncFS issues one syncfs of the destination at the end of each set,
	// timed: what `cp ...; sync -f DIR` measures (--syncfs).
	SyncFS Sync = "fs"
	// SyncNone counts a copy once its data is in the page cache, as a file
	// manager's progress bar does (--no-fsync).
	SyncNone Sync = "none"
)

// Defaults and limits.
const (
	DefaultBlockBytes = 1 << 20
	MaxBlockBytes     = 64 << 20
	DefaultDirs       = 1
	MaxDirs           = 100_000
	// copyFileRangeChunk is what one copy_file_range call is asked for, so
	// a cancelled run stops within one chunk (about 0.1 s at 80 MB/s).
	copyFileRangeChunk = 8 << 20
)

// Options is everything clyde copy can be told. Start from DefaultOptions.
type Options struct {
	// Dir (-d) is where the sources are made, in a private run directory,
	// and, without To, the copies beside them.
	Dir string
	// To (--to) puts the copies in a private run directory of their own in
	// another directory, typically on another volume; "" copies within Dir.
	To string
	// Sets (--set) are copied in order, each reported as one figure per method.
	Sets []Set
	// Dirs (--dirs) spreads each set's files round-robin over this many
	// directories (fewer when a set has fewer files); sources and copies
	// are laid out alike and copied one directory after another.
	Dirs int
	// Method (--method) is how files are copied; All runs each method that
	// works on these directories and lists the others with the reason.
	Method Method
	// BlockBytes (--bs) is readwrite's buffer: each read and write moves
	// this much. copy_file_range and clone do not use it.
	BlockBytes int
	// Buffer (--buffer) is the sources' data.
	Buffer Buffer
	// Sync is how copies reach the disk inside the timed part.
	Sync Sync
	// Seed makes the sources' random data; the same seed writes the same bytes.
	Seed uint64
	// Progress receives one line per step ("Copying 100Mx1 with
	// readwrite...done"); nil is silent.
	Progress io.Writer `json:"-"`
	// CommandLine goes into the result's provenance; nil records os.Args.
	CommandLine []string `json:"-"`
	// Phases, when set, makes this process one rank of a job of many:
	// every set's copy starts on every rank at once and its figure goes
	// to the coordinator (phases.go). The ranks share Dir (and To): the
	// caller locks them, and Method must be one method.
	Phases Phases `json:"-"`
	// Sharers is how many processes run this same copy in the same
	// directories at once (a job's ranks): the space check asks room for
	// all of them. 0 or 1 is this process alone.
	Sharers int `json:"-"`

	// inspect, set by tests, sees (and may damage) every copy after the
	// timed part and before verification: file i of set si, in d.
	inspect func(si, i int, d osio.Dir, name []byte) error
	// clock and cpu, set by tests, replace the monotonic clock and the
	// process CPU reading, so golden results are the same on every run.
	clock func() int64
	cpu   func() (cpuclock.Usage, error)
}

// DefaultOptions returns CopySpdBench's sets copied with readwrite, 1 MiB
// at a time, each copy fsynced, in the current directory.
func DefaultOptions() Options {
	return Options{
		Dir:        ".",
		Sets:       DefaultSets(),
		Dirs:       DefaultDirs,
		Method:     ReadWrite,
		BlockBytes: DefaultBlockBytes,
		Buffer:     BufferRandom,
		Sync:       SyncFile,
	}
}

// Validate holds every rule that ties the options together. It never
// touches the filesystem; Preflight does that.
func (o *Options) Validate() error {
	switch {
	case o.Dir == "":
		return result.Usagef("-d", "a directory is required")
	case o.To != "" && filepath.Clean(o.To) == filepath.Clean(o.Dir):
		return result.Usagef("--to", "%s is -d itself; leave --to out to copy within one directory", o.To)
	case len(o.Sets) == 0:
		return result.Usagef("--set", "no sets to copy; give SIZE:COUNT items such as %s", DefaultSetSpec)
	case len(o.Sets) > MaxSets:
		return result.Usagef("--set", "%d sets, at most %d", len(o.Sets), MaxSets)
	case o.Dirs < 1 || o.Dirs > MaxDirs:
		return result.Usagef("--dirs", "must be 1 to %d, got %d", MaxDirs, o.Dirs)
	case o.BlockBytes < 1 || o.BlockBytes > MaxBlockBytes:
		return result.Usagef("--bs", "must be 1 byte to 64m, got %d", o.BlockBytes)
	}
	if _, err := ParseMethod(string(o.Method)); err != nil {
		return err
	}
	if o.Phases != nil && o.Method == All {
		return result.Usagef("--method", "all probes what works on each host, and the ranks must copy alike; give one method across ranks")
	}
	if _, err := ParseBuffer(string(o.Buffer)); err != nil {
		return err
	}
	switch o.Sync {
	case SyncFile, SyncNone:
	case SyncFS:
		if runtime.GOOS == "windows" {
			return result.Usagef("--syncfs", "there is no syncfs on windows; leave it out to fsync each copy")
		}
	default:
		return result.Usagef("--syncfs", "sync mode %q is not file, fs or none", o.Sync)
	}
	seen := map[string]bool{}
	for _, s := range o.Sets {
		switch {
		case s.FileBytes < 1 || s.FileBytes > MaxFileBytes:
			return result.Usagef("--set", "%s: file size must be 1 byte to 1t", s.Name())
		case s.Files < 1 || s.Files > MaxFiles:
			return result.Usagef("--set", "%s: file count must be 1 to %d", s.Name(), MaxFiles)
		case seen[s.Name()]:
			return result.Usagef("--set", "%s is given twice", s.Name())
		}
		seen[s.Name()] = true
	}
	return nil
}

// methods lists the single methods the options ask for.
func (o *Options) methods() []Method {
	if o.Method == All {
		return Methods
	}
	return []Method{o.Method}
}

func (o *Options) config() result.CopyConfig {
	c := result.CopyConfig{Dir: o.Dir, To: o.To, Dirs: o.Dirs, Method: string(o.Method), BlockBytes: o.BlockBytes,
		Buffer: string(o.Buffer), Sync: string(o.Sync), Seed: o.Seed}
	for _, s := range o.Sets {
		c.Sets = append(c.Sets, result.CopySetSpec{Name: s.Name(), FileBytes: s.FileBytes, Files: s.Files})
	}
	return c
}

// String is the options as clyde copy's flags.
func (o *Options) String() string {
	var b strings.Builder
	b.WriteString("-d " + o.Dir)
	if o.To != "" {
		b.WriteString(" --to " + o.To)
	}
	b.WriteString(" --set " + SetSpec(o.Sets) + " --method " + string(o.Method))
	return b.String()
}
