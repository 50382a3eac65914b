//go:build linux

package integration

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/clydebench/clyde/result"
)

// copySets are small sets with several readwrite buffers per big file and
// files in two directories, so every path of clyde copy runs in well under
// a second.
var copySets = []string{"--set", "1m:3,4k:20", "--dirs", "2", "--seed", "4", "--no-history"}

func readCopyResult(t *testing.T, path string) *result.Copy {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read JSON result: %v", err)
	}
	res, err := result.DecodeCopy(b)
	if err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	return res
}

// TestCopyOnEachFilesystem runs every method on btrfs (which clones, and
// whose copy_file_range shares extents too), ext4 (which cannot clone) and
// ntfs-3g (FUSE, whose device cache must be dropped for cold sources). Each
// filesystem must hold what it held before.
func TestCopyOnEachFilesystem(t *testing.T) {
	cases := []struct {
		kind      fsKind
		sizeMiB   int
		cloneWork bool
	}{
		{btrfs, 256, true},
		{ext4, 64, false},
		{ntfs, 64, false},
	}
	for _, tc := range cases {
		t.Run(string(tc.kind), func(t *testing.T) {
			fs := makeFS(t, tc.kind, tc.sizeMiB)
			populate(t, fs.dir)
			before := listing(t, fs.dir)
			js := filepath.Join(t.TempDir(), "r.json")
			o := runClyde(t, append([]string{"copy", "-d", fs.dir, "--method", "all", "--json", js}, copySets...)...)
			if o.code != exitOK {
				t.Fatalf("exit %d; stderr:\n%s", o.code, o.stderr)
			}
			assertSameListing(t, fs.dir, before)
			res := readCopyResult(t, js)
			if res.Provenance.Filesystem.Type != tc.kind.kernelType() {
				t.Errorf("filesystem recorded as %q, want %q", res.Provenance.Filesystem.Type, tc.kind.kernelType())
			}
			clone := res.Methods[2]
			if clone.Method != "clone" || clone.Available != tc.cloneWork {
				t.Fatalf("clone listed as %+v, want available %v", clone, tc.cloneWork)
			}
			for _, f := range res.Results {
				if !f.Ran || !f.Verified || !f.SourcesCold() {
					t.Errorf("%s with %s: ran %v, verified %v, sources cold %v (%+v, device %+v)",
						f.Set, f.Method, f.Ran, f.Verified, f.SourcesCold(), f.SourceCache, f.DeviceCache)
				}
				if (f.DeviceCache != nil) != (tc.kind == ntfs) {
					t.Errorf("%s with %s: device cache %+v on %s", f.Set, f.Method, f.DeviceCache, tc.kind)
				}
				switch {
				case f.Method == "readwrite" && (f.NotDataCopy || f.SharedFiles != 0):
					t.Errorf("readwrite %s is marked as not copying data", f.Set)
				case f.Method == "clone" && (!f.NotDataCopy || f.SharedFiles != f.Files):
					t.Errorf("clone %s: not a data copy %v, %d of %d copies share extents", f.Set, f.NotDataCopy, f.SharedFiles, f.Files)
				case f.Method == "copy_file_range" && tc.kind == btrfs && !f.NotDataCopy:
					t.Errorf("copy_file_range on btrfs reflinks, but %s is counted as a data copy", f.Set)
				case f.Method == "copy_file_range" && tc.kind != btrfs && f.NotDataCopy:
					t.Errorf("copy_file_range on %s copies data, but %s is marked a clone (%d shared)", tc.kind, f.Set, f.SharedFiles)
				}
			}
			rates, clones, _ := strings.Cut(o.stdout, "no data copied")
			if strings.Contains(rates, "  clone ") || tc.cloneWork != strings.Contains(clones, "  clone ") {
				t.Errorf("clone rows misplaced in the report:\n%s", o.stdout)
			}
			if !tc.cloneWork {
				o := runClyde(t, append([]string{"copy", "-d", fs.dir, "--method", "clone"}, copySets...)...)
				if o.code != exitUsage {
					t.Errorf("--method clone: exit %d, want %d", o.code, exitUsage)
				}
				assertOneLineError(t, o.stderr, "clyde: --method: clone cannot run on "+tc.kind.kernelType(), "FICLONE", "EOPNOTSUPP")
				assertSameListing(t, fs.dir, before)
			}
		})
	}
}

// TestCopyAcrossFilesystems copies from ext4 to btrfs: readwrite works, the
// kernel's copy and a clone cannot cross filesystems, and each side keeps
// what it held.
func TestCopyAcrossFilesystems(t *testing.T) {
	src, dst := makeFS(t, ext4, 64), makeFS(t, btrfs, 256)
	populate(t, src.dir)
	populate(t, dst.dir)
	beforeSrc, beforeDst := listing(t, src.dir), listing(t, dst.dir)
	js := filepath.Join(t.TempDir(), "r.json")
	o := runClyde(t, append([]string{"copy", "-d", src.dir, "--to", dst.dir, "--method", "all", "--json", js}, copySets...)...)
	if o.code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", o.code, o.stderr)
	}
	assertSameListing(t, src.dir, beforeSrc)
	assertSameListing(t, dst.dir, beforeDst)
	res := readCopyResult(t, js)
	if res.ToFilesystem == nil || res.ToFilesystem.Type != "btrfs" || res.Provenance.Filesystem.Type != "ext4" {
		t.Fatalf("sides recorded as %+v to %+v", res.Provenance.Filesystem, res.ToFilesystem)
	}
	for _, m := range res.Methods[1:] {
		if m.Available || !strings.Contains(m.Reason, "EXDEV") {
			t.Errorf("%s across filesystems: %+v, want not available (EXDEV)", m.Method, m)
		}
	}
	if len(res.Results) != 2 || !res.Results[0].Verified || !res.Results[1].Verified {
		t.Errorf("results %+v, want both sets copied with readwrite and verified", res.Results)
	}
	o = runClyde(t, append([]string{"copy", "-d", src.dir, "--to", dst.dir, "--method", "copy_file_range"}, copySets...)...)
	if o.code != exitUsage {
		t.Errorf("--method copy_file_range across filesystems: exit %d, want %d", o.code, exitUsage)
	}
	assertOneLineError(t, o.stderr, "clyde: --method: copy_file_range cannot run on ext4 at "+src.dir+" to btrfs at "+dst.dir, "EXDEV")
	assertSameListing(t, src.dir, beforeSrc)
	assertSameListing(t, dst.dir, beforeDst)
}

// longSets last long enough (tens of milliseconds a step) for a signal sent
// on a step's progress words to land inside it.
var longSets = []string{"--set", "16m:4,4k:200", "--seed", "4", "--no-history"}

// copySteps are progress words of clyde copy's steps and the words its
// one-line error uses for them. Verification reads copies from the page
// cache too fast for a signal sent on its words to land reliably inside
// it; copybench's TestCancelLeavesNothing cancels it in-process instead.
var copySteps = []struct{ word, name string }{
	{"Creating 16Mx4 sources...", "create 16Mx4 sources"},
	{"Copying 16Mx4 with readwrite...", "copy 16Mx4 with readwrite"},
	{"Copying 4Kx200 with readwrite...", "copy 4Kx200 with readwrite"},
}

// TestCopySignals sends SIGINT, SIGTERM or SIGHUP in each step of a copy
// from ext4 to tmpfs: clyde stops with 130, one line naming the step, the
// JSON of what finished, and both filesystems as they were.
func TestCopySignals(t *testing.T) {
	src, dst := makeFS(t, ext4, 256), makeFS(t, tmpfs, 128)
	populate(t, src.dir)
	populate(t, dst.dir)
	beforeSrc, beforeDst := listing(t, src.dir), listing(t, dst.dir)
	for i, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		step := copySteps[i]
		t.Run(sig.String()+" in "+step.name, func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "r.json")
			r := startClyde(t, append([]string{"copy", "-d", src.dir, "--to", dst.dir, "--json", js}, longSets...)...)
			r.pauseAt(t, step.word)
			r.signal(t, sig)
			r.resume(t)
			o := r.wait(t)
			if o.code != exitInterrupted {
				t.Errorf("exit %d, want %d; stderr:\n%s", o.code, exitInterrupted, o.stderr)
			}
			assertOneLineError(t, o.stderr, "interrupted", step.name)
			if res := readCopyResult(t, js); !res.Interrupted {
				t.Errorf("JSON not marked interrupted")
			}
			assertSameListing(t, src.dir, beforeSrc)
			assertSameListing(t, dst.dir, beforeDst)
		})
	}
}

// TestCopyENOSPC fills the filesystem the moment a step starts (clyde held
// with SIGSTOP), after the preflight accepted the run: the step fails in one
// line saying so, and nothing is left.
func TestCopyENOSPC(t *testing.T) {
	for _, step := range []struct{ word, name string }{
		{"Creating 8Mx3 sources...", "create 8Mx3 sources"},
		{"Copying 8Mx3 with readwrite...", "copy 8Mx3 with readwrite"},
	} {
		t.Run(step.name, func(t *testing.T) {
			fs := makeFS(t, ext4, 128)
			populate(t, fs.dir)
			before := listing(t, fs.dir)
			r := startClyde(t, "copy", "-d", fs.dir, "--set", "8m:3", "--no-history")
			r.pauseAt(t, step.word)
			full := ballast(t, fs.dir)
			r.resume(t)
			o := r.wait(t)
			if o.code != exitFailed {
				t.Errorf("exit %d, want %d; stderr:\n%s", o.code, exitFailed, o.stderr)
			}
			assertOneLineError(t, o.stderr, "clyde: "+step.name+": ", "no space left on device")
			if err := os.Remove(full); err != nil {
				t.Fatal(err)
			}
			assertSameListing(t, fs.dir, before)
		})
	}
	t.Run("preflight refuses a run that cannot fit", func(t *testing.T) {
		fs := makeFS(t, tmpfs, 16)
		before := listing(t, fs.dir)
		o := runClyde(t, "copy", "-d", fs.dir, "--no-history")
		if o.code != exitUsage {
			t.Errorf("exit %d, want %d", o.code, exitUsage)
		}
		assertOneLineError(t, o.stderr, "clyde: preflight: ", "only", "free", "--set")
		assertSameListing(t, fs.dir, before)
	})
}

// TestCopyKillThenCleanup kills clyde mid-copy with SIGKILL, which it cannot
// catch: both sides keep a private directory, and `clyde copy --cleanup -d
// A --to B` removes exactly those.
func TestCopyKillThenCleanup(t *testing.T) {
	src, dst := makeFS(t, ext4, 256), makeFS(t, tmpfs, 128)
	populate(t, src.dir)
	beforeSrc, beforeDst := listing(t, src.dir), listing(t, dst.dir)
	r := startClyde(t, append([]string{"copy", "-d", src.dir, "--to", dst.dir}, longSets...)...)
	r.pauseAt(t, "Copying 16Mx4 with readwrite...")
	r.signal(t, syscall.SIGKILL)
	r.wait(t)
	leftSrc, _ := filepath.Glob(filepath.Join(src.dir, "clyde.*"))
	leftDst, _ := filepath.Glob(filepath.Join(dst.dir, "clyde.*"))
	if len(leftSrc) != 1 || len(leftDst) != 1 {
		t.Fatalf("after SIGKILL %v and %v, want one private directory on each side", leftSrc, leftDst)
	}
	o := runClyde(t, "copy", "--cleanup", "-d", src.dir, "--to", dst.dir)
	if o.code != exitOK || o.stdout != "removed "+leftSrc[0]+"\nremoved "+leftDst[0]+"\n" {
		t.Errorf("--cleanup: exit %d stdout %q stderr %q", o.code, o.stdout, o.stderr)
	}
	assertSameListing(t, src.dir, beforeSrc)
	assertSameListing(t, dst.dir, beforeDst)
}
