package copybench

import "github.com/clydebench/clyde/internal/rundir"

// CleanupReport is what Cleanup removed and what it left alone, and why.
type CleanupReport = rundir.CleanupReport

// Cleanup removes what killed runs left in dir (give -d and --to in turn):
// private directories that carry clyde's marker and whose process is gone,
// through descriptors and marker last, exactly as clyde fs --cleanup does;
// one made on another host is left unless force is set.
func Cleanup(dir string, force bool) (CleanupReport, error) { return rundir.Cleanup(dir, force) }
