//go:build !windows

package cdm

import "os"

// elevated is CrystalDiskMark's [Admin] where there is no elevation: root.
func elevated() bool { return os.Geteuid() == 0 }
