//go:build windows

package blockbench

// profileDirectDefault: on Windows the cdm preset runs unbuffered
// (FILE_FLAG_NO_BUFFERING) unless --direct=false, as CrystalDiskMark runs
// DiskSpd with software caching off.
const profileDirectDefault = true
