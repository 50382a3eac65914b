package blockbench

import (
	"github.com/clydebench/clyde/internal/blocktarget"
	"io/fs"
	"os"

	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/result"
)

// CleanupResult says what Cleanup or CleanupDir did: what was removed (a
// data file before its marker) and what was left in place and why
// (Skipped), as fs and copy report their cleanups.
type CleanupResult = rundir.CleanupReport

// Cleanup removes what a killed clyde block run left at filename: the file
// it created and the marker next to it (".NAME.clyde-run"), the marker
// last. It removes the file only when the marker is there, names this host
// (or force is set: another host on shared storage, whose run the caller
// knows is over), its process is gone, and the file is still the one the
// marker describes (device, inode, birth time and size). A file that does
// not match is kept and its stale marker removed. Without a marker it does
// nothing. The rules are internal/rundir's (CleanupFile).
func Cleanup(filename string, force bool) (CleanupResult, error) {
	dir, base, err := blocktarget.Split(filename)
	if err != nil {
		return CleanupResult{}, err
	}
	return rundir.CleanupFile(dir, base, filename, force)
}

// CleanupDir removes what killed runs left in dir: the private run
// directories (clyde.PID.RANDOM) whose marker names a process that is gone,
// with their test and fill files, as fs and copy --cleanup do. One from
// another host is kept unless force is set.
func CleanupDir(dir string, force bool) (CleanupResult, error) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		if err == nil {
			err = fs.ErrInvalid
		}
		return CleanupResult{}, result.Usagef("--filename", "%s is not a directory: %v", dir, err)
	}
	return rundir.Cleanup(dir, force)
}
