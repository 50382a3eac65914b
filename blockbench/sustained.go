package blockbench

import "time"

// The sustained preset: the write-up's question, whether an SSD keeps its
// performance under a mixed read/write high load for 30 minutes and more.
// 4 KiB random I/O, 70 % reads, 32 in flight, direct, for 30 minutes, with
// the per-second series judged by SNIA's steady-state rule.
const (
	SustainedRW        = RandRW
	SustainedRWMixRead = 70
	SustainedBS        = int64(4 << 10)
	SustainedIODepth   = 32
	SustainedRuntime   = 30 * time.Minute
)

// SustainedJob is NewJob with the sustained preset's settings: what
// `clyde block --profile sustained` runs when no flag changes them.
func SustainedJob(filename string) Job {
	j := NewJob(filename)
	j.Profile = ProfileSustained
	ApplySustained(&j)
	return j
}

// ApplySustained sets the preset's rw mode, mix, block size, depth, runtime
// and O_DIRECT on j (the CLI then lets each flag given override its own).
func ApplySustained(j *Job) {
	j.RW, j.RWMixRead, j.BlockSizes = SustainedRW, SustainedRWMixRead, []int64{SustainedBS}
	j.IODepth, j.Runtime, j.TimeBased, j.Direct = SustainedIODepth, SustainedRuntime, true, true
}
