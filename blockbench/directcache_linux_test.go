package blockbench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/pagecache"
	"github.com/clydebench/clyde/result"
)

// directJob is a small direct=1 random read on a new file in dir.
func directJob(dir string) Job {
	j := NewJob(filepath.Join(dir, "direct.dat"))
	j.RW, j.BlockSizes, j.Size, j.Direct, j.IOEngine = RandRead, []int64{4096}, 1<<20, true, EngineAuto
	j.TimeBased, j.Runtime = false, 0
	return j
}

// checkCacheNoted runs a direct job in dir and checks the result says the
// page cache served it, naming what, and that a plan that needs uncached
// I/O there (CrystalDiskMark's) is refused the same way.
func checkCacheNoted(t *testing.T, dir, what string) {
	t.Helper()
	res, err := Run(context.Background(), directJob(dir))
	if err != nil {
		if strings.Contains(err.Error(), "O_DIRECT") {
			clydetest.Skipf(t, "this kernel refuses O_DIRECT on %s: %v", what, err)
		}
		t.Fatal(err)
	}
	if len(res.Jobs) != 1 || !res.Jobs[0].Config.Direct {
		t.Fatalf("jobs %d, want one run with direct=1", len(res.Jobs))
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool {
		return strings.Contains(n, "page cache served") && strings.Contains(n, what)
	}) {
		t.Errorf("direct=1 on %s, and the notes do not say the cache served it: %q", what, res.Notes)
	}
	_, err = RunPlan(context.Background(), privatePlan(dir, 1<<20, false))
	var ue *result.UsageError
	if !asUsage(err, &ue) || ue.Flag != "--buffered" || !strings.Contains(ue.Msg, what) {
		t.Errorf("uncached plan on %s: err = %v, want a refusal naming it and --buffered", what, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

// TestDirectOnTmpfsIsNoted: tmpfs accepts O_DIRECT since Linux 6.6 and
// serves it from memory (issue 20, case 13).
func TestDirectOnTmpfsIsNoted(t *testing.T) {
	dir, err := os.MkdirTemp("/dev/shm", "clyde-direct-test-")
	if err != nil {
		clydetest.Skipf(t, "no /dev/shm here: %v", err)
	}
	defer os.RemoveAll(dir)
	if what, _ := pagecache.CachedOnly(dir); !strings.HasPrefix(what, "tmpfs") {
		clydetest.Skipf(t, "%s is not tmpfs here", dir)
	}
	checkCacheNoted(t, dir, "tmpfs")
}

// TestDirectOnExt4DataJournalIsNoted: ext4 mounted data=journal accepts
// O_DIRECT and does buffered I/O (issue 20, case 13), on a loop image.
func TestDirectOnExt4DataJournalIsNoted(t *testing.T) {
	for _, tool := range []string{"mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			clydetest.Skipf(t, "%s not installed", tool)
		}
	}
	// With direct I/O, so that the loop device adds no cache of its own.
	dev, _ := clydetest.LoopDevice(t, 32<<20, "--direct-io=on")
	run(t, "mkfs.ext4", "-q", "-F", dev)
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("mount", "-o", "data=journal", dev, mnt).CombinedOutput(); err != nil {
		clydetest.Skipf(t, "mount -o data=journal failed: %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", mnt, err, out)
		}
	})
	dir := filepath.Join(mnt, "bench")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	checkCacheNoted(t, dir, "data=journal")

	// The same filesystem in its default mode (ordered) gets no note.
	run(t, "umount", mnt)
	run(t, "mount", dev, mnt)
	res, err := Run(context.Background(), directJob(dir))
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "page cache served") }) {
		t.Errorf("ordered ext4 noted as cached: %q", res.Notes)
	}

	// ext4's per-file data journaling does the same on an ordered mount:
	// a directory with chattr +j gives it to the files made in it. The
	// flag is set offline with debugfs, since chattr +j takes
	// CAP_SYS_RESOURCE, which a container's root may lack.
	if _, err := exec.LookPath("debugfs"); err != nil {
		clydetest.Skip(t, "debugfs (e2fsprogs) not installed")
	}
	journaled := filepath.Join(mnt, "journaled")
	if err := os.Mkdir(journaled, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, "umount", mnt)
	run(t, "debugfs", "-w", "-R", "set_inode_field /journaled flags 0x84000", dev) // EXTENTS|JOURNAL_DATA
	run(t, "mount", dev, mnt)
	if out, err := exec.Command("lsattr", "-d", journaled).CombinedOutput(); err != nil || !strings.Contains(strings.Fields(string(out))[0], "j") {
		t.Fatalf("debugfs did not set +j: %v: %s", err, out)
	}
	checkCacheNoted(t, journaled, "chattr +j")
}
