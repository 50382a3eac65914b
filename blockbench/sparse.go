package blockbench

import (
	"errors"
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/admit"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// checkBacked refuses to read an existing file whose holes or reserved but
// never-written extents (fallocate) the filesystem answers with zeros from
// memory: an ORION run on a `fallocate -l 1G` LUN printed 37984 MB/s and 2.85
// us, measuring nothing. A loop device is held to the same rule through its
// backing file (checkLoopBacked): ORION on a loop device over a sparse image
// printed 4.2 GB/s of holes. A file clyde creates is filled before it is
// read, and a run whose first workload writes the target fills it itself.
// allow (--allow-sparse) measures the target as it is, and the result says
// how much of it was so; where the platform cannot tell, the result says it
// was not checked.
func (t *target) checkBacked(allow bool) error {
	if !t.exists || t.diskless || t.created || !t.readFirst || t.size == 0 {
		return nil
	}
	if t.device {
		return t.checkLoopBacked(allow)
	}
	n, err := osio.Unbacked(t.file, t.size)
	return t.backedRule(allow, n, err, fmt.Sprintf("%s's %s", t.given, humanize.IBytes(uint64(t.size))))
}

// checkLoopBacked applies the rule to a device whose data ends in a loop
// device's backing file (admit.LoopsUnder): the nearest such file where the
// device's place in it is known (the loop device itself, a partition of
// it), over the stretch of it the device shows. A device on no loop has no
// holes.
func (t *target) checkLoopBacked(allow bool) error {
	loops, err := admit.LoopsUnder(t.resolved)
	if err != nil {
		t.note(fmt.Sprintf("%s could not be followed to what holds its data to check it for holes: %v", t.given, err))
		return nil
	}
	for _, l := range loops {
		if !l.File || l.At < 0 {
			continue
		}
		f, _, err := safepath.Open(l.Backing, osio.ReadOnly, safepath.Regular)
		if err != nil {
			t.note(fmt.Sprintf("%s's backing file %s (of %s) could not be opened to check it for holes: %v", t.given, l.Backing, l.Device, err))
			return nil
		}
		defer f.Close()
		if e, err := f.Stat(); err != nil || e.ID.Dev != l.BackingDev || e.ID.Ino != l.BackingIno {
			t.note(fmt.Sprintf("%s's backing file %s (of %s) is not the file at that path any more, so it was not checked for holes", t.given, l.Backing, l.Device))
			return nil
		}
		size := t.size
		if l.SizeLimit > 0 {
			size = min(size, l.SizeLimit-l.At)
		}
		n, err := osio.UnbackedRange(f, l.Offset+l.At, size)
		return t.backedRule(allow, n, err, fmt.Sprintf("the %s of %s's backing file %s that %s shows", humanize.IBytes(uint64(size)), l.Device, l.Backing, t.given))
	}
	return nil
}

// backedRule is the one decision on n bytes of of that a read would get
// from memory (err: they could not be counted): none, noted, or refused.
func (t *target) backedRule(allow bool, n int64, err error, of string) error {
	switch {
	case errors.Is(err, result.ErrNotSupported):
		t.note(fmt.Sprintf("%s was not checked for holes and unwritten extents: %v", t.given, err))
		return nil
	case err != nil:
		t.note(fmt.Sprintf("%s could not be checked for holes and unwritten extents: %v", t.given, err))
		return nil
	case n == 0:
		return nil
	}
	what := fmt.Sprintf("%s of %s are holes or extents never written (fallocate), which reads get as zeros from memory, not from the device",
		humanize.IBytes(uint64(n)), of)
	if allow {
		t.warnf("%s; measured as it is (--allow-sparse)", what)
		return nil
	}
	return &result.UsageError{Msg: fmt.Sprintf("%s; fill it first (clyde block --filename %s --rw write --bs 1m --size %d --destroy-data), or give --allow-sparse to measure it as it is",
		what, t.given, t.size)}
}
