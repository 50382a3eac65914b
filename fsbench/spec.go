package fsbench

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/clydebench/clyde/internal/input"
	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// Suffix tables. bonnie++'s size_from_str multiplies by 2^10, 2^20, 2^30 by
// the suffix's position in a per-field list; clyde accepts the same letters
// plus the spelled-out binary units people type today (512KiB, 2GiB).
var (
	// -s size counts MiB: g and t as bonnie++ (m is what atoi ignored there).
	sizeUnitsMiB = []units.Unit{{Suffix: "m", Mult: 1}, {Suffix: "mib", Mult: 1}, {Suffix: "mb", Mult: 1}, {Suffix: "g", Mult: 1 << 10}, {Suffix: "gib", Mult: 1 << 10}, {Suffix: "gb", Mult: 1 << 10}, {Suffix: "t", Mult: 1 << 20}, {Suffix: "tib", Mult: 1 << 20}, {Suffix: "tb", Mult: 1 << 20}}
	// Byte counts (chunk sizes, file sizes).
	byteUnits = units.Bytes
	// Counts that take k for x1024 (seeks, directories).
	countK = []units.Unit{{Suffix: "k", Mult: 1 << 10}}
	// -n num counts units of 1024 files; m means 1024 of those.
	filesUnits = []units.Unit{{Suffix: "k", Mult: 1}, {Suffix: "m", Mult: 1 << 10}}
)

// parseNumber reads a non-negative whole number with an optional suffix
// from table (internal/units).
func parseNumber(s string, table []units.Unit) (int64, error) { return units.Parse(s, table) }

// SizeSpec is the parsed -s size[:chunk[:seeks[:procs]]] argument.
type SizeSpec struct {
	SizeMiB    int64 // 0 skips the IO tests
	ChunkBytes int   // 0 when not given
	Seeks      int   // 0 when not given
	SeekProcs  int   // 0 when not given
}

const sizeForm = "size[:chunk[:seeks[:procs]]], e.g. 2048, 4g, 2GiB:16k:8192:5 (size in MiB unless a unit is given)"

// ParseSizeSpec parses bonnie++'s -s argument. Empty fields keep defaults
// ("-s 1g::16k" sets only size and seeks).
func ParseSizeSpec(s string) (SizeSpec, error) {
	var spec SizeSpec
	parts := strings.Split(s, ":")
	if len(parts) > 4 {
		return spec, result.Usagef("-s", "too many fields in %q; want %s", s, sizeForm)
	}
	bad := func(what string, err error) error {
		return result.Usagef("-s", "%s: %v; want %s", what, err, sizeForm)
	}
	if parts[0] == "" {
		return spec, bad("size", fmt.Errorf("empty value"))
	}
	n, err := parseNumber(parts[0], sizeUnitsMiB)
	if err != nil {
		return spec, bad("size", err)
	}
	spec.SizeMiB = n
	if len(parts) > 1 && parts[1] != "" {
		n, err := parseNumber(parts[1], byteUnits)
		if err != nil {
			return spec, bad("chunk", err)
		}
		if n < 256 || n > 1<<20 || n&(n-1) != 0 {
			return spec, result.Usagef("-s", "chunk %s must be a power of two from 256 to 1m; want %s", parts[1], sizeForm)
		}
		spec.ChunkBytes = int(n)
	}
	if len(parts) > 2 && parts[2] != "" {
		n, err := parseNumber(parts[2], countK)
		if err != nil {
			return spec, bad("seeks", err)
		}
		if n < 1 || n > 1<<31-1 {
			return spec, result.Usagef("-s", "seeks must be 1 or more; want %s", sizeForm)
		}
		spec.Seeks = int(n)
	}
	if len(parts) > 3 && parts[3] != "" {
		n, err := parseNumber(parts[3], nil)
		if err != nil {
			return spec, bad("seek procs", err)
		}
		if n < 1 || n > MaxSeekProcs {
			return spec, result.Usagef("-s", "seek procs must be 1 to %d; want %s", MaxSeekProcs, sizeForm)
		}
		spec.SeekProcs = int(n)
	}
	return spec, nil
}

// FilesSpec is the parsed -n num[:max[:min[:dirs[:chunk]]]] argument.
type FilesSpec struct {
	FilesK    int   // files in units of 1024; 0 skips the file tests
	MaxBytes  int64 // 0: empty files; -1 hard links; -2 symlinks
	MinBytes  int64
	Dirs      int // 0 when not given
	ChunkSize int // 0 when not given
}

const filesForm = "num[:max[:min[:dirs[:chunk]]]], e.g. 16 or 256:4096:512:16 (num counts 1024 files; max -1 makes hard links, -2 symlinks)"

// ParseFilesSpec parses bonnie++'s -n argument.
func ParseFilesSpec(s string) (FilesSpec, error) {
	var spec FilesSpec
	parts := strings.Split(s, ":")
	if len(parts) > 5 {
		return spec, result.Usagef("-n", "too many fields in %q; want %s", s, filesForm)
	}
	bad := func(what string, err error) error {
		return result.Usagef("-n", "%s: %v; want %s", what, err, filesForm)
	}
	n, err := parseNumber(parts[0], filesUnits)
	if err != nil {
		return spec, bad("num", err)
	}
	if n > MaxFilesK {
		return spec, result.Usagef("-n", "num %s is more than %d (x1024 files); want %s", parts[0], MaxFilesK, filesForm)
	}
	spec.FilesK = int(n)
	if len(parts) > 1 && parts[1] != "" {
		switch parts[1] {
		case "-1":
			spec.MaxBytes = LinkHard
		case "-2":
			spec.MaxBytes = LinkSymbolic
		default:
			n, err := parseNumber(parts[1], byteUnits)
			if err != nil {
				return spec, bad("max", err)
			}
			if n > MaxFileBytes {
				return spec, result.Usagef("-n", "max %s is over %d bytes; want %s", parts[1], int64(MaxFileBytes), filesForm)
			}
			spec.MaxBytes = n
		}
	}
	if len(parts) > 2 && parts[2] != "" {
		n, err := parseNumber(parts[2], byteUnits)
		if err != nil {
			return spec, bad("min", err)
		}
		spec.MinBytes = n
	}
	if spec.MaxBytes >= 0 && spec.MinBytes > spec.MaxBytes {
		return spec, result.Usagef("-n", "min %d is larger than max %d; want %s", spec.MinBytes, spec.MaxBytes, filesForm)
	}
	if spec.MaxBytes < 0 && spec.MinBytes != 0 {
		return spec, result.Usagef("-n", "min must be 0 with links (max -1 or -2); want %s", filesForm)
	}
	if len(parts) > 3 && parts[3] != "" {
		n, err := parseNumber(parts[3], countK)
		if err != nil {
			return spec, bad("dirs", err)
		}
		if n < 1 || n > MaxDirs {
			return spec, result.Usagef("-n", "dirs must be 1 to %d; want %s", MaxDirs, filesForm)
		}
		spec.Dirs = int(n)
	}
	if len(parts) > 4 && parts[4] != "" {
		n, err := parseNumber(parts[4], byteUnits)
		if err != nil {
			return spec, bad("chunk", err)
		}
		if n < 1 || n > 1<<24 {
			return spec, result.Usagef("-n", "chunk must be 1 byte to 16m; want %s", filesForm)
		}
		spec.ChunkSize = int(n)
	}
	return spec, nil
}

// ParseMiB reads a size in MiB, with bonnie++'s g/t suffixes or a unit such
// as 1GiB (for -r).
func ParseMiB(s string) (int64, error) { return parseNumber(s, sizeUnitsMiB) }

// MaxSeedFileBytes is the most of a -Z file clyde reads: 16M numbers, far
// more than a run draws (a -n 1024 run with random names draws about 15M).
const MaxSeedFileBytes = 64 << 20

// ParseSeedNumbers reads the numbers of a bonnie++ -Z file as its Rand class
// does: 4-byte big-endian integers, each made non-negative with abs; bytes
// after the last whole number are ignored. The one value abs cannot make
// non-negative, -2147483648 (C's abs leaves it negative, and bonnie++ then
// indexes out of bounds), counts as 0. A file without one whole number is an
// error: bonnie++ would read past its empty array.
func ParseSeedNumbers(data []byte) ([]int32, error) {
	n := len(data) / 4
	if n == 0 {
		return nil, result.Usagef("-Z", "the file holds %d bytes, not one 4-byte number; want a file of big-endian 32-bit numbers, e.g. head -c 4096 /dev/urandom > seeds", len(data))
	}
	if len(data) > MaxSeedFileBytes {
		return nil, result.Usagef("-Z", "the file holds %d bytes; at most %d (16M numbers) are read", len(data), MaxSeedFileBytes)
	}
	nums := make([]int32, n)
	for i := range nums {
		v := int32(binary.BigEndian.Uint32(data[4*i:]))
		if v < 0 {
			v = -v // -2147483648 stays itself...
		}
		nums[i] = v & 0x7fffffff // ...and becomes 0 here
	}
	return nums, nil
}

// ReadSeedFile reads a -Z file through internal/input: a regular file of at
// most MaxSeedFileBytes (a FIFO or a device is refused without blocking),
// given up at the first ^C (ctx).
func ReadSeedFile(ctx context.Context, path string) ([]int32, error) {
	data, err := input.ReadFile(ctx, path, MaxSeedFileBytes)
	if err != nil {
		if input.IsRefused(err) {
			return nil, result.Usagef("-Z", "%v; want a file of at most %d bytes of big-endian 32-bit numbers", err, MaxSeedFileBytes)
		}
		return nil, result.Usagef("-Z", "%v", err)
	}
	return ParseSeedNumbers(data)
}
