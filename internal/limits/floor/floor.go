// Package floor is the least of the kernel's limits clyde needs to run at
// all, read with bare system calls so that it can be checked in the first
// package initialiser, before any other package opens a file or the heap
// grows: an open files limit (ulimit -n) with no room for the Go poller's
// two descriptors, or an address space limit (ulimit -v) with no room for
// another heap arena or thread stack, is not an error Go can return later;
// the runtime dies with a stack dump ("netpollinit failed", "out of
// memory", "pthread_create failed").
//
// It imports only packages the runtime initialises before any other (not
// os, not golang.org/x/sys/unix, whose initialisers come after those of
// packages that open files), which is why it uses syscall.
package floor

import "strconv"

// RuntimeFiles is what the process needs besides a run's own files: the
// standard streams, the poller's epoll and event descriptors, and a few for
// the history database, the run lock and the output file.
const RuntimeFiles = 8

// AddressHeadroom is the address space clyde needs beyond what the process
// has mapped when its first initialiser runs, before it checks what a run
// needs: the heap grows in 64 MiB arenas, each reserved whole, and every
// OS thread the runtime starts (sysmon, the garbage collector's workers,
// one per blocking system call) reserves a stack. Measured: with less,
// `clyde --version` fails now and then with "out of memory" or
// "pthread_create failed"; with this much it never did (see the test).
const AddressHeadroom = 256 << 20

// DefaultThreadStack is what glibc reserves for a thread's stack when
// RLIMIT_STACK is unlimited (it takes RLIMIT_STACK's soft limit otherwise).
const DefaultThreadStack = 8 << 20

// probeMax bounds the descriptors Facts probes one by one: with a limit
// this high, the few that clyde needs are free.
const probeMax = 4096

// Facts are the limits the floor is checked against; 0 is no limit (or one
// that could not be read).
type Facts struct {
	// Files is RLIMIT_NOFILE's soft limit, FilesOpen how many descriptors
	// below it are open (counted only when Files is under probeMax).
	Files, FilesOpen int
	// AddressSpace is RLIMIT_AS's soft limit, AddressInUse the process's
	// virtual size (VmSize), ThreadStack what a new thread reserves.
	AddressSpace, AddressInUse, ThreadStack uint64
}

// Read returns this process's facts.
func Read() Facts { return read() }

// Check returns the one line that refuses to start, or "" when the limits
// leave room for clyde.
func (f Facts) Check() string {
	if f.Files > 0 && f.FilesOpen+RuntimeFiles > f.Files {
		return "the open files limit (ulimit -n) is " + strconv.Itoa(f.Files) + " and " + strconv.Itoa(f.FilesOpen) +
			" are open; clyde needs " + strconv.Itoa(f.FilesOpen+RuntimeFiles) + ": raise it with ulimit -n"
	}
	if f.AddressSpace > 0 && f.AddressInUse+AddressHeadroom > f.AddressSpace {
		return "the address space limit (RLIMIT_AS, ulimit -v) is " + mib(f.AddressSpace) + " and the Go runtime has reserved " +
			mib(f.AddressInUse) + " of it; clyde needs at least " + mib(f.AddressInUse+AddressHeadroom) + ": raise it with ulimit -v"
	}
	return ""
}

func mib(b uint64) string { return strconv.FormatUint(b>>20, 10) + " MiB" }

// parseVmSize finds "VmSize:   123456 kB" in a /proc/PID/status text.
func parseVmSize(b []byte) uint64 {
	const key = "\nVmSize:"
	for i := 0; i+len(key) <= len(b); i++ {
		if string(b[i:i+len(key)]) != key {
			continue
		}
		j := i + len(key)
		for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		k := j
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
		}
		kb, err := strconv.ParseUint(string(b[j:k]), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
