package fsbench

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/result"
)

// directCacheNote is, for -D, the note that the host's page cache serves
// what O_DIRECT asks past in opts.Dir: the rule clyde block --direct
// notes by (pagecache.CachedOnly: tmpfs, a FUSE daemon, ext4
// data=journal, a loop device without direct I/O or over an image in
// memory). "" without -D or where nothing does.
func directCacheNote(o *Options) string {
	if !o.Direct {
		return ""
	}
	what, err := pagecache.CachedOnly(o.Dir)
	switch {
	case err != nil:
		return fmt.Sprintf("-D in %s: cannot tell whether O_DIRECT bypasses the page cache there (%v)", o.Dir, err)
	case what != "":
		return fmt.Sprintf("-D in %s, but it is on %s: the page cache served the block phases' I/O, so their figures are the cache's, not the drive's", o.Dir, what)
	}
	return ""
}

// cacheNote is the run's result.FS.CacheNote: the -D note
// (directCacheNote), or else which read phases were not found cold and
// why (pagecache.Explain: the first level that kept the data in memory),
// "" when every read phase that ran was cold. Where residency cannot be
// counted (Windows) and nothing was found warm, nothing is said: the JSON's
// cache block says it is unverified.
func (r *runner) cacheNote(res *result.FS) string {
	if r.direct != "" || r.opts.NoEvict || !osio.EvictSupported {
		return r.direct
	}
	var tests []string
	why := ""
	for _, run := range res.Runs {
		for t, tr := range run.Tests {
			st := tr.Cache
			if !tr.Ran || st == nil || st.Cold || st.ResidentBytes < 0 && st.Error == "" && st.Stack == nil && st.Device == nil {
				continue
			}
			if why == "" {
				why = pagecache.Explain(*st)
				if mem := r.stack.InMemory(); mem != "" && !pagecache.FileCold(*st) {
					why = "the files are on " + mem
				}
			}
			if name := result.FSTest(t).Name(); !slices.Contains(tests, name) {
				tests = append(tests, name)
			}
		}
	}
	if len(tests) == 0 {
		return ""
	}
	return fmt.Sprintf("the read phases (%s) were not cold: %s; their figures are memory's, not the drive's",
		strings.Join(tests, ", "), why)
}
