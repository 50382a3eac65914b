package copybench

import (
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/preflight"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// Need is what one side of a run occupies at its peak.
type Need = preflight.Need

// blockRound is the allocation unit assumed per file: what most
// filesystems allocate at least.
const blockRound = 4096

// setNeed is one set's sources, or its copies: each file rounded up to a
// 4 KiB block, plus its directories.
func (o *Options) setNeed(s Set) Need {
	perFile := (uint64(s.FileBytes) + blockRound - 1) &^ (blockRound - 1)
	dirs := uint64(min(o.Dirs, s.Files)) + 1
	return Need{Bytes: perFile*uint64(s.Files) + dirs*blockRound, Inodes: uint64(s.Files) + dirs}
}

// Needs is the peak of each side: one set's sources and the copies of one
// method at a time (the copies are removed before the next method, the
// sources before the next set), plus the private directory, its marker and
// the probe files. Without To both live on the source side.
func (o *Options) Needs() (src, dst Need) {
	const overhead = 4 * blockRound
	for _, s := range o.Sets {
		n := o.setNeed(s)
		src.Bytes, src.Inodes = max(src.Bytes, n.Bytes), max(src.Inodes, n.Inodes)
	}
	dst = src
	src.Bytes, src.Inodes = src.Bytes+overhead, src.Inodes+4
	dst.Bytes, dst.Inodes = dst.Bytes+overhead, dst.Inodes+4
	if n := uint64(o.Sharers); n > 1 {
		src.Bytes, src.Inodes, dst.Bytes, dst.Inodes = src.Bytes*n, src.Inodes*n, dst.Bytes*n, dst.Inodes*n
	}
	if o.To == "" {
		return Need{Bytes: src.Bytes + dst.Bytes, Inodes: src.Inodes + dst.Inodes}, Need{}
	}
	return src, dst
}

// Preflight checks, before anything is written, that Dir (and To) exist, are
// writable directories and are not the same directory, and that each
// filesystem has room and inodes for its side of the run.
func Preflight(o *Options) error {
	if err := preflight.Dir("-d", o.Dir); err != nil {
		return err
	}
	src, dst := o.Needs()
	if o.To == "" {
		return checkSpace("-d", o.Dir, src)
	}
	if err := preflight.Dir("--to", o.To); err != nil {
		return err
	}
	a, errA := dirIdentity(o.Dir)
	b, errB := dirIdentity(o.To)
	if errA == nil && errB == nil {
		if a == b {
			return result.Usagef("--to", "%s is the same directory as -d %s; leave --to out to copy within one directory", o.To, o.Dir)
		}
		if a.Dev == b.Dev && a.Dev != 0 {
			// One filesystem holds both sides.
			return checkSpace("--to", o.To, Need{Bytes: src.Bytes + dst.Bytes, Inodes: src.Inodes + dst.Inodes})
		}
	}
	if err := checkSpace("-d", o.Dir, src); err != nil {
		return err
	}
	return checkSpace("--to", o.To, dst)
}

func dirIdentity(path string) (osio.Identity, error) {
	d, err := safepath.OpenDir(path)
	if err != nil {
		return osio.Identity{}, err
	}
	defer d.Close()
	return d.Identity()
}

func checkSpace(flag, dir string, need Need) error {
	return preflight.Space(dir, "the copy", dir+" ("+flag+")", need,
		preflight.Advice{Space: "use smaller --set sizes or counts", Inodes: "use smaller --set counts"})
}
