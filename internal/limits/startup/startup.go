// Package startup refuses to start clyde, in one line and exit 2, when the
// open files limit or the address space limit leaves no room for the Go
// runtime (internal/limits/floor). With `ulimit -n 6` the poller's
// epoll_create fails the first time any package opens a file, which is
// during package initialisation (google.golang.org/protobuf opens the
// executable), and the runtime dies with a stack dump; with a small
// `ulimit -v` the next heap arena or thread does.
//
// Package initialisers run one package at a time, the first in import path
// order whose imports are all initialised: this package imports only
// floor, which imports only syscall and strconv, so it runs as soon as
// syscall has, long before google.golang.org/... and before any heap
// growth of the other initialisers. Only the clyde command imports it, for
// its side effect.
//
// What runs before it cannot be caught: the runtime reserves its heap
// metadata before any package's initialiser, and under some limits fails
// there with its own stack dump ("failed to reserve page summary memory",
// "out of memory allocating heap arena map", "pthread_create failed").
// Measured on linux/amd64 (Go 1.26, 2 CPUs): always below about 780 MB of
// RLIMIT_AS, and at 1.2 to 1.3 GB, where its reservations happen to fall
// short, with cgo or without. Nothing of clyde's has run then, so nothing
// is left behind either. Every other limit too small for a run is refused
// in one line, here or by the run's own check (internal/limits).
package startup

import (
	"syscall"

	"github.com/clydebench/clyde/internal/limits/floor"
)

func init() {
	if msg := floor.Read().Check(); msg != "" {
		// Not fmt or os: neither is initialised yet, and os.Stderr would
		// be the first file the runtime's poller is asked about.
		_, _ = syscall.Write(syscall.Stderr, []byte("clyde: "+msg+"\n"))
		syscall.Exit(2) // a usage error: the limit is the caller's to raise
	}
}
