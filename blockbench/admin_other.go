//go:build !windows

package blockbench

import "os"

// elevated is CrystalDiskMark's [Admin] where there is no elevation: root.
func elevated() bool { return os.Geteuid() == 0 }
