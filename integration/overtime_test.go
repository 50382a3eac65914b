//go:build linux

package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const exitOverTime = 124

// TestCronOnASyncMount is the cron recipe's night on a degraded disk: the
// README's line (with --auto=20s) on an ext4 image, one healthy night that
// calibrates, then the same volume remounted -o sync, where every write
// waits for the journal and the loop device's flush, with clyde held to a
// tenth of a CPU: every phase runs many times slower than calibrated. The second night must say
// so in a line of its own while it runs, be stopped by --auto's default
// bound (5 x 20 s) as a SIGTERM would stop it, exit 124 with one line naming
// the phase and where the partial result went, keep that result in the
// history marked partial, leave the textfile of the last whole night, and
// leave the volume as it found it. The image lives on a tmpfs, so the sync
// mount's flushes cost the host's disk nothing.
func TestCronOnASyncMount(t *testing.T) {
	// In parallel with the suite's other long tests: the second night is
	// held to a tenth of a CPU for its 100 s, and alone it was the longest
	// step of the package's critical path.
	t.Parallel()
	host := makeFS(t, tmpfs, 512)
	img := filepath.Join(host.dir, "disk.img")
	if err := os.WriteFile(img, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(img, 320<<20); err != nil {
		t.Fatal(err)
	}
	dev := attachLoop(t, img, false)
	sh(t, "mkfs.ext4", "-q", "-F", "-m", "0", dev)
	dir := mountPoint(t)
	mount(t, dir, dev)
	populate(t, dir)
	state := t.TempDir()
	db, prom := filepath.Join(state, "history.db"), filepath.Join(state, "clyde.prom")
	line := strings.NewReplacer("/srv/data", dir, "/var/lib/clyde/history.db", db,
		"/var/lib/node_exporter/textfile/clyde.prom", prom, " --auto ", " --auto=20s ").Replace(cronLine(t) + " ")
	if !strings.Contains(line, "--auto=20s") || !strings.Contains(line, "--silent") {
		t.Fatalf("the recipe %q lacks --auto or --silent", line)
	}
	before := listing(t, dir)

	o := cronRunWithin(t, line, 10*time.Minute, "")
	if o.code != 0 || o.stdout != "" || !quietNight(o.stderr, true) {
		t.Fatalf("the healthy night: exit %d, stdout %q, stderr %q; want silence and 0", o.code, o.stdout, o.stderr)
	}
	textfile, err := os.ReadFile(prom)
	if err != nil {
		t.Fatal(err)
	}

	(&testFS{dir: dir}).remount(t, "sync")
	// The sync mount alone slowed the night only 4 to 7 times on an idle
	// machine (its flushes land on a tmpfs), about the bound's 5: the
	// night also runs held to a tenth of a CPU, as on a busy home server,
	// so that it is sure to outlast the bound. The bound is 100 s from the
	// start; the wait is generous, since what is tested is who stops the
	// run and what it says, not how soon.
	cg := cpuLimitedCgroup(t, 10)
	o = cronRunWithin(t, line, 10*time.Minute, cg)
	if o.code != exitOverTime {
		t.Fatalf("the sync night: exit %d, want %d; stderr:\n%s", o.code, exitOverTime, o.stderr)
	}
	lines := strings.Split(strings.TrimRight(o.stderr, "\n"), "\n")
	if o.stdout != "" || len(lines) != 2 {
		t.Fatalf("the sync night printed stdout %q and %d stderr lines, want nothing and two (the far-behind line, then the stop):\n%s",
			o.stdout, len(lines), o.stderr)
	}
	behind, stop := lines[0], lines[1]

	m := regexp.MustCompile(`^clyde: warning: (.+) is far behind: it has run ([0-9.hms]+).*?, ([0-9]+) times its estimate of `).FindStringSubmatch(behind)
	if m == nil || !isPhase(m[1]) || !strings.Contains(behind, "sync mount, a dying disk or a throttled CPU") {
		t.Fatalf("first line %q: want a phase far behind its estimate, with what that suggests", behind)
	}
	ran, err := time.ParseDuration(m[2])
	if err != nil {
		t.Fatal(err)
	}
	if times, _ := strconv.Atoi(m[3]); times < 4 || ran >= 100*time.Second {
		t.Errorf("%q: said at %v, %s times the estimate; want at least 4 times, before the bound of 1m40s", behind, ran, m[3])
	}

	sm := regexp.MustCompile(`^clyde: stopped by its time bound: 1m40s \(the default under --auto=20s: 5 x the budget\) during ([a-z -]+)(:|;)`).FindStringSubmatch(stop)
	if sm == nil || !isPhase(sm[1]) {
		t.Fatalf("last line %q: want the stop by --auto's bound, naming the phase", stop)
	}
	if !strings.Contains(stop, "the partial result is kept as #2 in the history "+db+", marked partial (never in a baseline)") ||
		strings.Contains(stop, "context canceled") {
		t.Errorf("last line %q: want where the partial result is, in words", stop)
	}

	entries, runs := savedRuns(t, db)
	if len(runs) != 2 || entries[0].Flagged != "" || !entries[1].IsPartial() || !runs[1].Interrupted {
		t.Fatalf("history: %d runs, flags %q; want the healthy night and the partial one", len(runs), []string{entries[0].Flagged, entries[len(entries)-1].Flagged})
	}
	stoppedIn, noted := "", 0
	for _, tr := range runs[1].Runs[0].Tests {
		if tr.Interrupted {
			stoppedIn = tr.Name
		}
		for _, n := range tr.Notes {
			if strings.Contains(n, "far behind") {
				noted++
			}
		}
	}
	if stoppedIn == "" || noted != 1 || !strings.Contains(entries[1].Flagged, sm[1]) {
		t.Errorf("the partial run: stopped in %q, %d notes of falling behind, flagged %q; want its phase marked, one note, the phase named",
			stoppedIn, noted, entries[1].Flagged)
	}
	if after, err := os.ReadFile(prom); err != nil || !bytes.Equal(after, textfile) {
		t.Errorf("the partial night changed the textfile (%v); want the last whole night's", err)
	}
	if out := runClyde(t, "history", "--db", db); out.code != 0 || !strings.Contains(out.stdout, "\n2p ") {
		t.Errorf("clyde history: exit %d\n%s\nwant #2 marked partial", out.code, out.stdout)
	}
	assertSameListing(t, dir, before)
}

// isPhase reports whether name is one of clyde fs's phases as its lines
// name them.
func isPhase(name string) bool {
	for _, p := range phases {
		if p.name == name {
			return true
		}
	}
	return false
}

// cronRunWithin is cronRun with a limit: a run still going after it is a
// hang, killed with its process group, and fails the test.
// The shell first joins the cgroup whose cgroup.procs is cgroup, if any.
func cronRunWithin(t *testing.T, line string, limit time.Duration, cgroup string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	line = "exec " + line
	if cgroup != "" {
		line = `echo $$ > "` + cgroup + `" && ` + line
	}
	cmd := exec.CommandContext(ctx, "/usr/bin/env", "-i", "PATH="+filepath.Dir(clydeBin)+":/usr/bin:/bin", "/bin/sh", "-c", line)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the cron line ran past %v; stderr:\n%s", limit, stderr.String())
	}
	if _, exited := err.(*exec.ExitError); err != nil && !exited {
		t.Fatalf("run the cron line: %v", err)
	}
	return outcome{cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()}
}
