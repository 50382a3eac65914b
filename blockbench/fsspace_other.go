//go:build !linux && !freebsd && !darwin

package blockbench

import (
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/sysinfo"
)

// dirSpace is the space of the filesystem holding d. Without a descriptor
// call here it asks by path: free is what the caller may use, so the used
// figure counts space reserved for the administrator as used.
func dirSpace(d osio.Dir) (fsSpace, error) { return pathSpace(d.Path()) }

func pathSpace(path string) (fsSpace, error) {
	s, err := sysinfo.Space(path)
	if err != nil {
		return fsSpace{}, err
	}
	return fsSpace{total: s.TotalBytes, free: s.FreeBytes, avail: s.FreeBytes}, nil
}
