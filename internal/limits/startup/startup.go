// Package startup refuses to start clyde, in one line, when the open files
// limit leaves no room for the Go runtime: with `ulimit -n 6` the poller's
// epoll_create fails the first time any package opens a file, which is
// during package initialisation (google.golang.org/protobuf opens the
// executable), and the runtime dies with a stack dump. Package inits run in
// import path order as far as their dependencies allow, so this one, which
// depends only on internal/limits, runs before that. Only the clyde command
// imports it, for its side effect.
package startup

import (
	"fmt"
	"os"

	"github.com/clydebench/clyde/internal/limits"
)

func init() {
	if err := limits.CheckFiles(); err != nil {
		fmt.Fprintf(os.Stderr, "clyde: %v\n", err)
		os.Exit(2) // a usage error: the limit is the caller's to raise
	}
}
