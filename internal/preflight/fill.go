package preflight

import (
	"math"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// Fill is a level of use to fill the filesystem under test to before a run
// (CrystalDiskMark on an empty drive, then on one with 200 GB in use): a
// percentage of its size, or a size in use. The zero value fills nothing.
type Fill struct {
	// Pct is the share of the filesystem's size to have in use (0 < Pct <
	// 100); Bytes the bytes in use. One of them is set.
	Pct   float64
	Bytes int64
	// Request is what the user typed, for the result.
	Request string
}

// Set says whether a fill was asked for.
func (f Fill) Set() bool { return f.Pct > 0 || f.Bytes > 0 }

// ParseFill reads --fill: "50%" of the filesystem, or a size in use such
// as "200g".
func ParseFill(s string) (Fill, error) {
	s = strings.TrimSpace(s)
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || !(v > 0 && v < 100) {
			return Fill{}, result.Usagef("--fill", "%q: want a percentage above 0 and below 100, such as 50%%, or a size in use such as 200g", s)
		}
		return Fill{Pct: v, Request: s}, nil
	}
	n, err := units.Parse(s, units.Bytes)
	if err != nil || n <= 0 {
		return Fill{}, result.Usagef("--fill", "%q: want a percentage such as 50%% or a size in use such as 200g", s)
	}
	return Fill{Bytes: n, Request: s}, nil
}

// Target is the bytes in use the level means on a filesystem of s.
func (f Fill) Target(s FS) uint64 {
	if f.Pct > 0 {
		return uint64(math.Ceil(float64(s.TotalBytes) * f.Pct / 100))
	}
	return uint64(f.Bytes)
}

// Missing is what is to be written to bring s to the level: nothing when
// it is there already.
func (f Fill) Missing(s FS) uint64 {
	want, used := f.Target(s), s.UsedBytes()
	if !f.Set() || want <= used {
		return 0
	}
	return want - used
}

// FillMargin is left free beyond a fill and the files a run creates: the
// filesystem's own metadata for them.
const FillMargin = 16 << 20

// CheckRoom refuses, as a usage error naming flag, a fill of the
// filesystem s of dir that leaves no room for the run's own files (need
// bytes) and FillMargin.
func (f Fill) CheckRoom(s FS, dir string, need uint64, flag string) error {
	fill := f.Missing(s)
	if fill+need+FillMargin > s.AvailBytes {
		return result.Usagef(flag, "%s of %s means %s in use, %s more than now; with the test files (%s) and %s to spare that is more than the %s free",
			f.Request, dir, humanize.IBytes(f.Target(s)), humanize.IBytes(fill), humanize.IBytes(need),
			humanize.IBytes(FillMargin), humanize.IBytes(s.AvailBytes))
	}
	return nil
}

// Needs is what a run's new files occupy, directory by directory, in the
// order the directories were first named.
type Needs struct {
	// PerDir is counted once in each directory: a private run directory
	// and its marker.
	PerDir Need
	dirs   []string
	need   map[string]*Need
}

// Add counts n in dir.
func (ns *Needs) Add(dir string, n Need) {
	if ns.need == nil {
		ns.need = map[string]*Need{}
	}
	have := ns.need[dir]
	if have == nil {
		have = &Need{Bytes: ns.PerDir.Bytes, Inodes: ns.PerDir.Inodes}
		ns.need[dir] = have
		ns.dirs = append(ns.dirs, dir)
	}
	have.Bytes += n.Bytes
	have.Inodes += n.Inodes
}

// Check refuses the first directory whose filesystem has not the room
// (Space), what naming what needs it.
func (ns *Needs) Check(what string, advice Advice) error {
	for _, d := range ns.dirs {
		if err := Space(d, what, d, *ns.need[d], advice); err != nil {
			return err
		}
	}
	return nil
}
