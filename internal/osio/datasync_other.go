//go:build !linux

package osio

// Datasync is Sync where the platform has no fdatasync(2) of its own (macOS,
// the BSDs, Windows): fio's fdatasync= falls back to fsync there as well.
func (f File) Datasync() error { return f.Sync() }
