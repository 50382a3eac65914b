//go:build linux

package blockbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/osio"
)

// fakeSystem is a fake /sys, /proc and /dev that the safety rules read
// instead of the machine's: loop devices, mounts, swap and other processes'
// descriptors, made without root.
type fakeSystem struct {
	t                *testing.T
	sys, proc, dev   string
	mountinfo, swaps []string
}

// newFakeSystem points sysfsRoot, procRoot and devRoot at empty trees until
// the test ends.
func newFakeSystem(t *testing.T) *fakeSystem {
	t.Helper()
	root := t.TempDir()
	fs := &fakeSystem{t: t, sys: filepath.Join(root, "sys"), proc: filepath.Join(root, "proc"), dev: filepath.Join(root, "dev")}
	for _, d := range []string{filepath.Join(fs.sys, "block"), filepath.Join(fs.sys, "dev", "block"), filepath.Join(fs.proc, "self"), fs.dev} {
		fs.mkdir(d)
	}
	oldSys, oldProc, oldDev := sysfsRoot, procRoot, devRoot
	sysfsRoot, procRoot, devRoot = fs.sys, fs.proc, fs.dev
	t.Cleanup(func() { sysfsRoot, procRoot, devRoot = oldSys, oldProc, oldDev })
	fs.flush()
	return fs
}

func (fs *fakeSystem) mkdir(d string) {
	fs.t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		fs.t.Fatal(err)
	}
}

func (fs *fakeSystem) write(path, content string) {
	fs.t.Helper()
	fs.mkdir(filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		fs.t.Fatal(err)
	}
}

// flush writes the mount and swap tables.
func (fs *fakeSystem) flush() {
	fs.write(filepath.Join(fs.proc, "self", "mountinfo"), strings.Join(fs.mountinfo, "\n")+"\n")
	fs.write(filepath.Join(fs.proc, "swaps"), "Filename\tType\tSize\tUsed\tPriority\n"+strings.Join(fs.swaps, "\n"))
}

// loop adds loop device name, number 7:minor, bound to backing.
func (fs *fakeSystem) loop(name string, minor int, backing string) {
	fs.t.Helper()
	dir := filepath.Join(fs.sys, "block", name)
	fs.write(filepath.Join(dir, "dev"), fmt.Sprintf("7:%d\n", minor))
	fs.write(filepath.Join(dir, "loop", "backing_file"), backing+"\n")
	fs.mkdir(filepath.Join(fs.sys, "class", "block", name, "holders"))
	if err := os.Symlink(dir, filepath.Join(fs.sys, "dev", "block", fmt.Sprintf("7:%d", minor))); err != nil {
		fs.t.Fatal(err)
	}
}

// holder stacks dm-N (253:minor) on the device under.
func (fs *fakeSystem) holder(under, name string, minor int) {
	fs.t.Helper()
	fs.write(filepath.Join(fs.sys, "class", "block", name, "dev"), fmt.Sprintf("253:%d\n", minor))
	fs.mkdir(filepath.Join(fs.sys, "class", "block", under, "holders", name))
}

// mount records the device maj:min as mounted on dir.
func (fs *fakeSystem) mount(majMin, dir string) {
	fs.mountinfo = append(fs.mountinfo, fmt.Sprintf("99 1 %s / %s rw,relatime shared:1 - ext4 /dev/fake rw", majMin, dir))
	fs.flush()
}

// process adds pid with descriptor 3 on path, opened with flags (octal in
// fdinfo); flags < 0 leaves fdinfo out.
func (fs *fakeSystem) process(pid int, comm, path string, flags int) {
	fs.t.Helper()
	dir := filepath.Join(fs.proc, fmt.Sprint(pid))
	fs.write(filepath.Join(dir, "comm"), comm+"\n")
	fs.mkdir(filepath.Join(dir, "fd"))
	if err := os.Symlink(path, filepath.Join(dir, "fd", "3")); err != nil {
		fs.t.Fatal(err)
	}
	if flags >= 0 {
		fs.write(filepath.Join(dir, "fdinfo", "3"), fmt.Sprintf("pos:\t0\nflags:\t0%o\nmnt_id:\t24\nino:\t1\n", flags))
	}
}

// mapping adds a /proc/PID/maps line mapping path with perms.
func (fs *fakeSystem) mapping(pid int, comm, path, perms string) {
	fs.t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		fs.t.Fatal(err)
	}
	dir := filepath.Join(fs.proc, fmt.Sprint(pid))
	fs.write(filepath.Join(dir, "comm"), comm+"\n")
	fs.mkdir(filepath.Join(dir, "fd"))
	fs.write(filepath.Join(dir, "maps"), fmt.Sprintf("7f0000000000-7f0000100000 %s 00000000 %x:%02x %d   %s\n",
		perms, unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino, path))
}

// userFile is a file of someone's with 1 MiB of data (room for a preset's
// largest block), and what identify says of it.
func userFile(t *testing.T) (string, osio.Entry) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "user.img")
	if err := os.WriteFile(path, []byte(strings.Repeat("data", 256<<10)), 0o640); err != nil {
		t.Fatal(err)
	}
	f, err := osio.OpenFile(path, osio.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	e, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return path, e
}

func TestFileWriteRules(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(fs *fakeSystem, path string)
		destroy bool
		// found is in the refusal; "" means allowed. allow is the flag it names.
		found, allow string
	}{
		{"plain file needs destroy-data", func(*fakeSystem, string) {}, false, "an existing file of 1048576 bytes", "--destroy-data"},
		{"plain file with destroy-data", func(*fakeSystem, string) {}, true, "", ""},
		{"image of an attached loop device", func(fs *fakeSystem, p string) { fs.loop("loop900", 900, p) }, true,
			"it is the backing file of /dev/loop900 (losetup -d /dev/loop900 detaches it)", ""},
		{"image of a mounted loop device", func(fs *fakeSystem, p string) { fs.loop("loop900", 900, p); fs.mount("7:900", "/mnt/img") }, true,
			"it is the backing file of /dev/loop900, and /dev/loop900 is mounted on /mnt/img (ext4)", ""},
		{"image of a loop device with LVM on it", func(fs *fakeSystem, p string) { fs.loop("loop900", 900, p); fs.holder("loop900", "dm-7", 7) }, true,
			"/dev/dm-7 (device-mapper, LVM or RAID) is stacked on it", ""},
		{"image of a mounted holder of the loop device", func(fs *fakeSystem, p string) {
			fs.loop("loop900", 900, p)
			fs.holder("loop900", "dm-7", 7)
			fs.mount("253:7", "/srv")
		}, true, "/dev/dm-7 is mounted on /srv", ""},
		{"another file behind the loop device", func(fs *fakeSystem, p string) { fs.loop("loop900", 900, p+".other") }, true, "", ""},
		{"open O_RDWR by another process", func(fs *fakeSystem, p string) { fs.process(4242, "qemu", p, os.O_RDWR|unix.O_LARGEFILE) }, true,
			"it is open for writing by process 4242 (qemu)", ""},
		{"open O_WRONLY by another process", func(fs *fakeSystem, p string) { fs.process(4242, "dd", p, os.O_WRONLY|unix.O_APPEND) }, true,
			"it is open for writing by process 4242 (dd)", ""},
		{"open read-only by another process", func(fs *fakeSystem, p string) { fs.process(4242, "cat", p, os.O_RDONLY|unix.O_LARGEFILE) }, false,
			"an existing file", "--destroy-data"},
		{"open read-only by another process, with destroy-data", func(fs *fakeSystem, p string) { fs.process(4242, "cat", p, os.O_RDONLY) }, true, "", ""},
		{"open with unreadable flags counts as writing", func(fs *fakeSystem, p string) { fs.process(4242, "vm", p, -1) }, true,
			"held open (for writing, as far as clyde can tell) by process 4242 (vm)", ""},
		{"mapped shared and writable", func(fs *fakeSystem, p string) { fs.mapping(4242, "lmdb", p, "rw-s") }, true,
			"it is mapped for writing (shared mmap) by process 4242 (lmdb)", ""},
		{"mapped private is not a writer", func(fs *fakeSystem, p string) { fs.mapping(4242, "ld.so", p, "rw-p") }, true, "", ""},
		{"swap file", func(fs *fakeSystem, p string) { fs.swaps = append(fs.swaps, p+"\tfile\t65532\t0\t-2"); fs.flush() }, true,
			"it is used as a swap file", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFakeSystem(t)
			path, e := userFile(t)
			tc.setup(fs, path)
			err := checkFileWrite(path, path, e, tc.destroy)
			if tc.found == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var re *RefusedError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a refusal", err)
			}
			if re.Kind != refusedFile || re.Allow != tc.allow || !strings.Contains(re.Found, tc.found) {
				t.Errorf("kind %q found %q allow %q; want file, %q, %q", re.Kind, re.Found, re.Allow, tc.found, tc.allow)
			}
			msg := err.Error()
			if !strings.Contains(msg, path) || (tc.allow != "" && !strings.Contains(msg, tc.allow)) {
				t.Errorf("refusal %q does not name the file and the flag", msg)
			}
			if tc.allow == "" && !strings.Contains(msg, "no flag allows writing to a file in use") {
				t.Errorf("refusal %q does not say no flag allows it", msg)
			}
		})
	}
}

// TestLoopImageRules: a second loop device over the image of one in use is
// refused; over an idle one it is not.
func TestLoopImageRules(t *testing.T) {
	cases := []struct {
		name  string
		setup func(fs *fakeSystem, img string)
		found string
	}{
		{"only loop device on its image", func(*fakeSystem, string) {}, ""},
		{"image shared with an idle loop device", func(fs *fakeSystem, img string) { fs.loop("loop901", 901, img) }, ""},
		{"image shared with a mounted loop device", func(fs *fakeSystem, img string) { fs.loop("loop901", 901, img); fs.mount("7:901", "/mnt/img") },
			"is also the backing file of /dev/loop901, and /dev/loop901 is mounted on /mnt/img"},
		{"image shared with a loop device with a holder", func(fs *fakeSystem, img string) {
			fs.loop("loop901", 901, img)
			fs.holder("loop901", "dm-3", 3)
		}, "/dev/dm-3 (device-mapper, LVM or RAID) is stacked on it"},
		{"image open for writing by a process", func(fs *fakeSystem, img string) { fs.process(4343, "qemu", img, os.O_RDWR) },
			"its backing file " + "IMG" + " is open for writing by process 4343 (qemu)"},
		{"a mounted loop device on another image", func(fs *fakeSystem, img string) { fs.loop("loop901", 901, img+".b"); fs.mount("7:901", "/mnt/b") }, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFakeSystem(t)
			img, _ := userFile(t)
			if err := os.WriteFile(img+".b", nil, 0o600); err != nil {
				t.Fatal(err)
			}
			fs.loop("loop900", 900, img)
			tc.setup(fs, img)
			found, err := loopImageInUse(devNode{name: "loop900", dev: unix.Mkdev(7, 900)})
			if err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(tc.found, "IMG", img)
			if (want == "") != (found == "") || !strings.Contains(found, want) {
				t.Errorf("found %q, want %q", found, want)
			}
		})
	}
}

func TestParseFdinfoFlags(t *testing.T) {
	cases := []struct {
		name  string
		in    string
		flags uint64
		ok    bool
	}{
		{"read-only", "pos:\t0\nflags:\t0100000\nmnt_id:\t24\n", 0o100000, true},
		{"read-write", "pos:\t4096\nflags:\t02100002\n", 0o2100002, true},
		{"write-only last line without newline", "pos:\t0\nflags:\t01", 0o1, true},
		{"no flags line", "pos:\t0\nmnt_id:\t24\n", 0, false},
		{"not octal", "flags:\t0109\n", 0, false},
		{"empty", "", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			flags, ok := parseFdinfoFlags([]byte(tc.in))
			if flags != tc.flags || ok != tc.ok {
				t.Errorf("got %o, %v; want %o, %v", flags, ok, tc.flags, tc.ok)
			}
		})
	}
}

func FuzzParseFdinfoFlags(f *testing.F) {
	f.Add([]byte("pos:\t0\nflags:\t0100002\nmnt_id:\t24\n"))
	f.Add([]byte("flags:\t"))
	f.Fuzz(func(t *testing.T, b []byte) {
		flags, ok := parseFdinfoFlags(b)
		if !ok && flags != 0 {
			t.Errorf("not ok but flags %o", flags)
		}
	})
}

func TestParseMapsLine(t *testing.T) {
	cases := []struct {
		name        string
		in          string
		dev, ino    uint64
		sharedWrite bool
		ok          bool
	}{
		{"shared writable", "7f1c2a000000-7f1c2a100000 rw-s 00000000 fd:01 1234567   /var/lib/db/data.mdb", unix.Mkdev(0xfd, 1), 1234567, true, true},
		{"private writable", "7f1c2a000000-7f1c2a100000 rw-p 00000000 08:02 42  /usr/lib/x.so", unix.Mkdev(8, 2), 42, false, true},
		{"shared read-only", "7f1c2a000000-7f1c2a100000 r--s 00000000 08:02 42  /x", unix.Mkdev(8, 2), 42, false, true},
		{"anonymous", "7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0   [stack]", 0, 0, false, true},
		{"path with spaces", "7f00-7f01 rw-s 00000000 103:05 9 /home/a b/c d", unix.Mkdev(0x103, 5), 9, true, true},
		{"too few fields", "7f00-7f01 rw-s 00000000 08:02", 0, 0, false, false},
		{"bad device", "7f00-7f01 rw-s 00000000 0802 1 /x", 0, 0, false, false},
		{"bad perms", "7f00-7f01 rws 00000000 08:02 1 /x", 0, 0, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dev, ino, sw, ok := parseMapsLine(tc.in)
			if dev != tc.dev || ino != tc.ino || sw != tc.sharedWrite || ok != tc.ok {
				t.Errorf("got %d %d %v %v; want %d %d %v %v", dev, ino, sw, ok, tc.dev, tc.ino, tc.sharedWrite, tc.ok)
			}
		})
	}
}

func FuzzParseMapsLine(f *testing.F) {
	f.Add("7f1c2a000000-7f1c2a100000 rw-s 00000000 fd:01 1234567   /var/lib/db/data.mdb")
	f.Add("7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0   [stack]")
	f.Fuzz(func(t *testing.T, line string) {
		dev, ino, sw, ok := parseMapsLine(line)
		if !ok && (dev != 0 || ino != 0 || sw) {
			t.Errorf("not ok but %d %d %v", dev, ino, sw)
		}
	})
}

// TestExistingFileWrites runs whole jobs on a user's file: anything that
// writes needs destroy-data and leaves the file as it was when refused;
// reads need nothing.
func TestExistingFileWrites(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(j *Job)
		refused bool
	}{
		{"write", func(j *Job) { j.RW = Write }, true},
		{"randrw", func(j *Job) { j.RW, j.RWMixRead = RandRW, 99 }, true},
		{"cdm preset (writes half its rows)", func(j *Job) { j.Profile, j.Passes, j.Size = ProfileCDM, 1, 0 }, true},
		{"read", func(j *Job) { j.RW = RandRead }, false},
		{"sustained preset (writes 30%)", func(j *Job) {
			ApplySustained(j)
			j.Profile, j.Size, j.Runtime, j.TimeBased, j.Direct = ProfileSustained, 0, 0, false, false
		}, true},
		{"write with destroy-data", func(j *Job) { j.RW, j.DestroyData = Write, true }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, _ := userFile(t)
			before, _ := os.ReadFile(path)
			j := countJob(path, Read, 64<<10, 4096)
			tc.edit(&j)
			_, err := Run(context.Background(), j)
			after, _ := os.ReadFile(path)
			fi, _ := os.Stat(path)
			if fi == nil || fi.Mode().Perm() != 0o640 {
				t.Errorf("the file's mode changed: %v", fi)
			}
			if !tc.refused {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var re *RefusedError
			if !errors.As(err, &re) || re.Allow != "--destroy-data" || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v, want a refusal naming %s and --destroy-data", err, path)
			}
			if !bytes.Equal(before, after) {
				t.Error("a refused write changed the file")
			}
		})
	}
}

// TestCleanupFailureKeepsMarker: when the data file cannot be removed the
// marker stays, so the cleanup can be run again.
func TestCleanupFailureKeepsMarker(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: making a file immutable (chattr +i) is how its removal is made to fail")
	}
	dir := t.TempDir()
	path := leftover(t, dir, "f", nil)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	const immutable = 0x10 // FS_IMMUTABLE_FL, linux/fs.h
	setFlags := func(on bool) error {
		flags, err := unix.IoctlGetUint32(int(f.Fd()), unix.FS_IOC_GETFLAGS)
		if err != nil {
			return err
		}
		if on {
			flags |= immutable
		} else {
			flags &^= immutable
		}
		return unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, int(flags))
	}
	if err := setFlags(true); err != nil {
		f.Close()
		t.Skipf("this filesystem cannot make a file immutable: %v", err)
	}
	_, err = Cleanup(path, false)
	if uerr := setFlags(false); uerr != nil {
		t.Fatal(uerr)
	}
	f.Close()
	if err == nil || !strings.Contains(err.Error(), "the marker is kept") {
		t.Fatalf("err = %v, want the failed removal reported", err)
	}
	if got := entries(t, dir); strings.Join(got, ",") != ".f.clyde-run,f" {
		t.Fatalf("left %v, want the file and its marker", got)
	}
	res, err := Cleanup(path, false)
	if err != nil || len(res.Removed) != 2 {
		t.Fatalf("second cleanup: %+v, %v", res, err)
	}
}
