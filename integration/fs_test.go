//go:build linux

package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// imageMiB is each filesystem's size: xfs refuses less than 300 MiB, and
// the others have room for a 64 MiB file and its metadata.
var imageMiB = map[fsKind]int{btrfs: 320, ext4: 256, xfs: 320, ntfs: 256, tmpfs: 256}

// TestFSOnRealFilesystems runs clyde fs and clyde block at small sizes on
// each filesystem and checks the results are sane, the filesystem is named
// as the kernel names it, and nothing is left behind or touched. The cases
// run in parallel, each on a filesystem of its own; ntfs-3g's per-char
// phases (one FUSE request per byte, most of the suite's time on that
// filesystem) are a case of their own beside its other phases.
func TestFSOnRealFilesystems(t *testing.T) {
	t.Parallel()
	// -f1: per-char over 1 MiB; -f: no per-char.
	full := []string{"-s", "64", "-r", "0", "-f1", "-n", "2:4k:0:4"}
	cases := []struct {
		name    string
		kind    fsKind
		args    []string
		perChar bool // the per-char phases run
		files   bool // the file phases run
		block   bool // clyde block runs too
	}{
		{"btrfs", btrfs, full, true, true, true},
		{"ext4", ext4, full, true, true, true},
		{"xfs", xfs, full, true, true, true},
		{"ntfs-3g", ntfs, []string{"-s", "64", "-r", "0", "-f", "-n", "2:4k:0:4"}, false, true, true},
		{"ntfs-3g per-char", ntfs, []string{"-s", "1", "-r", "0", "-f1", "-n", "0"}, true, false, false},
		{"tmpfs", tmpfs, full, true, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs := makeFS(t, tc.kind, imageMiB[tc.kind])
			populate(t, fs.dir)
			before := listing(t, fs.dir)
			out := t.TempDir()

			jsonPath := filepath.Join(out, "fs.json")
			r := runClyde(t, append(append([]string{"fs", "-d", fs.dir}, tc.args...), "-q", "-z", "7", "-m", "it", "--json", jsonPath)...)
			if r.code != exitOK {
				t.Fatalf("clyde fs exit %d; stderr:\n%s", r.code, r.stderr)
			}
			if tc.perChar {
				assertBonnieShaped(t, r.stderr, r.stdout, true, tc.files)
			} else {
				assertBonnieShapedWithout(t, r.stderr, r.stdout, true, tc.files, []result.FSTest{result.PutChar, result.GetChar})
			}
			res := readFSResult(t, jsonPath)
			assertFilesystemNamed(t, res.Provenance.Filesystem, fs)
			for i, tr := range res.Runs[0].Tests {
				test := result.FSTest(i)
				perChar := test == result.PutChar || test == result.GetChar
				if want := (test.IsIO() && (tc.perChar || !perChar)) || (!test.IsIO() && tc.files); !want {
					if tr.Ran {
						t.Errorf("%s ran; this case's flags %q skip it", tr.Name, tc.args)
					}
					continue
				}
				if !tr.Ran || tr.Ops <= 0 || tr.ElapsedNs <= 0 || tr.RatePerSec <= 0 {
					t.Errorf("%s: ran %v ops %d elapsed %d rate %v %s, want a measured rate",
						tr.Name, tr.Ran, tr.Ops, tr.ElapsedNs, tr.RatePerSec, tr.RateUnit)
				}
			}
			assertColdReads(t, res, fs, tc.name == "ntfs-3g per-char")
			assertSameListing(t, fs.dir, before)
			if !tc.block {
				return
			}

			blockJSON := filepath.Join(out, "block.json")
			r = runClyde(t, "block", "--filename", filepath.Join(fs.dir, "clyde-block.tmp"),
				"--size", "16m", "--rw", "randrw", "--bs", "4k", "--runtime", "1",
				"--output-format", "json", "--output", blockJSON)
			if r.code != exitOK {
				t.Fatalf("clyde block exit %d; stderr:\n%s", r.code, r.stderr)
			}
			assertBlockSane(t, blockJSON, fs)
			assertSameListing(t, fs.dir, before)
		})
	}
}

// assertColdReads checks every read phase says how cold it was: on a disk
// filesystem cold, and on ntfs-3g (a FUSE filesystem reading its device
// through the device's own page cache) with that cache dropped and checked
// as well; tmpfs keeps its pages and says so.
func assertColdReads(t *testing.T, res *result.FS, fs *testFS, tiny bool) {
	t.Helper()
	for _, test := range []result.FSTest{result.Rewrite, result.GetBlock, result.Seeks} {
		c := res.Runs[0].Tests[test].Cache
		switch {
		case c == nil:
			t.Errorf("%s: no cache state", test.Name())
		case fs.kind == tmpfs:
			if c.Cold {
				t.Errorf("%s on tmpfs claims cold reads", test.Name())
			}
		case !c.Cold && tiny && fs.kind == ntfs && notColdForTheDeviceAlone(c):
			// A 1 MiB file on ntfs-3g: the rule allows under 10 KiB of the
			// device's pages to stay, and now and then (about 1 run in 4 in
			// the whole package) 1.75 MiB of ntfs-3g's device pages survive
			// the drop. Not cold is then the rule's verdict on the figures,
			// which is what is checked here; the 64 MiB case must be cold.
			t.Logf("%s: not cold by the rule: %d bytes of %s's pages stayed for a read of %d", test.Name(), c.Device.ResidentBytes, fs.dev, c.FileBytes)
		case !c.Cold:
			var dev result.CacheState
			if c.Device != nil {
				dev = *c.Device
			}
			t.Errorf("%s: not cold: %+v; device %+v", test.Name(), *c, dev)
		case fs.kind == ntfs && (c.Device == nil || !c.Device.Evicted || !c.Device.Cold):
			t.Errorf("%s on ntfs-3g: the device's cache was not dropped and checked: %+v", test.Name(), c.Device)
		}
	}
}

// notColdForTheDeviceAlone reports whether a read's cache state is not
// cold by the rule (under 1% of the read still resident at every level)
// for the FUSE device's pages alone: the file's own pages and every loop
// level beneath are cold, the device was dropped and counted, and what
// stayed of it is 1% of the read or more.
func notColdForTheDeviceAlone(c *result.CacheState) bool {
	if c.ResidentBytes < 0 || c.ResidentBytes*100 >= c.FileBytes {
		return false
	}
	for _, l := range c.Stack {
		if !l.Cold {
			return false
		}
	}
	d := c.Device
	return d != nil && d.Evicted && d.ResidentBytes*100 >= c.FileBytes
}

// assertFilesystemNamed checks the provenance names the filesystem as the
// kernel does, and explains fuseblk.
func assertFilesystemNamed(t *testing.T, got result.Filesystem, fs *testFS) {
	t.Helper()
	if got.Type != fs.kind.kernelType() || got.MountPoint != fs.dir {
		t.Errorf("filesystem type %q at %q, want %q at %q", got.Type, got.MountPoint, fs.kind.kernelType(), fs.dir)
	}
	if fs.kind == ntfs && !strings.Contains(got.Note, "ntfs-3g") {
		t.Errorf("fuseblk note %q does not say it is ntfs-3g", got.Note)
	}
	if fs.dev != "" && got.Source != fs.dev {
		t.Errorf("filesystem source %q, want %s", got.Source, fs.dev)
	}
}

// assertBlockSane checks a clyde block randrw result on a file: both
// directions moved data, and the file it created is recorded as created.
func assertBlockSane(t *testing.T, path string, fs *testFS) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res result.Block
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("decode %s: %v", path, err)
	}
	if len(res.Jobs) != 1 {
		t.Fatalf("%d jobs, want 1", len(res.Jobs))
	}
	j := res.Jobs[0]
	for _, d := range []struct {
		name string
		dir  result.BlockDir
	}{{"read", j.Read}, {"write", j.Write}} {
		if d.dir.IOPS <= 0 || d.dir.BWBytes <= 0 || d.dir.TotalIOs <= 0 || d.dir.Lat.N <= 0 {
			t.Errorf("%s: iops %v bw %d ios %d lat N %d, want all above zero",
				d.name, d.dir.IOPS, d.dir.BWBytes, d.dir.TotalIOs, d.dir.Lat.N)
		}
	}
	if !res.Target.Created || res.Target.Kind != "file" {
		t.Errorf("target kind %q created %v, want a file clyde created", res.Target.Kind, res.Target.Created)
	}
	if got := res.Provenance.Filesystem.Type; got != fs.kind.kernelType() {
		t.Errorf("block result filesystem %q, want %q", got, fs.kind.kernelType())
	}
}
