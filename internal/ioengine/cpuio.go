package ioengine

import (
	"cmp"
	"slices"
	"strconv"
	"time"
	"unsafe"

	"github.com/clydebench/clyde/result"
)

// cpuio is fio's cpuio (engines/cpu.c): no file and no I/O (FIO_DISKLESSIO,
// FIO_NOIO); each unit burns the CPU, and the engine asks for a pause after
// it (fio sets thinktime) so that the worker keeps cpuload percent of one
// CPU busy. cpumode=noop spins for cpuchunks microseconds (fio's
// usec_spin); cpumode=qsort sorts 256 Ki 32-bit numbers four ways, as
// fio's do_qsort does, and takes the time that took as the burn the pause
// is scaled from (fio's qsort sets cpucycle to it after each unit). fio
// counts every unit as a read of 0 bytes and the job runs until its
// runtime ends. exit_on_io_done=1, which ends the job when the I/O jobs of
// the whole run are done, is refused.
var cpuio = &Driver{
	Name:      "cpuio",
	Flags:     FlagDiskless | FlagNoIO,
	Available: func() error { return nil },
	Options:   []string{"cpuload", "cpuchunks", "cpumode", "exit_on_io_done"},
	Open:      openCPUIO,
	Check: func(j Job) error {
		_, err := cpuioOptions(j.Name, j.Options)
		return err
	},
}

func init() { Register(cpuio) }

// cpuioConf is a job's cpuio options: load in percent (1 to 100), chunk
// the burn of a noop unit, qsort the mode.
type cpuioConf struct {
	load  int64
	chunk time.Duration
	qsort bool
}

// cpuioOptions reads cpuio's options as fio's engine takes them: cpuload
// is required (fio: "cpu thread needs rate (cpuload=)") and capped at 100;
// cpuchunks is 50000 microseconds by default; cpumode is noop or qsort.
func cpuioOptions(job string, opts map[string]string) (cpuioConf, error) {
	c := cpuioConf{chunk: 50 * time.Millisecond}
	load, ok := opts["cpuload"]
	if !ok {
		return c, result.Usagef("--cpuload", "job %s: ioengine cpuio needs cpuload=, the percentage of a CPU to keep busy", job)
	}
	n, err := strconv.ParseUint(load, 10, 32)
	if err != nil || n == 0 {
		return c, result.Usagef("--cpuload", "job %s: cpuload=%s: give a percentage from 1 to 100", job, load)
	}
	c.load = min(int64(n), 100)
	if v, ok := opts["cpuchunks"]; ok {
		us, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return c, result.Usagef("--cpuchunks", "job %s: cpuchunks=%s: give the microseconds of one burn", job, v)
		}
		c.chunk = time.Duration(us) * time.Microsecond
	}
	switch m := opts["cpumode"]; m {
	case "", "noop":
	case "qsort":
		c.qsort = true
	default:
		return c, result.Usagef("--cpumode", "job %s: cpumode=%s: give noop or qsort", job, m)
	}
	switch v := opts["exit_on_io_done"]; v {
	case "", "0", "false":
	default:
		return c, result.Usagef("--exit_on_io_done", "job %s: exit_on_io_done=%s is not supported: clyde runs a cpuio job until its runtime ends", job, v)
	}
	return c, nil
}

// qsortNumbers is fio's qsort_size: 256 Ki 32-bit numbers (1 MiB).
const qsortNumbers = 256 << 10

func openCPUIO(c Config) (Engine, error) {
	conf, err := cpuioOptions("", c.Options)
	if err != nil {
		return nil, err
	}
	e := &cpuioEngine{conf: conf, burnt: conf.chunk}
	if conf.qsort {
		// fio's qsort_init: the numbers of a multiply-with-carry generator
		// from a fixed seed.
		e.data = make([]int32, qsortNumbers)
		w, z := uint32(521288629), uint32(362436069)
		for i := range e.data {
			z = 36969*(z&65535) + z>>16
			w = 18000*(w&65535) + w>>16
			e.data[i] = int32(z<<16 + w)
		}
	}
	return e, nil
}

// cpuioEngine burns per unit; burnt is the last unit's burn, which Think
// scales the pause from.
type cpuioEngine struct {
	conf  cpuioConf
	data  []int32
	burnt time.Duration
}

func (e *cpuioEngine) Queue(u *Unit) Status {
	u.N, u.Err = 0, nil
	if u.Op != Read && u.Op != Write {
		return Completed
	}
	start := time.Now()
	if e.conf.qsort {
		e.sortFourWays()
		e.burnt = time.Since(start)
		return Completed
	}
	for time.Since(start) < e.conf.chunk {
	}
	return Completed
}

// sortFourWays is fio's do_qsort: ascending, descending, by signed byte,
// descending again.
func (e *cpuioEngine) sortFourWays() {
	slices.Sort(e.data)
	slices.SortFunc(e.data, descending)
	slices.Sort(unsafe.Slice((*int8)(unsafe.Pointer(&e.data[0])), 4*len(e.data)))
	slices.SortFunc(e.data, descending)
}

func descending(a, b int32) int { return cmp.Compare(b, a) }

// Think is fio's thinktime for cpuio: the burn times (100-load)/load.
func (e *cpuioEngine) Think() time.Duration {
	return e.burnt * time.Duration(100-e.conf.load) / time.Duration(e.conf.load)
}

func (*cpuioEngine) Commit() (int, error)            { return 0, nil }
func (*cpuioEngine) GetEvents(int, int) (int, error) { return 0, nil }
func (*cpuioEngine) Event(int) *Unit                 { return nil }
func (*cpuioEngine) Close() error                    { return nil }
