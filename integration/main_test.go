//go:build linux

package integration

import (
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

// clydeBin is the binary every test runs as a subprocess, built once.
var clydeBin string

// TestMain sweeps what killed runs of the suite left (mounts, loop devices,
// their directories: clydetest.StartSuite), then keeps everything this run
// makes under one suite root, its TMPDIR, released at the end and, when the
// -timeout is near, before the timeout's panic. Every test gets it: the
// images, mount points and t.TempDir directories of a test in any file are
// under the root. A test's own commands end at clydetest.Context's
// deadline, before the package's.
func TestMain(m *testing.M) {
	if dev := os.Getenv(holdDeviceEnv); dev != "" {
		os.Exit(holdDevice(dev))
	}
	if os.Getenv(leftoverEnv) != "" {
		os.Exit(makeLeftovers(m))
	}
	flag.Parse()
	timeout, _ := time.ParseDuration(flag.Lookup("test.timeout").Value.String())
	suite, err := clydetest.StartSuite("integration", timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := run(m)
	if err := suite.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "clydetest:", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

func run(m *testing.M) int {
	bin, remove, err := clydetest.Build("../cmd/clyde")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer remove()
	clydeBin = bin
	return m.Run()
}
