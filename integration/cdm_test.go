//go:build linux

package integration

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// cdmQuick is a CrystalDiskMark run short enough for the suite: one pass of
// 200 ms per test after the warm-up, no interval, a 16 MiB test file.
var cdmQuick = []string{"--profile", "cdm", "--passes", "1", "--runtime", "200ms", "--interval", "0", "--size", "16m", "--no-history"}

func cdmRun(t *testing.T, dir string, extra ...string) (outcome, *result.Block) {
	t.Helper()
	args := append(append([]string{"block", "--filename", dir}, cdmQuick...), extra...)
	o := runClyde(t, append(args, "--output-format", "json")...)
	if o.code != exitOK {
		return o, nil
	}
	var res result.Block
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil {
		t.Fatalf("decode the result: %v\n%s", err, o.stdout)
	}
	return o, &res
}

// usedBytes is what df calls used on the filesystem of dir.
func usedBytes(t *testing.T, dir string) uint64 {
	t.Helper()
	syncFS(t, dir)
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return (st.Blocks - st.Bfree) * uint64(st.Bsize)
}

// On a loop-mounted ext4 (a loop device with direct I/O, so unbuffered
// reaches the disk) the CrystalDiskMark preset runs every job unbuffered,
// in a private directory, and leaves the filesystem as it was.
func TestCDMOnExt4IsUnbuffered(t *testing.T) {
	fs := makeDirectExt4(t, 256)
	populate(t, fs.dir)
	before := listing(t, fs.dir)
	o, res := cdmRun(t, fs.dir)
	if res == nil {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	if len(res.Jobs) != 16 || res.CDM == nil || len(res.CDM.Rows) != 8 {
		t.Fatalf("%d jobs, cdm %+v: want 8 rows of a warm-up and a pass", len(res.Jobs), res.CDM)
	}
	for _, j := range res.Jobs {
		if j.Options.Get("direct") != "1" {
			t.Errorf("job %s ran with direct %q", j.JobName, j.Options.Get("direct"))
		}
	}
	if !strings.HasPrefix(res.Target.ResolvedPath, filepath.Join(fs.dir, "clyde.")) || res.Space == nil || res.Space.MountPoint != fs.dir {
		t.Errorf("target %s, space %+v: want a file in a private directory of %s", res.Target.ResolvedPath, res.Space, fs.dir)
	}
	assertSameListing(t, fs.dir, before)
}

// On tmpfs, unbuffered I/O would be memory: refused in one line, nothing
// made; with --buffered it runs and every output says the cache was used.
func TestCDMOnTmpfsNeedsBuffered(t *testing.T) {
	fs := makeFS(t, tmpfs, 64)
	o, _ := cdmRun(t, fs.dir)
	if o.code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr %q", o.code, exitUsage, o.stderr)
	}
	assertOneLineError(t, o.stderr, "tmpfs", "--buffered")
	if got := entries(t, fs.dir); len(got) != 0 {
		t.Errorf("the refused run made %v", got)
	}

	o, res := cdmRun(t, fs.dir, "--buffered", "--cdm-preset", "real")
	if res == nil {
		t.Fatalf("--buffered: exit %d: %s", o.code, o.stderr)
	}
	for _, j := range res.Jobs {
		if j.Options.Get("direct") != "0" {
			t.Errorf("job %s ran with direct %q under --buffered", j.JobName, j.Options.Get("direct"))
		}
	}
	if res.CDM.Direct {
		t.Error("the cdm result says direct")
	}
	text := runClyde(t, append(append([]string{"block", "--filename", fs.dir}, cdmQuick...), "--buffered", "--cdm-preset", "demo")...)
	csv := runClyde(t, append(append([]string{"block", "--filename", fs.dir}, cdmQuick...), "--buffered", "--cdm-preset", "demo", "--output-format", "csv")...)
	if !strings.Contains(text.stdout, "* Buffered:") || !strings.Contains(text.stdout, "<Buffered>") {
		t.Errorf("the text does not say the cache was used:\n%s", text.stdout)
	}
	if lines := strings.Split(strings.TrimSpace(csv.stdout), "\n"); len(lines) < 2 || !strings.Contains(lines[0], ",direct,") || !strings.Contains(lines[1], ",0,") {
		t.Errorf("the CSV has no direct=0 column:\n%s", csv.stdout)
	}
	if got := entries(t, fs.dir); len(got) != 0 {
		t.Errorf("left %v", got)
	}
}

// --fill writes incompressible data until the filesystem is at the level,
// records it, and removes exactly what it wrote: the filesystem holds what
// it held before, and as much space is in use.
func TestCDMFillFillsAndRemoves(t *testing.T) {
	fs := makeDirectExt4(t, 256)
	populate(t, fs.dir)
	before := listing(t, fs.dir)
	usedBefore := usedBytes(t, fs.dir)
	o, res := cdmRun(t, fs.dir, "--cdm-preset", "demo", "--fill", "50%")
	if res == nil {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	s := res.Space
	if s == nil || s.Fill == nil || !s.Fill.Removed || s.Fill.WrittenBytes <= 0 {
		t.Fatalf("space %+v: want a fill written and removed", s)
	}
	// What was in use when the test began: the level asked for (ext4's
	// own blocks for the fill files may add a little).
	level := float64(s.UsedBytes) / float64(s.TotalBytes) * 100
	if level < 50 || level > 53 {
		t.Errorf("%.1f%% in use when the test began, want 50%%", level)
	}
	if int64(s.Fill.TargetUsedBytes-s.Fill.UsedBeforeBytes) != s.Fill.WrittenBytes {
		t.Errorf("wrote %d bytes to go from %d to %d in use", s.Fill.WrittenBytes, s.Fill.UsedBeforeBytes, s.Fill.TargetUsedBytes)
	}
	assertSameListing(t, fs.dir, before)
	if after := usedBytes(t, fs.dir); after > usedBefore+1<<20 {
		t.Errorf("%d bytes in use after the run, %d before", after, usedBefore)
	}

	// A level the free space cannot reach is refused before anything is
	// written.
	o, _ = cdmRun(t, fs.dir, "--cdm-preset", "demo", "--fill", "99%")
	if o.code != exitUsage {
		t.Errorf("--fill 99%%: exit %d, want %d", o.code, exitUsage)
	}
	assertOneLineError(t, o.stderr, "--fill", "free")
	assertSameListing(t, fs.dir, before)
}

// A CrystalDiskMark run killed with SIGKILL leaves its private directory;
// `clyde block --cleanup --filename DIR` removes it and nothing else.
func TestCDMKillThenCleanup(t *testing.T) {
	fs := makeDirectExt4(t, 128)
	populate(t, fs.dir)
	before := listing(t, fs.dir)
	args := append([]string{"block", "--filename", fs.dir}, cdmQuick...)
	r := startClyde(t, append(args, "--runtime", "30")...)
	r.waitUntil(t, "the private directory", func() bool {
		m, _ := filepath.Glob(filepath.Join(fs.dir, "clyde.*", "clyde-cdm.tmp"))
		return len(m) == 1
	})
	r.signal(t, syscall.SIGKILL)
	r.wait(t)
	left, _ := filepath.Glob(filepath.Join(fs.dir, "clyde.*"))
	if len(left) != 1 {
		t.Fatalf("after SIGKILL: %v, want the private directory", left)
	}
	o := runClyde(t, "block", "--cleanup", "--filename", fs.dir)
	if o.code != exitOK || !strings.Contains(o.stdout, "removed "+left[0]) {
		t.Errorf("cleanup: exit %d, stdout %q, stderr %q", o.code, o.stdout, o.stderr)
	}
	assertSameListing(t, fs.dir, before)
}

// clyde iometer runs the shipped write-mix file on ext4 uncached, and
// refuses a malformed file with its line.
func TestIometerFile(t *testing.T) {
	fs := makeDirectExt4(t, 128)
	target := filepath.Join(fs.dir, "iobw.tst")
	o := runClyde(t, "iometer", "../docs/iometer/4k-random-write-mixes.icf", "--filename", target, "--size", "16m",
		"--runtime", "200ms", "--ramp_time", "0", "--output-format", "json", "--no-history")
	if o.code != exitOK {
		t.Fatalf("exit %d: %s", o.code, o.stderr)
	}
	var res result.Block
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Iometer == nil || len(res.Iometer.Tests) != 4 {
		t.Fatalf("iometer %+v, want 4 tests", res.Iometer)
	}
	for i, want := range []float64{1, 10, 50, 90} {
		it := res.Iometer.Tests[i]
		n := float64(it.ReadIOs + it.WriteIOs)
		// Each I/O draws its direction: the share is within 4.5 standard
		// deviations of a binomial of the I/Os a 200 ms test did on this
		// machine (few on a busy one), and never further than 5 points
		// off when it did many.
		p := want / 100
		tol := max(5, 450*math.Sqrt(p*(1-p)/n))
		share := float64(it.WriteIOs) / n * 100
		if n == 0 || it.OutstandingIOs != 1 || math.Abs(share-want) > tol || res.Jobs[i].Options.Get("direct") != "1" {
			t.Errorf("test %q: %.0f I/Os, %d outstanding, %.1f%% writes (want %.0f within %.1f), direct %s", it.AccessSpec, n, it.OutstandingIOs, share, want, tol,
				res.Jobs[i].Options.Get("direct"))
		}
	}
	if !strings.Contains(o.stderr, "ignored") || strings.Count(o.stderr, "\n") != 1 {
		t.Errorf("want one stderr line naming what was ignored, got %q", o.stderr)
	}
	if got := entries(t, fs.dir); strings.Join(got, ",") != "lost+found" {
		t.Errorf("left %v", got)
	}

	bad := filepath.Join(t.TempDir(), "bad.icf")
	b, err := os.ReadFile("../docs/iometer/4k-random-write-mixes.icf")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Replace(string(b), "4096,100,99,100,0,1,4096,0", "4096,100,199,100,0,1,4096,0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	o = runClyde(t, "iometer", bad, "--filename", target, "--no-history")
	if o.code != exitUsage {
		t.Errorf("malformed: exit %d, want %d", o.code, exitUsage)
	}
	assertOneLineError(t, o.stderr, bad+":48:", "0..100")
	if _, err := os.Stat(target); err == nil {
		t.Error("the refused run created the target")
	}
}
