//go:build windows

package blockbench

// profileDirectDefault: on Windows the cdm preset runs unbuffered
// (FILE_FLAG_NO_BUFFERING) unless --direct=false: CrystalDiskMark measures
// with the file cache off.
const profileDirectDefault = true
