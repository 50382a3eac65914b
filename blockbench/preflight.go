package blockbench

import (
	"github.com/clydebench/clyde/internal/preflight"
)

// preflightNewFiles refuses a plan whose new test files do not fit in the
// free space (or inodes) of the filesystem they are made on, before
// anything is created, as fs and copy refuse theirs: a 1 GiB file on a
// 32 MiB tmpfs would fill it and then fail. A file counts with its marker
// (and a private run directory with its own), per directory. A fill plan
// checks the files with the fill (privateDir.checkRoom).
func preflightNewFiles(p *Plan, targets []*target) error {
	if p.Fill.Set() {
		return nil
	}
	need := map[string]*preflight.Need{}
	var dirs []string
	for _, t := range targets {
		if t.exists {
			continue
		}
		n := need[t.dirPath]
		if n == nil {
			n = &preflight.Need{}
			if p.PrivateDir {
				n.Inodes += 2 // the private directory and its marker
			}
			need[t.dirPath] = n
			dirs = append(dirs, t.dirPath)
		}
		n.Bytes += uint64(t.size)
		n.Inodes += 2 // the file and its marker
	}
	for _, d := range dirs {
		err := preflight.Space(d, "the test file", d, *need[d],
			preflight.Advice{Space: "give a smaller --size, or a directory on a larger filesystem", Inodes: "free some inodes there"})
		if err != nil {
			return err
		}
	}
	return nil
}
