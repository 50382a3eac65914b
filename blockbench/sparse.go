package blockbench

import (
	"errors"
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// checkBacked refuses to read an existing file whose holes or reserved but
// never-written extents (fallocate) the filesystem answers with zeros from
// memory: an ORION run on a `fallocate -l 1G` LUN printed 37984 MB/s and 2.85
// us, measuring nothing. A file clyde creates is filled before it is read,
// and a device has no holes; a run whose first workload writes the file
// fills it itself. allow (--allow-sparse) measures the file as it is, and
// the result says how much of it was so; where the platform cannot tell,
// the result says it was not checked.
func (t *target) checkBacked(allow bool) error {
	if !t.exists || t.device || t.diskless || t.created || !t.readFirst || t.size == 0 {
		return nil
	}
	n, err := osio.Unbacked(t.file, t.size)
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
	what := fmt.Sprintf("%s of %s's %s are holes or extents never written (fallocate), which reads get as zeros from memory, not from the device",
		humanize.IBytes(uint64(n)), t.given, humanize.IBytes(uint64(t.size)))
	if allow {
		t.warnf("%s; measured as it is (--allow-sparse)", what)
		return nil
	}
	return &result.UsageError{Msg: fmt.Sprintf("%s; fill it first (clyde block --filename %s --rw write --bs 1m --size %d --destroy-data), or give --allow-sparse to measure it as it is",
		what, t.given, t.size)}
}
