//go:build !darwin

package osio

// SyncFull writes the file back through the drive's write cache: Sync
// already does here (fsync(2) flushes the device cache on Linux and the
// BSDs, FlushFileBuffers on Windows).
func (f File) SyncFull() (full bool, err error) { return true, f.Sync() }
