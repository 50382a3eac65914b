//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

// stopCommands are the runs case 9 of issue 20 stops: each makes files in
// dir and lasts longer than the two seconds the tests give it.
var stopCommands = []struct {
	name string
	// word is the progress on stderr after which the run has a result to
	// keep; "" waits for the run's first file instead.
	word string
	args func(dir, js string) []string
}{
	{"block", "", func(dir, js string) []string {
		return []string{"block", "--filename", filepath.Join(dir, "F"), "--size", "16MiB", "--rw", "randread", "--runtime", "10s",
			"--time_based", "--no-history", "--output-format", "json", "--output", js}
	}},
	{"copy", "Copying", func(dir, js string) []string {
		return []string{"copy", "-d", dir, "--set", "64k:3000", "--no-history", "--json", js}
	}},
	{"fs", "Create files in sequential order", func(dir, js string) []string {
		return []string{"fs", "-d", dir, "-s", "0", "-n", "256", "--no-history", "--json", js}
	}},
}

// assertStoppedCleanly checks one stop: no abort, a JSON result that says
// it was interrupted, and nothing of the run left in dir.
func assertStoppedCleanly(t *testing.T, o outcome, dir, js string) {
	t.Helper()
	if strings.Contains(o.stderr, "aborting") {
		t.Errorf("signals sent together were taken as a second interrupt; stderr:\n%s", o.stderr)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatalf("no JSON result kept: %v; stderr:\n%s", err, o.stderr)
	}
	var res struct {
		Interrupted bool `json:"interrupted"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("JSON result: %v", err)
	}
	if left := listing(t, dir); len(left) != 1 { // dir itself
		t.Errorf("the run left files behind: %v", left)
	}
}

// TestTimeoutIsOneStop is case 9 as written: GNU timeout sends SIGTERM to
// clyde and then to its process group, two signals at once, which clyde
// took for a second ^C (no JSON, the file and its marker left). timeout
// itself exits 124 when it had to stop the command (whatever the command's
// own status), and with --preserve-status passes on clyde's 130.
func TestTimeoutIsOneStop(t *testing.T) {
	if _, err := exec.LookPath("timeout"); err != nil {
		clydetest.Skip(t, "no timeout(1) (GNU coreutils) here")
	}
	for _, c := range stopCommands {
		for _, preserve := range []bool{false, true} {
			name, want := c.name, 124
			if preserve {
				name, want = c.name+" --preserve-status", exitInterrupted
			}
			t.Run(name, func(t *testing.T) {
				dir, js := t.TempDir(), filepath.Join(t.TempDir(), "r.json")
				args := []string{"2", clydeBin}
				if preserve {
					args = append([]string{"--preserve-status"}, args...)
				}
				o := runClydeAs(t, append([]string{"timeout"}, args[:len(args)-1]...), c.args(dir, js)...)
				if o.code != want {
					t.Errorf("exit %d, want %d; stderr:\n%s", o.code, want, o.stderr)
				}
				assertStoppedCleanly(t, o, dir, js)
			})
		}
	}
}

// TestSignalsTogetherAreOneStop: SIGINT, SIGTERM and SIGHUP sent at once
// (a shell's kill, a service manager, a closing terminal) stop the run
// once: exit 130, the JSON kept, nothing left.
func TestSignalsTogetherAreOneStop(t *testing.T) {
	for _, c := range stopCommands {
		t.Run(c.name, func(t *testing.T) {
			dir, js := t.TempDir(), filepath.Join(t.TempDir(), "r.json")
			r := startClyde(t, c.args(dir, js)...)
			if c.word != "" {
				r.waitFor(t, c.word)
			} else {
				waitForEntry(t, r, dir)
			}
			for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
				r.signal(t, sig)
			}
			o := r.wait(t)
			if o.code != exitInterrupted {
				t.Errorf("exit %d, want %d; stderr:\n%s", o.code, exitInterrupted, o.stderr)
			}
			assertStoppedCleanly(t, o, dir, js)
		})
	}
}

// waitForEntry returns once the run has made something in dir.
func waitForEntry(t *testing.T, r *running, dir string) {
	t.Helper()
	for {
		if es, _ := os.ReadDir(dir); len(es) > 0 {
			return
		}
		select {
		case <-r.done:
			t.Fatalf("clyde ended (exit %d) before making anything in %s; stderr:\n%s", r.cmd.ProcessState.ExitCode(), dir, r.stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestQuitIsAStop: ^\ (SIGQUIT) was Go's default, a goroutine dump and
// exit 2 that left the test file, its marker and the private directory;
// it is the one stop like SIGTERM, even with GOTRACEBACK asking for dumps.
func TestQuitIsAStop(t *testing.T) {
	for _, c := range stopCommands {
		t.Run(c.name, func(t *testing.T) {
			dir, js := t.TempDir(), filepath.Join(t.TempDir(), "r.json")
			r := &running{cmd: clydeCmd(nil, c.args(dir, js)...), stdout: &clydetest.SyncBuffer{}, stderr: &clydetest.SyncBuffer{}, done: make(chan struct{})}
			r.cmd.Env = append(r.cmd.Env, "GOTRACEBACK=all")
			r.start(t)
			if c.word != "" {
				r.waitFor(t, c.word)
			} else {
				waitForEntry(t, r, dir)
			}
			r.signal(t, syscall.SIGQUIT)
			o := r.wait(t)
			if o.code != exitInterrupted || strings.Contains(o.stderr, "goroutine ") {
				t.Errorf("exit %d, want %d, and no goroutine dump; stderr:\n%s", o.code, exitInterrupted, o.stderr)
			}
			assertStoppedCleanly(t, o, dir, js)
		})
	}
}
