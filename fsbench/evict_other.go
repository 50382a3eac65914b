//go:build !linux

package fsbench

import (
	"runtime"

	"github.com/clydebench/clyde/result"
)

// evictPageCache is not available here: the result records that reads may
// have come from the page cache.
func evictPageCache(_ string, fileBytes int64) result.CacheState {
	return result.CacheState{FileBytes: fileBytes, ResidentBytes: -1,
		Error: "page-cache eviction is not supported on " + runtime.GOOS}
}
