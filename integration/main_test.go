//go:build linux

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// clydeBin is the binary every test runs as a subprocess, built once.
var clydeBin string

func TestMain(m *testing.M) {
	if dev := os.Getenv(holdDeviceEnv); dev != "" {
		os.Exit(holdDevice(dev))
	}
	dir, err := os.MkdirTemp("", "clyde-integration-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// The non-root tests run the binary as another user: it must reach it.
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	clydeBin = filepath.Join(dir, "clyde")
	if out, err := exec.Command("go", "build", "-o", clydeBin, "../cmd/clyde").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build clyde: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
