//go:build linux

package integration

import (
	"fmt"
	"os"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// clydeBin is the binary every test runs as a subprocess, built once.
var clydeBin string

func TestMain(m *testing.M) {
	if dev := os.Getenv(holdDeviceEnv); dev != "" {
		os.Exit(holdDevice(dev))
	}
	bin, remove, err := clydetest.Build("../cmd/clyde")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	clydeBin = bin
	code := m.Run()
	remove()
	os.Exit(code)
}
