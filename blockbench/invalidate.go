package blockbench

import (
	"fmt"

	"github.com/clydebench/clyde/internal/osio"
)

// invalidate drops the cached pages of the files the group's workloads
// ask it for (fio's invalidate), once per file, before the group starts,
// and returns a note for each file whose pages stayed (tmpfs keeps them)
// or that could not be checked. A block device is not invalidated: fio
// flushes its buffers with an ioctl clyde does not issue; a note says so
// for buffered I/O on one.
func invalidate(ws []*workload) []string {
	var notes []string
	done := map[*target]bool{}
	for _, w := range ws {
		if !w.Invalidate || w.Direct {
			continue
		}
		for _, t := range w.targets() {
			notes = append(notes, invalidateTarget(w, t, done)...)
		}
	}
	return notes
}

// invalidateTarget is invalidate for one target of w (every file of a file
// set or volume), once per target (blocktarget.Target.Invalidate).
func invalidateTarget(w *workload, t *target, done map[*target]bool) []string {
	if done[t] {
		return nil
	}
	done[t] = true
	return t.Invalidate(w.Name)
}

// dropCache is osio.DropCache; a test counts the calls through it.
var dropCache = osio.DropCache

// dropPass drops the file's cached pages at the end of a pass (see
// worker.dropEvery), inside the measured time as fio's reopen is.
func (w *worker) dropPass() {
	if err := dropCache(w.h); err != nil {
		w.fail(fmt.Errorf("invalidate after a pass: %w", err))
	}
	for w.nextDrop <= w.ios[dirRead]+w.ios[dirWrite] {
		w.nextDrop += w.dropEvery
	}
}
