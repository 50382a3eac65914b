package pagecache

import (
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/result"
)

// Dropped is what Stack.Drop found: the FUSE filesystem's device (nil
// when there is none), each loop device's level, and whether every loop
// level is cold (the device says so for itself).
type Dropped struct {
	Device *result.CacheState
	Stack  []result.CacheLevel
	Cold   bool
}

// Apply records d in st, the state of the files just evicted: a read
// from them is cold only when every level beneath is too.
func (d Dropped) Apply(st *result.CacheState) {
	st.Device, st.Stack = d.Device, d.Stack
	st.Cold = st.Cold && d.Cold && (d.Device == nil || d.Device.Cold)
}

// Explain says why a read that began from st was not cold, "" when it
// was: the first level that kept its data in memory, from the file's own
// pages down. It is the one wording of it, for every output.
func Explain(st result.CacheState) string {
	if st.Cold {
		return ""
	}
	if !FileCold(st) {
		switch {
		case st.Error != "":
			return "the file's pages could not be dropped (" + st.Error + ")"
		case st.ResidentBytes < 0:
			return "what stayed in memory could not be counted"
		}
		return fmt.Sprintf("%s of the %s read stayed in memory after it was dropped", humanize.IBytes(uint64(st.ResidentBytes)), humanize.IBytes(uint64(st.FileBytes)))
	}
	if d := st.Device; d != nil && !d.Cold {
		if d.Error != "" {
			return "the page cache of the block device beneath the FUSE filesystem could not be dropped (" + d.Error + ")"
		}
		return fmt.Sprintf("%s of the block device beneath the FUSE filesystem stayed in its page cache", humanize.IBytes(uint64(max(d.ResidentBytes, 0))))
	}
	for _, l := range st.Stack {
		if !l.Cold {
			return ExplainLevel(l)
		}
	}
	return "it was not found cold"
}

// FileCold is whether the file's own pages were dropped: under 1%
// resident.
func FileCold(st result.CacheState) bool {
	return st.Evicted && st.Error == "" && st.ResidentBytes >= 0 && st.ResidentBytes*100 < st.FileBytes
}

// ExplainLevel says why loop level l was not cold.
func ExplainLevel(l result.CacheLevel) string {
	switch {
	case l.Loop == "":
		return l.Error
	case l.Cached != "" && l.DirectIO:
		return fmt.Sprintf("%s reads its backing file %s (with direct I/O) from %s", l.Loop, l.Backing, l.Cached)
	case l.Cached != "":
		return fmt.Sprintf("%s reads its backing file %s from %s", l.Loop, l.Backing, l.Cached)
	case l.Error != "":
		return fmt.Sprintf("the host's page cache of %s's backing %s could not be dropped (%s)", l.Loop, l.Backing, l.Error)
	}
	return fmt.Sprintf("%s of %s's backing %s stayed in the host's page cache after it was dropped", humanize.IBytes(uint64(max(l.ResidentBytes, 0))), l.Loop, l.Backing)
}
