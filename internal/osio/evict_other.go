//go:build !linux && !windows

package osio

import (
	"runtime"

	"github.com/clydebench/clyde/result"
)

// EvictSupported says whether EvictPageCache can drop a file's cached pages
// here; without it, only a file over twice the RAM reads cold.
const EvictSupported = false

// EvictPageCache is not available here: the result records that reads may
// have come from the page cache.
func EvictPageCache(_ File, fileBytes int64) result.CacheState {
	return result.CacheState{FileBytes: fileBytes, ResidentBytes: -1,
		Error: "page-cache eviction is not supported on " + runtime.GOOS}
}

// EvictFile is EvictPageCache for the file name in d.
func EvictFile(_ Dir, _ []byte, fileBytes int64) result.CacheState {
	return EvictPageCache(NoFile, fileBytes)
}
