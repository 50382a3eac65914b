//go:build linux

package sysinfo

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// DiskTarget is an open target whose disk DiskStats looks up: a block
// device by its own number (st_rdev), a file by its filesystem's (st_dev).
type DiskTarget struct {
	Fd     int
	Device bool
}

// DiskSnapshot is /sys/block/*/stat of the disks under a run's targets at
// its start, for fio's disk_util.
type DiskSnapshot struct {
	at    time.Time
	disks []diskStat
}

type diskStat struct {
	name, statPath string
	before         [11]uint64
}

// DiskStats reads the stat file of each target's disk (a partition's
// whole disk, and the disks under a dm or md device too), found through
// the target's own descriptor: st_rdev of a device, st_dev of a file. A
// target on no block device (tmpfs) has none.
func DiskStats(targets []DiskTarget) *DiskSnapshot {
	s := &DiskSnapshot{}
	seen := map[string]bool{}
	for _, t := range targets {
		var st unix.Stat_t
		if unix.Fstat(t.Fd, &st) != nil {
			continue
		}
		dev := st.Dev
		if t.Device {
			dev = st.Rdev
		}
		if unix.Major(dev) == 0 {
			continue // no block device (tmpfs, an anonymous btrfs subvolume device)
		}
		dir, err := filepath.EvalSymlinks("/sys/dev/block/" + strconv.FormatUint(uint64(unix.Major(dev)), 10) + ":" +
			strconv.FormatUint(uint64(unix.Minor(dev)), 10))
		if err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, "partition")); err == nil {
			dir = filepath.Dir(dir)
		}
		s.add(dir, seen)
		slaves, _ := os.ReadDir(filepath.Join(dir, "slaves"))
		for _, e := range slaves {
			if d, err := filepath.EvalSymlinks(filepath.Join(dir, "slaves", e.Name())); err == nil {
				if _, err := os.Stat(filepath.Join(d, "partition")); err == nil {
					d = filepath.Dir(d)
				}
				s.add(d, seen)
			}
		}
	}
	s.at = time.Now()
	return s
}

func (s *DiskSnapshot) add(dir string, seen map[string]bool) {
	if seen[dir] {
		return
	}
	seen[dir] = true
	d := diskStat{name: filepath.Base(dir), statPath: filepath.Join(dir, "stat")}
	var ok bool
	if d.before, ok = readDiskStat(d.statPath); ok {
		s.disks = append(s.disks, d)
	}
}

// readDiskStat reads the first 11 fields of a block device's stat file:
// reads, read merges, sectors, ticks, the same for writes, in flight,
// io_ticks and time_in_queue.
func readDiskStat(path string) ([11]uint64, bool) {
	var v [11]uint64
	b, err := os.ReadFile(path)
	if err != nil {
		return v, false
	}
	f := strings.Fields(string(b))
	if len(f) < len(v) {
		return v, false
	}
	for i := range v {
		if v[i], err = strconv.ParseUint(f[i], 10, 64); err != nil {
			return v, false
		}
	}
	return v, true
}

// Util is fio's disk_util: what each disk did since the snapshot, and the
// share of the time it was busy (io_ticks over the wall time).
func (s *DiskSnapshot) Util() []result.BlockDiskUtil {
	var out []result.BlockDiskUtil
	ms := float64(time.Since(s.at)) / float64(time.Millisecond)
	for _, d := range s.disks {
		now, ok := readDiskStat(d.statPath)
		if !ok {
			continue
		}
		delta := func(i int) int64 { return int64(diff32(now[i], d.before[i])) }
		u := result.BlockDiskUtil{Name: d.name, ReadIOs: delta(0), ReadMerges: delta(1), ReadTicks: delta(3),
			WriteIOs: delta(4), WriteMerges: delta(5), WriteTicks: delta(7), InQueue: delta(10)}
		if ms > 0 {
			u.Util = min(100, float64(delta(9))*100/ms)
		}
		out = append(out, u)
	}
	return out
}

// diff32 is now-before for counters the kernel prints as 32-bit numbers
// that may have wrapped once in between, as fio's safe_32bit_diff.
func diff32(now, before uint64) uint64 {
	if before <= now || before >= 1<<32 {
		return now - before
	}
	return 1<<32 + now - before
}
