//go:build !unix

package input

import (
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

func mkfifo(t *testing.T, _ string) string {
	clydetest.Skip(t, "no FIFOs on this platform")
	return ""
}
