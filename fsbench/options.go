// Package fsbench is the bonnie++ suite as a library: per-char and block
// sequential output and input, rewrite, random seeks, and sequential and random
// create, stat(+read) and delete of many small files.
//
// It keeps bonnie++ 2.00a's algorithms, order, syscalls and fsync placement,
// so its figures stand beside bonnie++'s, and fixes bonnie++'s known bugs:
// CPU is one process-wide reading per phase, -c runs real concurrent copies,
// -D and -b apply to every phase, file rates are rates, directories are filled
// evenly, and read phases start from an evicted page cache where the OS allows.
package fsbench

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// Defaults and limits, from bonnie++ 2.00a's bonnie.h.
const (
	DefaultChunkBytes   = 8192
	DefaultSeeks        = 8192
	DefaultSeekProcs    = 5
	DefaultFilesK       = 16
	DefaultDirs         = 1
	DefaultFileChunk    = 8192
	DefaultByteIOMiB    = 3
	DefaultMinSizeMiB   = 300
	MaxSeekProcs        = 1024
	MaxDirs             = 99999
	MaxFilesK           = 1 << 20
	MaxFileBytes        = 1 << 30
	MaxConcurrency      = 200
	MaxSeekLanes        = 1024    // copies x seek workers: each is an OS thread and a 264 KiB histogram
	MaxSizeMiB          = 1 << 33 // 8 PiB: sizes in bytes stay far from int64's end
	DirectAlign         = 4096
	UpdateSeekEvery     = 10 // one seek ticket in ten writes the block back
	bytesPerFileInMem   = 37 // bonnie++'s MaxDataPerFile, used for its RAM rule
	LinkHard            = -1
	LinkSymbolic        = -2
	DefaultCompatString = "clyde"
)

// Options is everything clyde fs can be told. The zero value is not valid;
// start from DefaultOptions. Field comments name the bonnie++ flag.
type Options struct {
	// Dir (-d) is where clyde makes its one private directory.
	Dir string
	// SizeMiB (-s) is the big file's size per copy; 0 skips the IO tests and
	// SizeAuto picks bonnie++'s default from RAM.
	SizeMiB int64
	// ChunkBytes (-s :chunk) is the block size of the IO tests.
	ChunkBytes int
	// Seeks and SeekProcs (-s ::seeks:procs) shape the random seek test.
	Seeks     int
	SeekProcs int
	// ByteIOMiB (-f N) is how much the per-char tests move; 0 (-f) skips them.
	ByteIOMiB int64
	// FilesK (-n) is the number of small files in units of 1024; 0 skips.
	FilesK int
	// MaxFileBytes and MinFileBytes bound the small files' sizes; MaxFileBytes
	// LinkHard or LinkSymbolic makes links to one empty file instead.
	MaxFileBytes int64
	MinFileBytes int64
	// Dirs spreads the small files over this many directories.
	Dirs int
	// FileChunk is the write and read size for the small files.
	FileChunk int
	// MachineName (-m) labels the results; it may not contain a comma.
	MachineName string
	// RAMMiB (-r) is the RAM the 2xRAM rule uses: RAMDetect detects it
	// (min of physical RAM and the cgroup limit), 0 disables the rule.
	RAMMiB int64
	// Iterations (-x) repeats the suite.
	Iterations int
	// SyncWrites (-b) fsyncs after every write, create and delete.
	SyncWrites bool
	// Direct (-D) opens the big file with O_DIRECT in every block phase.
	Direct bool
	// Seed (-z) seeds glibc-compatible rand(); SeedSet says it was given.
	Seed    uint32
	SeedSet bool
	// seedDrawn says Resolve drew the seed: nobody asked for bonnie++'s
	// exact random visit order, so the file tests use one that costs no
	// memory per file (nameSet.shuffle).
	seedDrawn bool
	// SeedNumbers (-Z) replace rand() with a list of numbers, cycled, as
	// bonnie++ -Z FILE does (ReadSeedFile reads one); SeedFile names the
	// file for the reports, where bonnie++ puts it in place of the seed.
	SeedNumbers []int32
	SeedFile    string
	// Concurrency (-c) runs this many copies of every test at once.
	Concurrency int
	// RandomData writes incompressible data instead of bonnie++'s near-zero blocks.
	RandomData bool
	// NoEvict skips dropping the big file from the page cache before reads.
	NoEvict bool
	// Progress receives bonnie++'s progress words; nil is silent.
	Progress io.Writer
	// Live shows a live operations line on Progress during long phases
	// (only sensible when Progress is a terminal).
	Live bool
	// Behind, when set, hears (once) of a phase that fell far behind its
	// estimate (behind.go), whether or not Progress is set.
	Behind *Behind
	// calibrating is, for --auto's calibration runs, how long the whole
	// calibration may take: the estimate a phase of it is far behind of.
	calibrating time.Duration
	// fileOnly is for the tests: the read phases drop the files' own
	// pages only, not what they are read through (the stack), as before
	// eviction followed loop devices, so a test can show the difference.
	fileOnly bool
	// CommandLine is recorded in the result's provenance; nil records
	// os.Args.
	CommandLine []string
	// CompatVersion is the version string printed in tables and CSV.
	CompatVersion string
	// Auto records how Auto chose the sizes (AutoChoice.Apply sets it);
	// the result keeps it in its configuration.
	Auto *result.FSAuto
	// Phases, when set, holds every phase until the other ranks of a
	// many-client job are ready and hears each phase's result (phases.go).
	Phases Phases
	// RankShift is mdtest's -N: the stat and delete phases of the file
	// tests use the files of the rank RankShift places on (its names are
	// this rank's, so every rank needs the same seed), so that the
	// client that created a file is not the one whose cache answers.
	// Phases must be a Shifter.
	RankShift int
	// SharedDir is one tree for every rank of a many-client job (mdtest
	// without -u): rank 0 makes the private directory, every worker
	// creates in the same test directories with its own name prefix, and
	// the sequential stat and delete visit a worker's own files by name in
	// index order (a readdir would list every rank's). Phases must be a
	// Sharer.
	SharedDir bool
	// CreationOrder makes the sequential stat and delete visit each
	// worker's files by name in the order they were made, as mdtest does,
	// instead of bonnie++'s readdir order (on ext4 hash order, which
	// scatters the inode table writes of a delete). A shared tree always
	// visits this way.
	CreationOrder bool
	// Stonewall is mdtest's -W for the create phases (result.FSStonewall);
	// 0 creates every file. Across ranks Phases must be a Stonewaller.
	Stonewall time.Duration
}

// Special values of Options fields.
const (
	SizeAuto  int64 = -1
	RAMDetect int64 = -1
)

// DefaultOptions returns bonnie++'s defaults.
func DefaultOptions() Options {
	return Options{
		Dir:           ".",
		SizeMiB:       SizeAuto,
		ChunkBytes:    DefaultChunkBytes,
		Seeks:         DefaultSeeks,
		SeekProcs:     DefaultSeekProcs,
		ByteIOMiB:     DefaultByteIOMiB,
		FilesK:        DefaultFilesK,
		Dirs:          DefaultDirs,
		FileChunk:     DefaultFileChunk,
		RAMMiB:        RAMDetect,
		Iterations:    1,
		Concurrency:   1,
		CompatVersion: DefaultCompatString,
	}
}

// ApplySizeSpec sets the fields -s names, keeping defaults for empty ones.
func (o *Options) ApplySizeSpec(s SizeSpec) {
	o.SizeMiB = s.SizeMiB
	if s.ChunkBytes != 0 {
		o.ChunkBytes = s.ChunkBytes
	}
	if s.Seeks != 0 {
		o.Seeks = s.Seeks
	}
	if s.SeekProcs != 0 {
		o.SeekProcs = s.SeekProcs
	}
}

// ApplyFilesSpec sets the fields -n names, keeping defaults for empty ones.
func (o *Options) ApplyFilesSpec(s FilesSpec) {
	o.FilesK = s.FilesK
	o.MaxFileBytes = s.MaxBytes
	o.MinFileBytes = s.MinBytes
	if s.Dirs != 0 {
		o.Dirs = s.Dirs
	}
	if s.ChunkSize != 0 {
		o.FileChunk = s.ChunkSize
	}
}

// DefaultSizeMiB is bonnie++'s default file size for ramMiB of RAM: at least
// 300 MiB and twice RAM, rounded up to a whole GiB when more than half a GiB
// over one.
func DefaultSizeMiB(ramMiB int64) int64 {
	size := max(int64(DefaultMinSizeMiB), 2*ramMiB)
	if size%1024 > 512 {
		size += 1024 - size%1024
	}
	return size
}

// Detect is how Run fills in what Options leave to be found out: the RAM
// for the size rule (RAMDetect, SizeAuto), the machine name ("" is the host
// name) and the seed (SeedSet false draws one). Tests replace it.
var Detect = Detector{
	RAMMiB: func() int64 {
		ram, err := sysinfo.RAM()
		if err != nil {
			return 0
		}
		return int64(ram.EffectiveMiB())
	},
	Host: sysinfo.Hostname,
	Seed: func() uint32 { return uint32(os.Getpid()) ^ uint32(time.Now().Unix()) },
}

// Detector finds the defaults Options leave open.
type Detector struct {
	// RAMMiB is the effective RAM (the smaller of physical RAM and the
	// cgroup limit), 0 when unknown.
	RAMMiB func() int64
	Host   func() string
	Seed   func() uint32
}

// Resolve fills SizeMiB and RAMMiB from the detected RAM as bonnie++ does
// (at least 300 MiB and twice RAM), the machine name and the seed, and
// clamps ByteIOMiB to the file. Run resolves its options itself; Resolve
// shows what it will run.
func (o *Options) Resolve() {
	if o.RAMMiB == RAMDetect || o.SizeMiB == SizeAuto {
		detected := Detect.RAMMiB()
		if o.RAMMiB == RAMDetect {
			o.RAMMiB = detected
		}
	}
	if o.SizeMiB == SizeAuto {
		o.SizeMiB = DefaultSizeMiB(max(o.RAMMiB, 0))
	}
	o.ByteIOMiB = min(max(o.ByteIOMiB, 0), max(o.SizeMiB, 0))
	if o.CompatVersion == "" {
		o.CompatVersion = DefaultCompatString
	}
	if o.MachineName == "" {
		o.MachineName = Detect.Host()
	}
	if !o.SeedSet && len(o.SeedNumbers) == 0 {
		o.Seed, o.SeedSet, o.seedDrawn = Detect.Seed(), true, true
	}
}

// Validate holds every rule that ties flags together, on the options as
// Resolve would complete them. It never touches the filesystem; Preflight
// does that.
func (o *Options) Validate() error {
	r := *o
	r.Resolve()
	return r.validateResolved()
}

func (o *Options) validateResolved() error {
	switch {
	case o.Dir == "":
		return result.Usagef("-d", "a directory is required")
	case o.SizeMiB < 0:
		return result.Usagef("-s", "size must be 0 or more MiB, or SizeAuto")
	case o.RAMMiB > MaxSizeMiB:
		return result.Usagef("-r", "%d MiB of RAM is more than %d MiB (8 PiB); give the RAM in MiB", o.RAMMiB, int64(MaxSizeMiB))
	case o.SizeMiB > MaxSizeMiB:
		return result.Usagef("-s", "%d MiB is more than the %d MiB (8 PiB) clyde can address; give a smaller size", o.SizeMiB, int64(MaxSizeMiB))
	case o.SizeMiB == 0 && o.FilesK == 0:
		return result.Usagef("-s", "-s 0 and -n 0 together leave nothing to test")
	case o.Stonewall < 0:
		return result.Usagef("--stonewall", "give a time of 0 or more seconds, got %s", o.Stonewall)
	case o.RankShift < 0:
		return result.Usagef("--rank-shift", "the shift must be 0 or more ranks, got %d", o.RankShift)
	case o.ChunkBytes < 256 || o.ChunkBytes > 1<<20 || o.ChunkBytes&(o.ChunkBytes-1) != 0:
		return result.Usagef("-s", "chunk must be a power of two from 256 to 1m, got %d", o.ChunkBytes)
	case o.Seeks < 1:
		return result.Usagef("-s", "seeks must be 1 or more, got %d", o.Seeks)
	case o.SeekProcs < 1 || o.SeekProcs > MaxSeekProcs:
		return result.Usagef("-s", "seek procs must be 1 to %d, got %d", MaxSeekProcs, o.SeekProcs)
	case o.FilesK < 0 || o.FilesK > MaxFilesK:
		return result.Usagef("-n", "num must be 0 to %d (x1024 files), got %d", MaxFilesK, o.FilesK)
	case o.MaxFileBytes < LinkSymbolic || o.MaxFileBytes > MaxFileBytes:
		return result.Usagef("-n", "max must be -2, -1 or 0 to %d bytes, got %d", int64(MaxFileBytes), o.MaxFileBytes)
	case o.MinFileBytes < 0 || (o.MaxFileBytes >= 0 && o.MinFileBytes > o.MaxFileBytes):
		return result.Usagef("-n", "min must be 0 to max (%d), got %d", o.MaxFileBytes, o.MinFileBytes)
	case o.MaxFileBytes < 0 && o.MinFileBytes != 0:
		return result.Usagef("-n", "min must be 0 with links (max -1 or -2)")
	case o.Dirs < 1 || o.Dirs > MaxDirs:
		return result.Usagef("-n", "dirs must be 1 to %d, got %d", MaxDirs, o.Dirs)
	case o.FileChunk < 1 || o.FileChunk > 1<<24:
		return result.Usagef("-n", "file chunk must be 1 byte to 16m, got %d", o.FileChunk)
	case o.Iterations < 1:
		return result.Usagef("-x", "iterations must be 1 or more, got %d", o.Iterations)
	case o.Concurrency < 1 || o.Concurrency > MaxConcurrency:
		return result.Usagef("-c", "concurrency must be 1 to %d, got %d", MaxConcurrency, o.Concurrency)
	case o.RAMMiB < 0:
		return result.Usagef("-r", "RAM must be 0 (no size check) or more MiB, or RAMDetect, got %d", o.RAMMiB)
	case o.ByteIOMiB < 0:
		return result.Usagef("-f", "per-char size must be 0 or more MiB, got %d", o.ByteIOMiB)
	}
	if o.SizeMiB > 0 && o.Concurrency*o.SeekProcs > MaxSeekLanes {
		return result.Usagef("-c", "%d copies x %d seek workers is %d threads, more than %d; lower -c or the procs field of -s",
			o.Concurrency, o.SeekProcs, o.Concurrency*o.SeekProcs, MaxSeekLanes)
	}
	if o.SeedFile != "" && len(o.SeedNumbers) == 0 {
		return result.Usagef("-Z", "%s gave no numbers (read it with ReadSeedFile)", o.SeedFile)
	}
	for _, v := range o.SeedNumbers {
		if v < 0 {
			return result.Usagef("-Z", "numbers must be 0 to 2147483647, as rand() returns; got %d", v)
		}
	}
	for _, c := range o.MachineName {
		if c == ',' || c == '\n' || c == '\r' {
			return result.Usagef("-m", "machine name %q must not contain a comma or line break (it would break the CSV columns)", o.MachineName)
		}
	}
	// bonnie++'s 2x-RAM rule keeps reads out of the page cache by size
	// alone; where the read phases start from an evicted cache (Linux,
	// Windows), reads are cold at any size and the rule would be wrong
	// advice. It holds only where eviction is off or missing.
	if o.SizeMiB > 0 && o.RAMMiB > 0 && (o.NoEvict || !osio.EvictSupported) && o.SizeMiB*int64(o.Concurrency) < 2*o.RAMMiB {
		why := "--no-evict keeps the page cache"
		if !osio.EvictSupported {
			why = "the page cache cannot be dropped on " + runtime.GOOS
		}
		return result.Usagef("-s", "file size %d MiB x %d copies is under twice the RAM (%d MiB) and %s, so reads would come from the page cache; use -s %d or more, or -r to state less RAM",
			o.SizeMiB, o.Concurrency, o.RAMMiB, why, (2*o.RAMMiB+int64(o.Concurrency)-1)/int64(o.Concurrency))
	}
	if o.SizeMiB > 0 && int64(o.Seeks) > 0 && o.SizeMiB*(1<<20)/int64(o.ChunkBytes) < 1 {
		return result.Usagef("-s", "file of %d MiB holds no %d-byte chunk", o.SizeMiB, o.ChunkBytes)
	}
	if o.FilesK > 0 && o.RAMMiB > 0 && int64(o.FilesK)*bytesPerFileInMem*2 > o.RAMMiB<<10 {
		return result.Usagef("-n", "testing %dK files needs more than the %d MiB of RAM; use a smaller num or -r", o.FilesK, o.RAMMiB)
	}
	if o.Direct {
		if !osio.DirectSupported {
			return result.Usagef("-D", "O_DIRECT is not supported on %s", runtime.GOOS)
		}
		if o.ChunkBytes%DirectAlign != 0 {
			return result.Usagef("-D", "with O_DIRECT the chunk must be a multiple of %d bytes, got %d; use -s size:%dk or larger", DirectAlign, o.ChunkBytes, DirectAlign/1024)
		}
	}
	return nil
}

// Files is the number of small files each copy makes.
func (o *Options) Files() int { return o.FilesK * 1024 }

// chunksInFile is how many chunks the big file holds.
func (o *Options) chunksInFile() int64 { return o.SizeMiB * (1 << 20) / int64(o.ChunkBytes) }

// linkMode names the -n max link modes.
func (o *Options) linkMode() string {
	switch o.MaxFileBytes {
	case LinkHard:
		return "link"
	case LinkSymbolic:
		return "symlink"
	}
	return ""
}

func (o *Options) String() string {
	return fmt.Sprintf("-d %s -s %d:%d:%d:%d -n %d:%d:%d:%d:%d -c %d -x %d",
		o.Dir, o.SizeMiB, o.ChunkBytes, o.Seeks, o.SeekProcs,
		o.FilesK, o.MaxFileBytes, o.MinFileBytes, o.Dirs, o.FileChunk, o.Concurrency, o.Iterations)
}
