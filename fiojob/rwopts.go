package fiojob

import (
	"strings"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// rw reads fio's rw= (alias readwrite=): the mode, and after a colon the
// sequencer's count, which clyde runs only as 1.
func (j *job) rw(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	mode, run, hasRun := strings.Cut(o.Value, ":")
	if hasRun && run != "1" {
		return result.Usagef(o.Pos, "rw=%s: clyde draws a new offset for every I/O (rw=MODE:%s is not supported)", o.Value, run)
	}
	rw, err := blockbench.ParseRW(mode)
	if err != nil {
		return result.Usagef(o.Pos, "rw=%s: accepted: read, write, randread, randwrite, rw (readwrite), randrw, trim, randtrim, trimwrite, randtrimwrite", o.Value)
	}
	j.w.RW = rw
	return nil
}

// rwNotes say where what clyde runs for the job's rw mode is not what the
// fio the suite compares with (3.33) runs.
func (j *job) rwNotes(w blockbench.Workload) []string {
	var notes []string
	if w.RW == blockbench.RandTrimWrite && w.Offset > 0 {
		notes = append(notes, "job "+j.sec.Name+": rw=randtrimwrite with offset=: fio 3.33 writes each trimmed block at its offset plus offset= again (fixed by axboe/fio#1932, 2025), so its writes land elsewhere or the job ends after its first trim; clyde writes each block where it trimmed it, as fio does since")
	}
	return notes
}
