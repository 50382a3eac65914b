//go:build unix

package input

import (
	"testing"

	"golang.org/x/sys/unix"
)

func mkfifo(t *testing.T, p string) string {
	t.Helper()
	if err := unix.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
