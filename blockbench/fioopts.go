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

// CanAdviseAccess says whether Workload.FadviseHint works on this platform
// (posix_fadvise); a job file's fio default is on only where it does.
const CanAdviseAccess = osio.CanAdviseAccess

// CheckPlan holds a plan to the rules RunPlan holds it to before it
// creates anything (its workloads, their targets and regions, the room
// for the files it would make), and touches nothing: for a caller that
// must know a plan is runnable before it does anything else (fiojob's
// survey runs fio on the same job file only then). RunPlan checks the
// same again.
func CheckPlan(p Plan) error {
	_, targets, _, err := resolvePlan(&p)
	if err != nil {
		return err
	}
	return preflightNewFiles(&p, targets)
}
