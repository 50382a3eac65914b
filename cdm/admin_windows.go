package cdm

import "golang.org/x/sys/windows"

// elevated is CrystalDiskMark's [Admin]: the process runs elevated.
func elevated() bool { return windows.GetCurrentProcessToken().IsElevated() }
