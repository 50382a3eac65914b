package copybench

import (
	"errors"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// Set is one group of files copied together and reported as one figure:
// Files files of FileBytes each.
type Set struct {
	FileBytes int64
	Files     int
}

// Limits of a set.
const (
	MaxFileBytes = 1 << 40 // 1 TiB per file
	MaxFiles     = 1_000_000
	MaxSets      = 16
)

// DefaultSets are CopySpdBench's three: one 100M file, 200 files of 512K,
// 1000 files of 4K. Sizes are binary (100 MiB, 512 KiB, 4 KiB), as the
// parser reads "100m": the first two sets then move the same 100 MiB.
func DefaultSets() []Set {
	return []Set{{FileBytes: 100 << 20, Files: 1}, {FileBytes: 512 << 10, Files: 200}, {FileBytes: 4 << 10, Files: 1000}}
}

// DefaultSetSpec is DefaultSets as --set spells it.
const DefaultSetSpec = "100m:1,512k:200,4k:1000"

// Name is the set's label in CopySpdBench's style, "100Mx1", "512Kx200":
// the size in the largest binary unit that divides it, then the count.
func (s Set) Name() string { return sizeLabel(s.FileBytes) + "x" + strconv.Itoa(s.Files) }

// Bytes is what the set copies in all.
func (s Set) Bytes() int64 { return s.FileBytes * int64(s.Files) }

func sizeLabel(n int64) string {
	for _, u := range []struct {
		shift uint
		unit  string
	}{{40, "T"}, {30, "G"}, {20, "M"}, {10, "K"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.unit
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseSets reads --set: a comma list of SIZE:COUNT, such as
// "100m:1,512k:200,4k:1000". Every error is a usage error naming --set.
func ParseSets(s string) ([]Set, error) {
	if strings.TrimSpace(s) == "" {
		return nil, result.Usagef("--set", "empty; give SIZE:COUNT items such as %s", DefaultSetSpec)
	}
	items := strings.Split(s, ",")
	if len(items) > MaxSets {
		return nil, result.Usagef("--set", "%d sets, at most %d", len(items), MaxSets)
	}
	sets := make([]Set, 0, len(items))
	seen := map[string]bool{}
	for _, item := range items {
		item = strings.TrimSpace(item)
		size, count, ok := strings.Cut(item, ":")
		if !ok {
			return nil, result.Usagef("--set", "%q is not SIZE:COUNT (such as 512k:200)", item)
		}
		n, err := ParseSize("--set", size)
		if err != nil {
			return nil, err
		}
		if n == 0 || n > MaxFileBytes {
			return nil, result.Usagef("--set", "%q: file size must be 1 byte to 1t", item)
		}
		c, err := strconv.Atoi(strings.TrimSpace(count))
		if err != nil || c < 1 || c > MaxFiles {
			return nil, result.Usagef("--set", "%q: file count must be a whole number from 1 to %d", item, MaxFiles)
		}
		set := Set{FileBytes: n, Files: c}
		if seen[set.Name()] {
			return nil, result.Usagef("--set", "%s is given twice", set.Name())
		}
		seen[set.Name()] = true
		sets = append(sets, set)
	}
	return sets, nil
}

// SetSpec spells sets as --set reads them.
func SetSpec(sets []Set) string {
	parts := make([]string, len(sets))
	for i, s := range sets {
		parts[i] = strings.ToLower(sizeLabel(s.FileBytes)) + ":" + strconv.Itoa(s.Files)
	}
	return strings.Join(parts, ",")
}

// ParseSize reads a size as fio does with its default kb_base=1024 (and as
// clyde block's --size): a plain number is bytes; k, m, g, t (also KB, KiB,
// MB, MiB, ...) are powers of 1024, case-insensitive. So "100m" is 100 MiB,
// 104,857,600 bytes. flag names the option in the error.
func ParseSize(flag, s string) (int64, error) {
	n, err := units.Parse(strings.TrimSpace(s), units.Bytes)
	switch {
	case errors.Is(err, units.ErrTooLarge):
		return 0, result.Usagef(flag, "%q is too large", s)
	case errors.Is(err, units.ErrUnknownUnit):
		return 0, result.Usagef(flag, "%q has an unknown unit; accepted: k, m, g, t (also KiB, MB, ...), all powers of 1024", s)
	case err != nil:
		return 0, result.Usagef(flag, "%q is not a size; give bytes or a number with k, m, g or t (4k, 100m)", s)
	}
	return n, nil
}
