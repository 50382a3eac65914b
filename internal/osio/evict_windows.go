//go:build windows

package osio

import "github.com/clydebench/clyde/result"

// EvictSupported says whether EvictPageCache can drop a file's cached pages
// here; without it, only a file over twice the RAM reads cold.
const EvictSupported = true

// evictMethod is what the result says of the eviction on Windows.
const evictMethod = "FILE_FLAG_NO_BUFFERING open and close with no cached handle open " +
	"(the cache manager flushes and purges the file's cached data); residency not checked, so cold is unverified"

// EvictFile drops the cached pages of the file name in d by opening it with
// FILE_FLAG_NO_BUFFERING and closing it. The rule relied on is the file
// systems' (the FastFAT sample in the WDK spells it out; NTFS and ReFS do
// the same): when a file is opened for non-cached I/O, no cached handle to
// it is open, and it still has a data section in the cache, the cache
// manager flushes the file's dirty data and purges the section
// (CcFlushCache, CcPurgeCacheSection). So every cached handle must be
// closed first, which the read phases do; a program that has the file
// mapped keeps the pages. Windows has no mincore to count what is still
// resident, so the result says the eviction ran and that coldness is
// unverified.
func EvictFile(d Dir, name []byte, fileBytes int64) result.CacheState {
	st := result.CacheState{FileBytes: fileBytes, ResidentBytes: -1, Method: evictMethod}
	f, err := d.Open(name, ReadOnly|Direct, 0)
	if err != nil {
		st.Error = "open with FILE_FLAG_NO_BUFFERING: " + err.Error()
		return st
	}
	if err := f.Close(); err != nil {
		st.Error = "close: " + err.Error()
		return st
	}
	st.Evicted = true
	return st
}

// EvictPageCache cannot work on a handle already open: the open that
// purges must be the only one. Use EvictFile.
func EvictPageCache(_ File, fileBytes int64) result.CacheState {
	return result.CacheState{FileBytes: fileBytes, ResidentBytes: -1, Method: evictMethod,
		Error: "a cached handle is open; Windows purges a file's cache only on a non-cached open with none open (EvictFile)"}
}
