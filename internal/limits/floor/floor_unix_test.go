//go:build unix

package floor

import (
	"os"
	"testing"
)

// TestOpenFiles: the count is of this process's own descriptors, made
// without opening any: one more once a file is open.
func TestOpenFiles(t *testing.T) {
	before := openFiles(probeMax)
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if after := openFiles(probeMax); before < 3 || after != before+1 {
		t.Fatalf("open descriptors %d, then %d with one more open", before, after)
	}
}
