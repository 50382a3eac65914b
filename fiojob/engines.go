package fiojob

import (
	"fmt"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// Engine reads fio's ioengine names, in a job file or clyde block's
// --ioengine. psync, io_uring, libaio, windowsaio and auto are clyde's
// own; null, mmap and posixaio are fio's engines of those names, built as
// fio 3.33 runs them (null opens no file; posixaio is glibc's POSIX AIO
// model rebuilt in Go, and says so in a note of the run), refused where
// they cannot run. Where libaio is not available (it is Linux's), it runs as the
// queueing engine this platform has (windowsaio on Windows), which keeps
// the same depth in flight; sync, vsync, pvsync and pvsync2, one I/O at a
// time per worker, run as psync. A substitution comes back as a note to
// record and print; any other engine, and libaio where no queueing engine
// exists, is refused.
func Engine(flag, name string) (blockbench.Engine, string, error) {
	switch name {
	case "psync", "io_uring", "windowsaio", "auto":
		return blockbench.Engine(name), "", nil
	case "null", "mmap", "posixaio":
		if err := blockbench.EngineAvailable(blockbench.Engine(name)); err != nil {
			return "", "", result.Usagef(flag, "%s: %v", name, err)
		}
		return blockbench.Engine(name), "", nil
	case "libaio":
		err := blockbench.EngineAvailable(blockbench.EngineLibaio)
		if err == nil {
			return blockbench.EngineLibaio, "", nil
		}
		if e, ok := blockbench.QueueingEngine(); ok {
			return e, fmt.Sprintf("ioengine libaio: %v; ran %s, which keeps the same queue depth in flight", err, e), nil
		}
		return "", "", result.Usagef(flag, "libaio: %v, and there is no queueing engine to run in its place here", err)
	case "sync", "vsync", "pvsync", "pvsync2":
		return blockbench.EnginePsync, fmt.Sprintf("ioengine %s: ran psync, one pread/pwrite per I/O, as %s issues one I/O at a time", name, name), nil
	}
	if blockbench.EngineRegistered(blockbench.Engine(name)) {
		// Every other engine built in (falloc, ftruncate, ...) is fio's
		// of that name, taken as registered.
		if err := blockbench.EngineAvailable(blockbench.Engine(name)); err != nil {
			return "", "", result.Usagef(flag, "%s: %v", name, err)
		}
		return blockbench.Engine(name), "", nil
	}
	return "", "", result.Usagef(flag, "unknown engine %q; accepted: psync, io_uring, libaio, windowsaio, auto, null, mmap, posixaio, and fio's sync, vsync, pvsync, pvsync2 (run psync)", name)
}
