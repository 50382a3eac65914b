package fsbench

import (
	"fmt"
	"os"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// Need is what a run will occupy at its peak.
type Need struct {
	Bytes  uint64
	Inodes uint64
}

// Needs estimates the peak space and inodes of a run: every copy's big file,
// or every copy's small files (whichever is larger, since the big file is
// removed before the file tests), plus directories.
func (o *Options) Needs() Need {
	copies := uint64(o.Concurrency)
	big := uint64(max(o.SizeMiB, 0)) << 20
	files := uint64(o.Files())
	perFile := uint64(0)
	if o.MaxFileBytes > 0 {
		// Round each file up to a 4 KiB block: what most filesystems allocate.
		perFile = (uint64(o.MaxFileBytes) + 4095) &^ 4095
	}
	small := files * perFile
	dirs := uint64(o.Dirs) + 2
	return Need{
		Bytes:  copies * max(big, small),
		Inodes: copies * (files + dirs + 1),
	}
}

// Preflight checks that opts.Dir exists, is a writable directory and has room
// for the run, before anything is written.
func Preflight(o *Options) error {
	fi, err := os.Stat(o.Dir)
	switch {
	case err != nil:
		return result.Usagef("-d", "%v", err)
	case !fi.IsDir():
		return result.Usagef("-d", "%s is not a directory", o.Dir)
	}
	if err := checkWritable(o.Dir); err != nil {
		return fmt.Errorf("preflight: %s is not writable: %w", o.Dir, err)
	}
	if o.Direct {
		// Windows holds uncached I/O to the volume's sector size, which
		// only the volume can tell (elsewhere SectorSize is not read).
		if si, err := osio.SectorSize(o.Dir); err == nil {
			if err := si.CheckDirectAlign(int64(o.ChunkBytes), 0); err != nil {
				return result.Usagef("-D", "uncached I/O in %s: chunk %v; use -s size:%d or a multiple of it", o.Dir, err, si.Required())
			}
		}
	}
	sp, err := sysinfo.Space(o.Dir)
	if err != nil {
		return nil // no figures: nothing to refuse on
	}
	need := o.Needs()
	if need.Bytes > sp.FreeBytes {
		return fmt.Errorf("preflight: the run needs %s in %s, only %s is free; use a smaller -s or -n",
			humanize.IBytes(need.Bytes), o.Dir, humanize.IBytes(sp.FreeBytes))
	}
	if sp.InodesKnown && need.Inodes > sp.FreeInodes {
		return fmt.Errorf("preflight: the run needs %s inodes in %s, only %s are free; use a smaller -n",
			humanize.Comma(int64(need.Inodes)), o.Dir, humanize.Comma(int64(sp.FreeInodes)))
	}
	return nil
}
