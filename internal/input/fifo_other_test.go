//go:build !unix

package input

import "testing"

func mkfifo(t *testing.T, _ string) string {
	t.Skip("no FIFOs on this platform")
	return ""
}
