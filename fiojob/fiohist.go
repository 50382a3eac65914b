package fiojob

import (
	"bufio"
	"strconv"
	"time"

	"github.com/clydebench/clyde/internal/latency"
)

// maxHistLines bounds a worker's histogram log: each line holds fio's
// 1856 buckets (15 KiB in memory), so 4096 lines are 60 MiB.
const maxHistLines = 4096

// histLog is fio's clat histogram log of one worker (stat.c,
// add_clat_sample): per direction, the completion latencies in fio's
// buckets since the direction's last line; a line is taken at the first
// completion log_hist_msec or more after the window began, and the next
// window begins where this one should have ended, as fio's does.
type histLog struct {
	msec      int64
	cum, prev [2][]int64
	started   [2]bool
	lastMs    [2]int64
	lines     []histLine
	truncated bool
}

// histLine is one line: its time, direction, block size and the bucket
// counts of its window.
type histLine struct {
	atMs int64
	dir  int8
	bs   int32
	bins []int64
}

func newHistLog(msec int) *histLog {
	h := &histLog{msec: int64(msec)}
	for d := range 2 {
		h.cum[d] = make([]int64, latency.FioPlatNr)
		h.prev[d] = make([]int64, latency.FioPlatNr)
	}
	return h
}

// reset drops what the ramp counted.
func (h *histLog) reset() {
	for d := range 2 {
		clear(h.cum[d])
		clear(h.prev[d])
	}
	h.started, h.lastMs, h.lines, h.truncated = [2]bool{}, [2]int64{}, h.lines[:0], false
}

// add counts one completion of n bytes with clat ns, at ns since the logs
// began; it allocates only when a window closes, as fio's does.
func (h *histLog) add(dir, n int, clat, atNs int64) {
	h.cum[dir][latency.FioPlatIndex(clat)]++
	elapsed := atNs / int64(time.Millisecond)
	if !h.started[dir] {
		h.started[dir], h.lastMs[dir] = true, elapsed
	}
	window := elapsed - h.lastMs[dir]
	if window < h.msec {
		return
	}
	if len(h.lines) >= maxHistLines {
		h.truncated = true
		return
	}
	bins := make([]int64, latency.FioPlatNr)
	for i, c := range h.cum[dir] {
		bins[i] = c - h.prev[dir][i]
	}
	copy(h.prev[dir], h.cum[dir])
	h.lines = append(h.lines, histLine{atMs: elapsed, dir: int8(dir), bs: int32(n), bins: bins})
	h.lastMs[dir] = elapsed - (window - h.msec)
}

// write writes the lines as fio's flush_hist_samples: "time, direction,
// bs, " and the buckets, 2^coarseness summed into each column; dirs is
// fio's direction of each slot (a trim's 2).
func (h *histLog) write(bw *bufio.Writer, coarseness int, dirs [2]int8) error {
	stride := 1 << coarseness
	var line []byte
	for _, l := range h.lines {
		line = strconv.AppendInt(line[:0], l.atMs, 10)
		line = append(line, ", "...)
		line = strconv.AppendInt(line, int64(dirs[l.dir]), 10)
		line = append(line, ", "...)
		line = strconv.AppendInt(line, int64(l.bs), 10)
		for j := 0; j < len(l.bins); j += stride {
			var sum int64
			for _, c := range l.bins[j:min(j+stride, len(l.bins))] {
				sum += c
			}
			line = append(line, ", "...)
			line = strconv.AppendInt(line, sum, 10)
		}
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return nil
}
