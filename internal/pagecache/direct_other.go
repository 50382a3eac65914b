//go:build !linux && !freebsd && !darwin

package pagecache

// CachedOnly knows no memory filesystems here.
func CachedOnly(string) (string, error) { return "", nil }
