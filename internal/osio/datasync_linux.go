//go:build linux

package osio

import "golang.org/x/sys/unix"

// Datasync writes the file's data back and only the metadata needed to read
// it (fdatasync(2)): what fio's fdatasync= issues.
func (f File) Datasync() error { return unix.Fdatasync(f.sysfd()) }
