package blockbench

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// FioEngine reads fio's ioengine names. psync, io_uring, windowsaio and
// auto are clyde's own. libaio, fio's other queueing engine (KDiskMark's),
// runs as the queueing engine this platform has (io_uring on Linux,
// windowsaio on Windows), which keeps the same depth in flight; sync, vsync,
// pvsync and pvsync2, one I/O at a time per worker, run as psync. A
// substitution comes back as a note to record and print; any other engine,
// and libaio where no queueing engine exists, is refused.
func FioEngine(flag, name string) (Engine, string, error) {
	switch name {
	case "psync", "io_uring", "windowsaio", "auto":
		return Engine(name), "", nil
	case "libaio":
		for _, e := range engines {
			if e.queues() && e.available() == nil {
				return e.name(), fmt.Sprintf("ioengine libaio: clyde has no libaio engine; ran %s, which keeps the same queue depth in flight", e.name()), nil
			}
		}
		return "", "", result.Usagef(flag, "libaio: clyde has no libaio engine, and no queueing engine to run in its place here")
	case "sync", "vsync", "pvsync", "pvsync2":
		return EnginePsync, fmt.Sprintf("ioengine %s: ran psync, one pread/pwrite per I/O, as %s issues one I/O at a time", name, name), nil
	}
	return "", "", result.Usagef(flag, "unknown engine %q; accepted: psync, io_uring, windowsaio, auto, and fio's libaio (runs the queueing engine) and sync, vsync, pvsync, pvsync2 (run psync)", name)
}

// RandomSeed is a seed for fio's randrepeat=0: a new one each run, recorded
// in the result as randseed so the run can be repeated.
func RandomSeed() uint64 {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return DefaultSeed // crypto/rand does not fail on the platforms Go supports
	}
	return binary.LittleEndian.Uint64(b[:])
}

// LogNames lists the log files the job will write (see the Plan's LogNames);
// nil when the job is refused.
func (j *Job) LogNames() []string {
	if !j.Log.Any() {
		return nil
	}
	p, _, _, err := j.plan()
	if err != nil {
		return nil
	}
	return LogNames(p)
}

// CanAdviseAccess says whether Workload.FadviseHint works on this platform
// (posix_fadvise); a job file's fio default is on only where it does.
const CanAdviseAccess = osio.CanAdviseAccess
