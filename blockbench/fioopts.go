package blockbench

import (
	"crypto/rand"
	"encoding/binary"

	"github.com/clydebench/clyde/internal/osio"
)

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
