package fsbench

import (
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/preflight"
	"github.com/clydebench/clyde/result"
)

// Need is what a run will occupy at its peak.
type Need = preflight.Need

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
	if err := preflight.Dir("-d", o.Dir); err != nil {
		return err
	}
	if o.Direct {
		// Windows holds uncached I/O to the volume's sector size, and
		// Linux's O_DIRECT to the alignment statx or the device gives
		// (elsewhere SectorSize is not read).
		if si, err := osio.SectorSize(o.Dir); err == nil {
			if err := si.CheckDirectAlign(int64(o.ChunkBytes), 0); err != nil {
				return result.Usagef("-D", "uncached I/O in %s: chunk %v; use -s size:%d or a multiple of it", o.Dir, err, si.Required())
			}
		}
	}
	return preflight.Space(o.Dir, "the run", o.Dir, o.Needs(),
		preflight.Advice{Space: "use a smaller -s or -n", Inodes: "use a smaller -n"})
}
