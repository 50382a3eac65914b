package blocktarget

import (
	"errors"
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// Access is what a workload does on a target that its sector size may
// refuse: whether it is uncached, its offset, and its block sizes
// (SizesMultipleOf: every size is a multiple of n; SizesText names them).
type Access struct {
	Direct          bool
	Offset          int64
	SizesMultipleOf func(n int64) bool
	SizesText       func() string
}

// CheckAlign holds an uncached workload (and on Windows every workload on a
// raw disk) to the target's sector size where the platform reads it, so a
// block size or offset Windows would refuse with ERROR_INVALID_PARAMETER
// is a usage error before anything is created; on Linux O_DIRECT is held to
// the same rule, read from statx(STATX_DIOALIGN) or the device's logical
// block size, so a misaligned job is refused instead of failing with EINVAL
// after the writes began. Elsewhere the job's own DirectAlign is the rule.
func (t *Target) CheckAlign(a Access) error {
	if t.Diskless || (!a.Direct && !(t.Device && rawDiskAligned)) {
		return nil
	}
	if !t.sectorsRead {
		p := t.Resolved
		if !t.Exists {
			p = t.DirPath
		}
		t.sectors, t.sectorsErr = osio.SectorSize(p)
		t.sectorsRead = true
	}
	if errors.Is(t.sectorsErr, result.ErrNotSupported) {
		return nil
	}
	si := t.sectors // unknown when it could not be read: 4 KiB then
	req := si.Required()
	switch {
	case !a.SizesMultipleOf(req):
		return result.Usagef("--bs", "%s is not a multiple of the sector size of %s, %s, which uncached I/O needs", a.SizesText(), t.Given, si)
	case a.Offset%req != 0:
		return result.Usagef("--offset", "%d is not a multiple of the sector size of %s, %s, which uncached I/O needs", a.Offset, t.Given, si)
	case si.BufferAlign() > osio.BufferAlign:
		return result.Usagef("--direct", "the sector size of %s, %s, is larger than the %d-byte buffer alignment clyde keeps",
			t.Given, si, osio.BufferAlign)
	}
	return nil
}

// cachePath is where the target's filesystem is asked about: the target,
// or the directory a new file will be made in.
func (t *Target) cachePath() string {
	if t.Exists {
		return t.Resolved
	}
	return t.DirPath
}

// CheckUncached refuses a target an uncached run would still measure the
// page cache on (unless allowCached: DirectCacheNote notes it instead),
// and an existing file whose filesystem refuses O_DIRECT opens.
func (t *Target) CheckUncached(allowCached bool) error {
	if t.Diskless {
		return nil
	}
	path := t.cachePath()
	what, err := pagecache.CachedOnly(path)
	if err != nil {
		return result.Usagef("--filename", "cannot tell whether %s can bypass the page cache: %v", path, err)
	}
	if what != "" && !allowCached {
		return result.Usagef("--buffered", "%s is on %s, so unbuffered I/O cannot be measured there; give a path on a disk filesystem, add --buffered to measure it through the cache, or --allow-cached to run it uncached anyway with the result saying the figures are the cache's",
			t.Given, what)
	}
	if t.Exists && !t.Device {
		// A read-only open changes nothing.
		f, _, err := safepath.Open(t.Resolved, osio.ReadOnly|osio.Direct, safepath.Regular)
		if err != nil {
			return RefusedDirect(t.Given, err)
		}
		f.Close()
	}
	return nil
}

// DirectCacheNote says, for the first direct=1 workload (job) on a target
// whose O_DIRECT I/O a page cache serves anyway (pagecache.CachedOnly:
// tmpfs, ramfs, FUSE, ext4 data=journal, a loop device the host reads its
// backing file for through its cache), that the figures of the direct jobs
// there are the cache's: the kernel accepts such opens without a word, and
// the result would otherwise say direct=1 beside memory speeds. allowed
// (--allow-cached) says the user asked to measure it so. Asked once per
// target; what it said stays in CacheNote.
func (t *Target) DirectCacheNote(job string, allowed bool) string {
	if t.Diskless || t.cacheRead {
		return ""
	}
	t.cacheRead = true
	what, err := pagecache.CachedOnly(t.cachePath())
	switch {
	case err != nil:
		return fmt.Sprintf("direct=1 on %s: cannot tell whether O_DIRECT bypasses the page cache there (%v)", t.Given, err)
	case what != "":
		t.CacheNote = fmt.Sprintf("direct=1 on %s (job %s and every direct job on it), but it is on %s: the page cache served the I/O, so the figures are the cache's, not the drive's",
			t.Given, job, what)
		if allowed {
			t.CacheNote += " (--allow-cached: measured so as asked)"
		}
		return t.CacheNote
	}
	return ""
}

// Invalidate drops the cached pages of the target for job (fio's
// invalidate) and returns a note when its pages stayed (tmpfs keeps them)
// or could not be checked. A block device is not invalidated: fio flushes
// its buffers with an ioctl clyde does not issue; a note says so. A target
// that is not open has nothing to drop.
func (t *Target) Invalidate(job string) []string {
	if !t.File.Valid() {
		return nil
	}
	if t.Device {
		return []string{fmt.Sprintf("job %s: invalidate: the page cache of block device %s is not dropped; give direct=1 for reads from the device", job, t.Resolved)}
	}
	st := osio.EvictPageCache(t.File, t.Size)
	switch {
	case st.Error != "":
		return []string{fmt.Sprintf("job %s: invalidate %s: %s", job, t.Resolved, st.Error)}
	case !st.Cold:
		return []string{fmt.Sprintf("job %s: invalidate: %d of %d bytes of %s stayed in the page cache (tmpfs keeps them), so buffered reads are from memory",
			job, st.ResidentBytes, st.FileBytes, t.Resolved)}
	}
	return nil
}
