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
// What runs before it cannot be caught: below about 800 MiB of RLIMIT_AS
// (on linux/amd64), the runtime fails while reserving its own heap
// metadata ("failed to reserve page summary memory", "out of memory
// allocating heap arena map", "pthread_create failed") before any
// package's initialiser.
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
