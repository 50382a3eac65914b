// Package limits checks what a run needs (memory, OS threads, open files)
// against every limit the kernel will hold the process to, before anything
// is created: the memory this process may use (physical RAM or a cgroup's
// memory.max / memory.limit_in_bytes), RLIMIT_AS, the cgroup's pids.max,
// RLIMIT_NPROC and RLIMIT_NOFILE. Going over any of them later is not an
// error Go can return: the runtime dies with a stack dump ("out of memory",
// "pthread_create failed", "netpollinit failed"), or the kernel's OOM killer
// ends the run, and the test file stays behind. Checked first, it is one
// line and nothing to clean up.
package limits

import (
	"fmt"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/internal/limits/floor"
	"github.com/clydebench/clyde/result"
)

// Need is what a run will take at its peak.
type Need struct {
	// Memory is what the run allocates: I/O buffers, histograms.
	Memory uint64
	// Threads is how many OS threads the run may start: one per worker
	// blocked in a system call, and the runtime's own.
	Threads int
	// Files is how many descriptors the run holds open at once.
	Files int
	// Flag is the flag that sizes the run, named in a refusal.
	Flag string
	// What says what the memory is for, in a refusal ("the I/O buffers
	// of 600 workers").
	What string
}

// Sum is what needs that run at the same time take together: the jobs of
// one fio group (no stonewall between them), an Iometer test's workers.
// Checked one by one, each fits and the group crashes the run. It
// saturates; Flag and What are left for the caller to say what ran at once.
func Sum(needs ...Need) Need {
	var s Need
	for _, n := range needs {
		s.Memory = sat(s.Memory, n.Memory)
		s.Threads = satInt(s.Threads, n.Threads)
		s.Files = satInt(s.Files, n.Files)
	}
	return s
}

// Limits are what the kernel holds this process to; 0 is no limit (or one
// that cannot be read: most machines have none, and a guess must not refuse
// a run).
type Limits struct {
	// Memory is the memory the process may use: physical RAM, or a cgroup
	// limit below it.
	Memory uint64
	// AddressSpace is RLIMIT_AS; AddressInUse the process's virtual size
	// now, and ThreadStack what each new OS thread reserves of it.
	AddressSpace, AddressInUse, ThreadStack uint64
	// MallocArenas is how many more of glibc's 64 MiB malloc arenas new
	// threads may reserve (in a cgo build: each new thread takes one of
	// its own until 8 per CPU exist); 0 without cgo.
	MallocArenas int
	// Pids is how many more tasks the cgroup's pids.max allows (the least
	// along the cgroup's path); PidsSet tells 0 from no limit.
	Pids    int
	PidsSet bool
	// Nproc is RLIMIT_NPROC when it applies (not to root).
	Nproc int
	// Files is RLIMIT_NOFILE's soft limit, FilesOpen the descriptors open now.
	Files, FilesOpen int
}

// RuntimeThreads is what the Go runtime starts besides the run's workers:
// the system monitor, the garbage collector's workers, the signal handler.
const RuntimeThreads = 8

// RuntimeFiles is what the process needs besides the run's own files: the
// standard streams, the poller's epoll and event descriptors, and a few for
// the history database, the run lock and the output file. The startup
// check (internal/limits/floor) holds clyde to the same.
const RuntimeFiles = floor.RuntimeFiles

// heapArena is how the Go heap grows: by 64 MiB of address space reserved
// at a time (linux/amd64 and arm64), whatever is allocated in it.
const heapArena = 64 << 20

// mallocArena is what glibc reserves for a thread's malloc arena.
const mallocArena = 64 << 20

// Read returns this process's limits; tests replace it.
var Read = read

// Check refuses n when it goes over one of the process's limits, in one line
// naming the limit and the flag to change. Memory is refused at over half
// of the usable memory: the run would crash or push out the page cache it
// measures.
func Check(n Need) error {
	l, err := Read()
	if err != nil {
		return nil
	}
	return l.Check(n)
}

// Check is Check against l.
func (l Limits) Check(n Need) error {
	flag := n.Flag
	if flag == "" {
		flag = "--numjobs"
	}
	what := n.What
	if what == "" {
		what = "the run's buffers"
	}
	if l.Memory > 0 && n.Memory > l.Memory/2 {
		return result.Usagef(flag, "%s would take %s, more than half of the %s of memory this process may use (RAM or its cgroup's memory.max); ask for less",
			what, humanize.IBytes(n.Memory), humanize.IBytes(l.Memory))
	}
	if l.AddressSpace > 0 {
		if need := l.addressNeed(n); need > l.AddressSpace {
			return result.Usagef(flag, "%s and %d threads need about %s of address space, over the %s of RLIMIT_AS (ulimit -v); raise it or ask for less",
				what, n.Threads+RuntimeThreads, humanize.IBytes(need), humanize.IBytes(l.AddressSpace))
		}
	}
	threads := n.Threads + RuntimeThreads
	if l.PidsSet && threads > l.Pids {
		return result.Usagef(flag, "the run needs %d threads, but its cgroup's pids.max leaves room for %d; ask for fewer workers or raise pids.max", threads, l.Pids)
	}
	if l.Nproc > 0 && threads > l.Nproc {
		return result.Usagef(flag, "the run needs %d threads, over the %d of RLIMIT_NPROC (ulimit -u); ask for fewer workers or raise it", threads, l.Nproc)
	}
	if err := l.checkFiles(n.Files); err != nil {
		return result.Usagef(flag, "%v", err)
	}
	return nil
}

// addressNeed is the address space the process will have mapped at the
// run's peak: what it has now, the run's memory in whole heap arenas and
// one more for the garbage collector's slack, a stack for every worker's
// thread and the runtime's, and a malloc arena for each new thread while
// glibc makes new ones. Under RLIMIT_AS the runtime reserves what it can
// at start (its page summaries and arenas shrink to fit), so what is left
// is all the run may take; going over it is "pthread_create failed" or
// "out of memory", a stack dump with the test file left behind.
func (l Limits) addressNeed(n Need) uint64 {
	threads := uint64(n.Threads + RuntimeThreads)
	arenas := uint64(min(max(n.Threads, 0), l.MallocArenas))
	heap := mul(sat(n.Memory, heapArena-1)/heapArena+1, heapArena)
	return sat(sat(l.AddressInUse, heap), sat(mul(threads, l.ThreadStack), mul(arenas, mallocArena)))
}

func (l Limits) checkFiles(n int) error {
	if l.Files <= 0 {
		return nil
	}
	if need := l.FilesOpen + n + RuntimeFiles; need > l.Files {
		return fmt.Errorf("the open files limit (ulimit -n) is %d and %d are open; clyde needs %d: raise it with ulimit -n", l.Files, l.FilesOpen, need)
	}
	return nil
}

func sat(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}

func satInt(a, b int) int {
	if b > 0 && a > int(^uint(0)>>1)-b {
		return int(^uint(0) >> 1)
	}
	return a + b
}

func mul(a, b uint64) uint64 {
	if a != 0 && b > ^uint64(0)/a {
		return ^uint64(0)
	}
	return a * b
}
