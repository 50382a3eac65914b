package fsbench

import (
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// bigFileFlags is how a phase opens the big file on this platform.
func bigFileFlags(test result.FSTest, o *Options) osio.Flag {
	return phaseFlags(test, o.Direct, o.SyncWrites, osio.WriteThroughSupported)
}

// phaseFlags is how a phase opens the big file, as a pure function of the
// options so that every platform's tests check the choices:
//
//   - the write phases create it (per-char and block write; the block
//     write removed the per-char one's file first), the rest open it;
//   - -D is uncached I/O (O_DIRECT, F_NOCACHE, FILE_FLAG_NO_BUFFERING) for
//     every block phase, never for the one-byte calls of the per-char
//     phases, which no uncached file accepts;
//   - -b adds write-through (FILE_FLAG_WRITE_THROUGH) to the block phases
//     that write (block write, rewrite, seeks) where the platform has it
//     as an open flag (Windows): each of their writes is followed by a
//     flush anyway, as bonnie++ has it, and write-through makes the write
//     itself reach the device. The per-char write flushes once per chunk of
//     one-byte calls; write-through there would make every byte a device
//     write, thousands of times what -b does elsewhere.
func phaseFlags(test result.FSTest, direct, syncWrites, writeThrough bool) osio.Flag {
	f := osio.ReadWrite
	if test == result.PutChar || test == result.PutBlock {
		f |= osio.Create
	}
	if direct && test != result.PutChar && test != result.GetChar {
		f |= osio.Direct
	}
	switch test {
	case result.PutBlock, result.Rewrite, result.Seeks:
		if syncWrites && writeThrough {
			f |= osio.WriteThrough
		}
	}
	return f
}
