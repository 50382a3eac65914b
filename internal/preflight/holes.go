package preflight

import (
	"errors"
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/admit"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// Holes is the rule on reading an existing target whose holes or reserved
// but never-written extents (fallocate) the filesystem answers with zeros
// from memory: an ORION run on a `fallocate -l 1G` LUN printed 37984 MB/s
// and 2.85 us, measuring nothing. A loop device is held to the same rule
// through its backing file (Device): ORION on a loop device over a sparse
// image printed 4.2 GB/s of holes. Allow (--allow-sparse) measures the
// target as it is, and the result says how much of it was so; where the
// platform cannot tell, the result says it was not checked. The engine
// decides which targets the rule applies to (block: an existing target
// read before anything writes it).
type Holes struct {
	// Given is the target as the user named it; Size the bytes of it the
	// run reads.
	Given string
	Size  int64
	Allow bool
}

// HoleReport is what the check has to say besides a refusal: a note for
// the result, and a warning to print as well (the note's text too).
type HoleReport struct {
	Note, Warning string
}

// File applies the rule to the first Size bytes of f, the target itself.
func (h Holes) File(f osio.File) (HoleReport, error) {
	n, err := osio.Unbacked(f, h.Size)
	return h.rule(n, err, fmt.Sprintf("%s's %s", h.Given, humanize.IBytes(uint64(h.Size))))
}

// Device applies the rule to the device at resolved where its data ends
// in a loop device's backing file (admit.LoopsUnder): the nearest such
// file where the device's place in it is known (the loop device itself, a
// partition of it), over the stretch of it the device shows. A device on
// no loop has no holes. The backing file is opened read-only and held to
// the identity the kernel gave for it.
func (h Holes) Device(resolved string) (HoleReport, error) {
	loops, err := admit.LoopsUnder(resolved)
	if err != nil {
		return HoleReport{Note: fmt.Sprintf("%s could not be followed to what holds its data to check it for holes: %v", h.Given, err)}, nil
	}
	for _, l := range loops {
		if l.File && l.At >= 0 {
			return h.loop(l)
		}
	}
	return HoleReport{}, nil
}

// loop applies the rule to the stretch of l's backing file the device
// shows.
func (h Holes) loop(l admit.StackLoop) (HoleReport, error) {
	f, _, err := safepath.Open(l.Backing, osio.ReadOnly, safepath.Regular)
	if err != nil {
		return HoleReport{Note: fmt.Sprintf("%s's backing file %s (of %s) could not be opened to check it for holes: %v", h.Given, l.Backing, l.Device, err)}, nil
	}
	defer f.Close()
	if e, err := f.Stat(); err != nil || e.ID.Dev != l.BackingDev || e.ID.Ino != l.BackingIno {
		return HoleReport{Note: fmt.Sprintf("%s's backing file %s (of %s) is not the file at that path any more, so it was not checked for holes", h.Given, l.Backing, l.Device)}, nil
	}
	size := h.Size
	if l.SizeLimit > 0 {
		size = min(size, l.SizeLimit-l.At)
	}
	n, err := osio.UnbackedRange(f, l.Offset+l.At, size)
	return h.rule(n, err, fmt.Sprintf("the %s of %s's backing file %s that %s shows", humanize.IBytes(uint64(size)), l.Device, l.Backing, h.Given))
}

// rule is the one decision on n bytes of of that a read would get from
// memory (err: they could not be counted): none, noted, or refused.
func (h Holes) rule(n int64, err error, of string) (HoleReport, error) {
	switch {
	case errors.Is(err, result.ErrNotSupported):
		return HoleReport{Note: fmt.Sprintf("%s was not checked for holes and unwritten extents: %v", h.Given, err)}, nil
	case err != nil:
		return HoleReport{Note: fmt.Sprintf("%s could not be checked for holes and unwritten extents: %v", h.Given, err)}, nil
	case n == 0:
		return HoleReport{}, nil
	}
	what := fmt.Sprintf("%s of %s are holes or extents never written (fallocate), which reads get as zeros from memory, not from the device",
		humanize.IBytes(uint64(n)), of)
	if h.Allow {
		return HoleReport{Warning: what + "; measured as it is (--allow-sparse)"}, nil
	}
	return HoleReport{}, &result.UsageError{Msg: fmt.Sprintf("%s; fill it first (clyde block --filename %s --rw write --bs 1m --size %d --destroy-data), or give --allow-sparse to measure it as it is",
		what, h.Given, h.Size)}
}
