// Package clydetest holds what the tests that run the clyde binary share:
// building it once per test binary, and a buffer its output can be watched
// in while it runs.
package clydetest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// OverlayEnv names the `go build -overlay` file Build builds with: make
// mutate sets it, so that tests which run clyde as a binary run the mutant.
const OverlayEnv = "CLYDE_MUTATE_OVERLAY"

// Build compiles the clyde command in pkgDir into a new temporary directory
// readable by every user (tests run it as another user too) and returns the
// binary's path and a function that removes the directory.
func Build(pkgDir string) (bin string, remove func(), err error) {
	dir, err := os.MkdirTemp("", "clyde-bin")
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	if err := os.Chmod(dir, 0o755); err != nil {
		remove()
		return "", nil, err
	}
	bin = filepath.Join(dir, "clyde")
	args := []string{"build", "-o", bin}
	if overlay := os.Getenv(OverlayEnv); overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	if out, err := exec.Command("go", append(args, pkgDir)...).CombinedOutput(); err != nil {
		remove()
		return "", nil, fmt.Errorf("build clyde: %v\n%s", err, out)
	}
	return bin, remove, nil
}

// SyncBuffer is a bytes.Buffer safe for one writer and one reader.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
