//go:build linux

package orion

import (
	"strings"
	"testing"
)

// TestLUNInProcIsNotEmpty: a procfs file reports a size of 0 whatever it
// holds; the refusal says what it is rather than calling it empty.
func TestLUNInProcIsNotEmpty(t *testing.T) {
	_, err := lunSize("/proc/self/status")
	if err == nil || !strings.Contains(err.Error(), "procfs") || strings.Contains(err.Error(), "empty") {
		t.Fatalf("lunSize(/proc/self/status) = %v; want a refusal naming procfs", err)
	}
}
