//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// TestCopyJSONToAFIFO checks that --json writes a FIFO in place rather
// than replacing it with a regular file.
func TestCopyJSONToAFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		clydetest.Skipf(t, "mkfifo: %v", err)
	}
	got := make(chan []byte, 1)
	go func() {
		data, _ := os.ReadFile(fifo)
		got <- data
	}()
	if code, _, stderr := runClyde(t, smallCopy(dir, "--no-history", "--json", fifo)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	select {
	case data := <-got:
		if _, err := result.DecodeCopy(data); err != nil {
			t.Fatalf("JSON through the FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing written to the FIFO")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced: %v, %v", fi, err)
	}
}
