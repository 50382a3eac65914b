package fiojob

import (
	"fmt"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// Engine reads fio's ioengine names, in a job file or clyde block's
// --ioengine. psync, io_uring, windowsaio and auto are clyde's own.
// libaio, fio's other queueing engine (KDiskMark's), runs as the queueing
// engine this platform has (io_uring on Linux, windowsaio on Windows),
// which keeps the same depth in flight (a job file's buffered libaio runs
// as psync: see resolveEngine); sync, vsync, pvsync and pvsync2, one I/O
// at a time per worker, run as psync. A substitution comes back as a note
// to record and print; any other engine, and libaio where no queueing
// engine exists, is refused.
func Engine(flag, name string) (blockbench.Engine, string, error) {
	switch name {
	case "psync", "io_uring", "windowsaio", "auto":
		return blockbench.Engine(name), "", nil
	case "libaio":
		if e, ok := blockbench.QueueingEngine(); ok {
			return e, fmt.Sprintf("ioengine libaio: clyde has no libaio engine; ran %s, which keeps the same queue depth in flight", e), nil
		}
		return "", "", result.Usagef(flag, "libaio: clyde has no libaio engine, and no queueing engine to run in its place here")
	case "sync", "vsync", "pvsync", "pvsync2":
		return blockbench.EnginePsync, fmt.Sprintf("ioengine %s: ran psync, one pread/pwrite per I/O, as %s issues one I/O at a time", name, name), nil
	}
	return "", "", result.Usagef(flag, "unknown engine %q; accepted: psync, io_uring, windowsaio, auto, and fio's libaio (runs the queueing engine) and sync, vsync, pvsync, pvsync2 (run psync)", name)
}
