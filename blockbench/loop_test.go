package blockbench

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// libaioTestBS is the block size of the engine tests (it began with
// libaio's).
const libaioTestBS = 4096

// blockPattern is what block i of a test file holds before the run: its
// index in every 8 bytes, so a read from the wrong offset shows.
func blockPattern(i int64) []byte {
	b := make([]byte, libaioTestBS)
	for k := 0; k < len(b); k += 8 {
		binary.LittleEndian.PutUint64(b[k:], uint64(i)<<8|0xa5)
	}
	return b
}

// patternFile writes a file of n blocks in dir, each its blockPattern.
func patternFile(t *testing.T, dir string, n int64) string {
	t.Helper()
	var data []byte
	for i := range n {
		data = append(data, blockPattern(i)...)
	}
	path := filepath.Join(dir, "aio.dat")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
