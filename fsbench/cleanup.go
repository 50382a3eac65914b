package fsbench

import "github.com/clydebench/clyde/internal/rundir"

// CleanupReport is what Cleanup removed and what it left alone, and why.
type CleanupReport = rundir.CleanupReport

// Cleanup removes what killed runs left in dir: private directories that
// carry clyde's marker and whose process is gone, each through descriptors,
// its marker last so a failed cleanup can be run again. It never touches
// anything else, skips a directory whose run is still alive on this host,
// and skips one made on another host (a run on a shared filesystem that may
// still be going) unless force is set.
func Cleanup(dir string, force bool) (CleanupReport, error) { return rundir.Cleanup(dir, force) }
