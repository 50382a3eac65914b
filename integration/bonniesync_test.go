//go:build linux

package integration

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

// seekPhaseSyncs counts the fsync and fdatasync calls an strace -f log
// shows between the seek phase's progress words ("start 'em...") and the
// newline that ends that phase's line.
func seekPhaseSyncs(t *testing.T, log string) int {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, in, seen := 0, false, false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.Contains(l, `write(2, "start 'em...`):
			in, seen = true, true
		case in && strings.Contains(l, `write(2, "\n"`):
			in = false
		case in && (strings.Contains(l, " fsync(") || strings.Contains(l, " fdatasync(")):
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Fatalf("%s shows no seek phase (no \"start 'em...\" on stderr)", log)
	}
	return n
}

// TestSyncWritesInSeeksAsBonnie checks -b through the syscalls: in the seek
// phase bonnie++ -b fsyncs after every write-back (one ticket in ten), and
// clyde fs -b must too. Both run under strace with the same -s, seed and
// seek count (the same tickets: -z 3 draws them from glibc's rand() in
// both), with and without -b; what -b adds to each one's fsyncs in the
// phase must be the same number, the write-backs, and not zero.
func TestSyncWritesInSeeksAsBonnie(t *testing.T) {
	t.Parallel()
	needRoot(t)
	needTool(t, "strace", "strace")
	needTool(t, "bonnie++", "bonnie++")
	type run struct {
		name string
		cmd  []string
		log  string
		done chan error
	}
	var runs []*run
	for _, sync := range []bool{true, false} {
		b := func(args ...string) []string {
			if sync {
				return append(args, "-b")
			}
			return args
		}
		runs = append(runs,
			&run{name: "bonnie++", cmd: b("bonnie++", "-u", "root", "-s", "8", "-r", "0", "-n", "0", "-f", "-z", "3")},
			&run{name: "clyde", cmd: b(clydeBin, "fs", "-s", "8", "-r", "0", "-n", "0", "-f", "-z", "3", "--no-history")})
	}
	ctx := clydetest.Context(t)
	// bonnie++ sleeps 3 s before its seeks: the four run at once.
	for i, r := range runs {
		dir := t.TempDir()
		r.log = filepath.Join(t.TempDir(), "strace.log")
		r.done = make(chan error, 1)
		args := append([]string{"-f", "-qq", "-e", "trace=fsync,fdatasync,write", "-e", "signal=none", "-o", r.log}, r.cmd...)
		args = append(args, "-d", dir)
		cmd := exec.CommandContext(ctx, "strace", args...)
		cmd.Env = append(os.Environ(), "CLYDE_PROGRESS=1")
		go func() {
			out, err := cmd.CombinedOutput()
			if err != nil {
				err = fmt.Errorf("%s: %v\n%s", strings.Join(runs[i].cmd, " "), err, out)
			}
			r.done <- err
		}()
	}
	counts := map[string]int{}
	for i, r := range runs {
		if err := <-r.done; err != nil {
			clydetest.Expired(t, ctx, r.name)
			t.Fatal(err)
		}
		key := r.name
		if i < 2 {
			key += " -b"
		}
		counts[key] = seekPhaseSyncs(t, r.log)
	}
	t.Logf("fsyncs in the seek phase: %v", counts)
	bonnie, clyde := counts["bonnie++ -b"]-counts["bonnie++"], counts["clyde -b"]-counts["clyde"]
	if bonnie <= 0 {
		t.Fatalf("bonnie++ -b added %d fsyncs to its seeks (%v); this strace cannot see them", bonnie, counts)
	}
	if clyde != bonnie {
		t.Errorf("-b added %d fsyncs to clyde's seek phase and %d to bonnie++'s (one per write-back): %v", clyde, bonnie, counts)
	}
}
