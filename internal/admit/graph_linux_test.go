//go:build linux

package admit

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

// fakeSystem is a fake /sys, /proc and /dev that the admission rule reads
// instead of the machine's: block devices laid out as sysfs lays them out
// (a directory per device under devices/, linked from block/, class/block/
// and dev/block/), loop devices, mounts, swap, btrfs and other processes'
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
	for _, d := range []string{filepath.Join(fs.sys, "block"), filepath.Join(fs.sys, "class", "block"), filepath.Join(fs.sys, "dev", "block"),
		filepath.Join(fs.proc, "self"), fs.dev} {
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

func (fs *fakeSystem) symlink(target, link string) {
	fs.t.Helper()
	fs.mkdir(filepath.Dir(link))
	if err := os.Symlink(target, link); err != nil {
		fs.t.Fatal(err)
	}
}

// flush writes the mount and swap tables.
func (fs *fakeSystem) flush() {
	fs.write(filepath.Join(fs.proc, "self", "mountinfo"), strings.Join(fs.mountinfo, "\n")+"\n")
	fs.write(filepath.Join(fs.proc, "swaps"), "Filename\tType\tSize\tUsed\tPriority\n"+strings.Join(fs.swaps, "\n"))
}

// device makes the sysfs directory of a device maj:min called name, in
// parent (a disk's directory for a partition; "" for a whole disk), and
// returns it.
func (fs *fakeSystem) device(name string, maj, minor int, parent string) string {
	fs.t.Helper()
	dir := filepath.Join(fs.sys, "devices", "virtual", "block", name)
	if parent != "" {
		dir = filepath.Join(parent, name)
		fs.write(filepath.Join(dir, "partition"), "1\n")
	} else {
		fs.symlink(dir, filepath.Join(fs.sys, "block", name))
	}
	fs.write(filepath.Join(dir, "dev"), fmt.Sprintf("%d:%d\n", maj, minor))
	fs.mkdir(filepath.Join(dir, "holders"))
	fs.mkdir(filepath.Join(dir, "slaves"))
	fs.symlink(dir, filepath.Join(fs.sys, "class", "block", name))
	fs.symlink(dir, filepath.Join(fs.sys, "dev", "block", fmt.Sprintf("%d:%d", maj, minor)))
	return dir
}

// devDir is the sysfs directory of the device called name.
func (fs *fakeSystem) devDir(name string) string {
	fs.t.Helper()
	d, err := filepath.EvalSymlinks(filepath.Join(fs.sys, "class", "block", name))
	if err != nil {
		fs.t.Fatal(err)
	}
	return d
}

// loop adds loop device name, number 7:minor, bound to backing (a file's
// path, or /dev/NAME of another device).
func (fs *fakeSystem) loop(name string, minor int, backing string) {
	fs.t.Helper()
	dir := fs.device(name, 7, minor, "")
	fs.write(filepath.Join(dir, "loop", "backing_file"), backing+"\n")
}

// disk adds a whole disk 8:minor with partitions name1..nameN (8:minor+k).
func (fs *fakeSystem) disk(name string, minor, parts int) {
	dir := fs.device(name, 8, minor, "")
	for k := 1; k <= parts; k++ {
		fs.device(fmt.Sprintf("%s%d", name, k), 8, minor+k, dir)
	}
}

// stack makes name (maj:minor; 253 for device-mapper, 9 for md) a holder
// of every device in under, each of them its slave.
func (fs *fakeSystem) stack(name string, maj, minor int, under ...string) {
	fs.t.Helper()
	dir := fs.device(name, maj, minor, "")
	for _, u := range under {
		ud := fs.devDir(u)
		fs.symlink(dir, filepath.Join(ud, "holders", name))
		fs.symlink(ud, filepath.Join(dir, "slaves", u))
	}
}

// holder stacks dm-N (253:minor) on the device under.
func (fs *fakeSystem) holder(under, name string, minor int) { fs.stack(name, 253, minor, under) }

// btrfs records a mounted btrfs filesystem fsid over devices.
func (fs *fakeSystem) btrfs(fsid string, devices ...string) {
	fs.mkdir(filepath.Join(fs.sys, "fs", "btrfs", fsid, "devices"))
	for _, d := range devices {
		fs.symlink(fs.devDir(d), filepath.Join(fs.sys, "fs", "btrfs", fsid, "devices", d))
	}
	fs.mkdir(filepath.Join(fs.sys, "fs", "btrfs", "features"))
}

// mount records the device maj:min as mounted on dir.
func (fs *fakeSystem) mount(majMin, dir string) {
	fs.mountinfo = append(fs.mountinfo, fmt.Sprintf("99 1 %s / %s rw,relatime shared:1 - ext4 /dev/fake rw", majMin, dir))
	fs.flush()
}

// mountSource records source (a device path or an image file) mounted on
// dir with type fstype, on an anonymous device number as btrfs and
// file-backed erofs have.
func (fs *fakeSystem) mountSource(source, fstype, dir string) {
	fs.mountinfo = append(fs.mountinfo, fmt.Sprintf("98 1 0:77 / %s ro,relatime shared:2 - %s %s ro", dir, fstype, source))
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
// largest block), clyde's read-only descriptor on it (closed when the test
// ends), and what identify says of it.
func userFile(t *testing.T) (string, osio.File, osio.Entry) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "user.img")
	if err := os.WriteFile(path, []byte(strings.Repeat("data", 256<<10)), 0o640); err != nil {
		t.Fatal(err)
	}
	return openTarget(t, path)
}

// openTarget opens path read-only as blockbench does before asking Write.
func openTarget(t *testing.T, path string) (string, osio.File, osio.Entry) {
	t.Helper()
	f, err := osio.OpenFile(path, osio.ReadOnly)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	e, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return path, f, e
}

func TestFileWriteRules(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(fs *fakeSystem, path string)
		destroy bool
		// found is in the refusal (PATH stands for the file); "" means
		// allowed. allow is the flag it names.
		found, allow string
	}{
		{"plain file needs destroy-data", func(*fakeSystem, string) {}, false, "an existing file of 1048576 bytes", "--destroy-data"},
		{"plain file with destroy-data", func(*fakeSystem, string) {}, true, "", ""},
		{"image of an attached loop device", func(fs *fakeSystem, p string) { fs.loop("loop900", 900, p) }, true,
			"PATH -> /dev/loop900 (loop device over it) -> bound (losetup -d /dev/loop900 detaches it)", ""},
		{"image of a mounted loop device", func(fs *fakeSystem, p string) { fs.loop("loop900", 900, p); fs.mount("7:900", "/mnt/img") }, true,
			"PATH -> /dev/loop900 (loop device over it) -> mounted on /mnt/img (ext4)", ""},
		{"image of a loop device with LVM on it", func(fs *fakeSystem, p string) { fs.loop("loop900", 900, p); fs.holder("loop900", "dm-7", 7) }, true,
			"/dev/dm-7 (device-mapper, LVM or RAID stacked on it)", ""},
		{"image of a mounted holder of the loop device", func(fs *fakeSystem, p string) {
			fs.loop("loop900", 900, p)
			fs.holder("loop900", "dm-7", 7)
			fs.mount("253:7", "/srv")
		}, true, "PATH -> /dev/loop900 (loop device over it) -> /dev/dm-7 (device-mapper, LVM or RAID stacked on it) -> mounted on /srv", ""},
		{"another file behind the loop device", func(fs *fakeSystem, p string) { fs.loop("loop900", 900, p+".other") }, true, "", ""},
		{"open O_RDWR by another process", func(fs *fakeSystem, p string) { fs.process(4242, "qemu", p, os.O_RDWR|unix.O_LARGEFILE) }, true,
			"PATH -> open for writing by process 4242 (qemu)", ""},
		{"open O_WRONLY by another process", func(fs *fakeSystem, p string) { fs.process(4242, "dd", p, os.O_WRONLY|unix.O_APPEND) }, true,
			"open for writing by process 4242 (dd)", ""},
		{"open read-only by another process", func(fs *fakeSystem, p string) { fs.process(4242, "cat", p, os.O_RDONLY|unix.O_LARGEFILE) }, false,
			"an existing file", "--destroy-data"},
		{"open read-only by another process, with destroy-data", func(fs *fakeSystem, p string) { fs.process(4242, "cat", p, os.O_RDONLY) }, true, "", ""},
		{"open with unreadable flags counts as writing", func(fs *fakeSystem, p string) { fs.process(4242, "vm", p, -1) }, true,
			"held open (for writing, as far as clyde can tell) by process 4242 (vm)", ""},
		{"mapped shared and writable", func(fs *fakeSystem, p string) { fs.mapping(4242, "lmdb", p, "rw-s") }, true,
			"mapped for writing (shared mmap) by process 4242 (lmdb)", ""},
		{"mapped private is not a writer", func(fs *fakeSystem, p string) { fs.mapping(4242, "ld.so", p, "rw-p") }, true, "", ""},
		{"swap file", func(fs *fakeSystem, p string) { fs.swaps = append(fs.swaps, p+"\tfile\t65532\t0\t-2"); fs.flush() }, true,
			"PATH -> used as swap (PATH)", ""},
		{"image mounted straight from the file (erofs, no loop device)", func(fs *fakeSystem, p string) { fs.mountSource(p, "erofs", "/mnt/ero") }, true,
			"PATH -> mounted on /mnt/ero (erofs, straight from the file)", ""},
		{"another image mounted straight from its file", func(fs *fakeSystem, p string) { fs.mountSource(p+".other", "erofs", "/mnt/ero") }, true, "", ""},
		{"image of a loop device under an md array", func(fs *fakeSystem, p string) {
			fs.loop("loop900", 900, p)
			fs.stack("md5", 9, 5, "loop900")
		}, true, "PATH -> /dev/loop900 (loop device over it) -> /dev/md5 (device-mapper, LVM or RAID stacked on it)", ""},
		{"image behind a loop device behind another, mounted", func(fs *fakeSystem, p string) {
			fs.loop("loop900", 900, p)
			fs.loop("loop901", 901, "/dev/loop900")
			fs.mount("7:901", "/mnt/top")
		}, true, "PATH -> /dev/loop900 (loop device over it) -> /dev/loop901 (loop device over it) -> mounted on /mnt/top", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFakeSystem(t)
			path, f, e := userFile(t)
			if err := os.WriteFile(path+".other", nil, 0o600); err != nil {
				t.Fatal(err)
			}
			tc.setup(fs, path)
			_, err := Write(path, path, f, e, tc.destroy)
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
			want := strings.ReplaceAll(tc.found, "PATH", path)
			if re.Kind != KindFile || re.Allow != tc.allow || !strings.Contains(re.Found, want) {
				t.Errorf("kind %q found %q allow %q; want file, %q, %q", re.Kind, re.Found, re.Allow, want, tc.allow)
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

// deviceInUse walks the fake tree from the device sysfs calls name, as
// Write does for a device target (whose own node a fake tree cannot make
// without root).
func deviceInUse(t *testing.T, name string) string {
	t.Helper()
	dev, ok := readDevNumber(filepath.Join(sysfsRoot, "class", "block", name))
	if !ok {
		t.Fatalf("no device %s in the fake sysfs", name)
	}
	s, err := readSystem()
	if err != nil {
		t.Fatal(err)
	}
	return walk(s, node{block: true, dev: dev, sys: name, name: "/dev/" + name, from: -1}).inUse()
}

// TestDeviceGraph walks fake trees from a device target: loop devices over
// images and over each other, partitions and their disk, device-mapper and
// md stacks, btrfs members. found is the chain refused ("" allowed).
func TestDeviceGraph(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(fs *fakeSystem, img string)
		target string
		found  string
	}{
		{"only loop device on its image", func(fs *fakeSystem, img string) { fs.loop("loop900", 900, img) }, "loop900", ""},
		{"image shared with an idle loop device", func(fs *fakeSystem, img string) {
			fs.loop("loop900", 900, img)
			fs.loop("loop901", 901, img)
		}, "loop900", ""},
		{"image shared with a mounted loop device", func(fs *fakeSystem, img string) {
			fs.loop("loop900", 900, img)
			fs.loop("loop901", 901, img)
			fs.mount("7:901", "/mnt/img")
		}, "loop900", "/dev/loop900 -> IMG (its backing file) -> /dev/loop901 (loop device over it) -> mounted on /mnt/img (ext4)"},
		{"image shared with a loop device with a holder", func(fs *fakeSystem, img string) {
			fs.loop("loop900", 900, img)
			fs.loop("loop901", 901, img)
			fs.holder("loop901", "dm-3", 3)
		}, "loop900", "/dev/loop901 (loop device over it) -> /dev/dm-3 (device-mapper, LVM or RAID stacked on it)"},
		{"image open for writing by a process", func(fs *fakeSystem, img string) {
			fs.loop("loop900", 900, img)
			fs.process(4343, "qemu", img, os.O_RDWR)
		}, "loop900", "/dev/loop900 -> IMG (its backing file) -> open for writing by process 4343 (qemu)"},
		{"a mounted loop device on another image", func(fs *fakeSystem, img string) {
			fs.loop("loop900", 900, img)
			fs.loop("loop901", 901, img+".b")
			fs.mount("7:901", "/mnt/b")
		}, "loop900", ""},
		{"loop over a mounted loop device", func(fs *fakeSystem, img string) {
			fs.loop("loop8", 8, img)
			fs.loop("loop9", 9, "/dev/loop8")
			fs.mount("7:8", "/mnt")
		}, "loop9", "/dev/loop9 -> /dev/loop8 (its backing device) -> mounted on /mnt (ext4)"},
		{"the loop device under a mounted loop device", func(fs *fakeSystem, img string) {
			fs.loop("loop8", 8, img)
			fs.loop("loop9", 9, "/dev/loop8")
			fs.mount("7:9", "/mnt")
		}, "loop8", "/dev/loop8 -> /dev/loop9 (loop device over it) -> mounted on /mnt (ext4)"},
		{"a device with an idle loop device over it", func(fs *fakeSystem, img string) {
			fs.disk("sdz", 0, 0)
			fs.loop("loop9", 9, "/dev/sdz")
		}, "sdz", "/dev/sdz -> /dev/loop9 (loop device over it) -> bound (losetup -d /dev/loop9 detaches it)"},
		{"two loop devices over one disk, the other mounted", func(fs *fakeSystem, img string) {
			fs.disk("sdz", 0, 0)
			fs.loop("loop8", 8, "/dev/sdz")
			fs.loop("loop9", 9, "/dev/sdz")
			fs.mount("7:8", "/mnt")
		}, "loop9", "/dev/loop9 -> /dev/sdz (its backing device) -> /dev/loop8 (loop device over it) -> mounted on /mnt"},
		{"whole disk with a mounted partition", func(fs *fakeSystem, img string) {
			fs.disk("sdz", 0, 2)
			fs.mount("8:2", "/boot")
		}, "sdz", "/dev/sdz -> /dev/sdz2 (its partition) -> mounted on /boot"},
		{"whole disk with idle partitions", func(fs *fakeSystem, img string) { fs.disk("sdz", 0, 2) }, "sdz", ""},
		{"partition beside a mounted one", func(fs *fakeSystem, img string) {
			fs.disk("sdz", 0, 2)
			fs.mount("8:2", "/boot")
		}, "sdz1", ""},
		{"partition of a disk that is an md member", func(fs *fakeSystem, img string) {
			fs.disk("sdz", 0, 1)
			fs.stack("md1", 9, 1, "sdz")
		}, "sdz1", "/dev/sdz1 -> /dev/sdz (its disk) -> /dev/md1 (device-mapper, LVM or RAID stacked on it)"},
		{"partition of a loop disk mounted", func(fs *fakeSystem, img string) {
			dir := fs.device("loop7", 7, 7, "")
			fs.write(filepath.Join(dir, "loop", "backing_file"), img+"\n")
			fs.device("loop7p1", 259, 0, dir)
			fs.mount("259:0", "/mnt/p1")
		}, "loop7", "/dev/loop7 -> /dev/loop7p1 (its partition) -> mounted on /mnt/p1"},
		{"loop over the image of a partitioned loop disk", func(fs *fakeSystem, img string) {
			dir := fs.device("loop7", 7, 7, "")
			fs.write(filepath.Join(dir, "loop", "backing_file"), img+"\n")
			fs.device("loop7p1", 259, 0, dir)
			fs.mount("259:0", "/mnt/p1")
			fs.loop("loop900", 900, img)
		}, "loop900", "/dev/loop900 -> IMG (its backing file) -> /dev/loop7 (loop device over it) -> /dev/loop7p1 (its partition) -> mounted on /mnt/p1"},
		{"device-mapper volume over a mounted device's sibling LV", func(fs *fakeSystem, img string) {
			fs.disk("sdz", 0, 0)
			fs.holder("sdz", "dm-0", 0)
			fs.holder("sdz", "dm-1", 1)
			fs.mount("253:1", "/")
		}, "dm-0", ""},
		{"device-mapper volume on a disk", func(fs *fakeSystem, img string) {
			fs.disk("sdz", 0, 0)
			fs.holder("sdz", "dm-0", 0)
		}, "sdz", "/dev/sdz -> /dev/dm-0 (device-mapper, LVM or RAID stacked on it)"},
		{"mounted filesystem on a dm volume on a partition", func(fs *fakeSystem, img string) {
			fs.disk("sdz", 0, 1)
			fs.holder("sdz1", "dm-4", 4)
			fs.mount("253:4", "/srv")
		}, "sdz", "/dev/sdz -> /dev/sdz1 (its partition) -> /dev/dm-4 (device-mapper, LVM or RAID stacked on it)"},
		{"md member, the array mounted", func(fs *fakeSystem, img string) {
			fs.disk("sdy", 16, 0)
			fs.disk("sdz", 32, 0)
			fs.stack("md0", 9, 0, "sdy", "sdz")
			fs.mount("9:0", "/data")
		}, "sdz", "/dev/sdz -> /dev/md0 (device-mapper, LVM or RAID stacked on it)"},
		{"a mounted device under an md array", func(fs *fakeSystem, img string) {
			fs.disk("sdz", 32, 0)
			fs.stack("md0", 9, 0, "sdz")
			fs.mount("8:32", "/weird")
		}, "md0", "/dev/md0 -> /dev/sdz (under it) -> mounted on /weird"},
		{"btrfs member not in mountinfo", func(fs *fakeSystem, img string) {
			fs.loop("loop20", 20, img)
			fs.loop("loop21", 21, img+".b")
			fs.btrfs("0f0e0d0c-0b0a-0908-0706-050403020100", "loop20", "loop21")
			fs.mountSource("/dev/loop20", "btrfs", "/mnt/raid")
		}, "loop21", "/dev/loop21 -> a device of the btrfs filesystem 0f0e0d0c-0b0a-0908-0706-050403020100, mounted on /mnt/raid"},
		{"second loop over a btrfs member's image", func(fs *fakeSystem, img string) {
			fs.loop("loop20", 20, img)
			fs.loop("loop21", 21, img+".b")
			fs.loop("loop22", 22, img+".b")
			fs.btrfs("0f0e0d0c-0b0a-0908-0706-050403020100", "loop20", "loop21")
			fs.mountSource("/dev/loop20", "btrfs", "/mnt/raid")
		}, "loop22", "/dev/loop22 -> IMG.b (its backing file) -> /dev/loop21 (loop device over it) -> a device of the btrfs filesystem"},
		{"btrfs superblock in the backing file, no member listed", func(fs *fakeSystem, img string) {
			writeBtrfsSuper(t, img+".b", "0f0e0d0c-0b0a-0908-0706-050403020100")
			fs.loop("loop22", 22, img+".b")
			fs.btrfs("0f0e0d0c-0b0a-0908-0706-050403020100")
		}, "loop22", "/dev/loop22 -> IMG.b (its backing file) -> holds a superblock of the btrfs filesystem 0f0e0d0c-0b0a-0908-0706-050403020100"},
		{"btrfs superblock of an unmounted filesystem", func(fs *fakeSystem, img string) {
			writeBtrfsSuper(t, img+".b", "0f0e0d0c-0b0a-0908-0706-050403020100")
			fs.loop("loop22", 22, img+".b")
			fs.btrfs("11111111-2222-3333-4444-555555555555")
		}, "loop22", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFakeSystem(t)
			img, _, _ := userFile(t)
			if err := os.WriteFile(img+".b", nil, 0o600); err != nil {
				t.Fatal(err)
			}
			tc.setup(fs, img)
			found := deviceInUse(t, tc.target)
			want := strings.ReplaceAll(tc.found, "IMG", img)
			if (want == "") != (found == "") || !strings.Contains(found, want) {
				t.Errorf("found %q, want %q", found, want)
			}
		})
	}
}

// writeBtrfsSuper writes a btrfs superblock's magic and fsid at 64 KiB of
// path.
func writeBtrfsSuper(t *testing.T, path, fsid string) {
	t.Helper()
	sb := make([]byte, 4096)
	hex := strings.ReplaceAll(fsid, "-", "")
	for i := 0; i < 16; i++ {
		fmt.Sscanf(hex[2*i:2*i+2], "%02x", &sb[0x20+i])
	}
	copy(sb[0x40:], "_BHRfS_M")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(sb, 64<<10); err != nil {
		t.Fatal(err)
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

// TestNewFile: a file is not created in /dev (or what shares its
// filesystem, as a container's tmpfs /dev does) nor on devtmpfs; elsewhere,
// and on a separate mount below /dev such as /dev/shm, it is.
func TestNewFile(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(fs *fakeSystem) string // the directory to create in
		refused string
	}{
		{"a directory elsewhere", func(fs *fakeSystem) string { return t.TempDir() }, ""},
		{"/dev itself", func(fs *fakeSystem) string { return fs.dev }, "holds device nodes"},
		{"a directory in /dev", func(fs *fakeSystem) string {
			d := filepath.Join(fs.dev, "disk")
			fs.mkdir(d)
			return d
		}, "holds device nodes"},
		{"a directory on devtmpfs mounted elsewhere", func(fs *fakeSystem) string {
			d := t.TempDir()
			var st unix.Stat_t
			if err := unix.Stat(d, &st); err != nil {
				t.Fatal(err)
			}
			fs.mountinfo = append(fs.mountinfo, fmt.Sprintf("30 1 %d:%d / /chroot/dev rw - devtmpfs udev rw", unix.Major(st.Dev), unix.Minor(st.Dev)))
			fs.flush()
			return d
		}, "on devtmpfs (mounted on /chroot/dev)"},
		{"procfs", func(*fakeSystem) string { return "/proc/sys/kernel" }, "it is on procfs, a kernel interface"},
		{"sysfs", func(*fakeSystem) string { return "/sys/kernel" }, "it is on sysfs, a kernel interface"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFakeSystem(t)
			dir := tc.setup(fs)
			err := NewFile(filepath.Join(dir, "sdzz9"), dir)
			if tc.refused == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !result.IsUsage(err) || !strings.Contains(err.Error(), tc.refused) {
				t.Fatalf("err = %v, want a usage error saying %q", err, tc.refused)
			}
		})
	}
	t.Run("a separate mount below /dev", func(t *testing.T) {
		if _, err := os.Stat("/dev/shm"); err != nil {
			clydetest.Skip(t, "no /dev/shm here")
		}
		var shm, dev unix.Stat_t
		if unix.Stat("/dev/shm", &shm) != nil || unix.Stat("/dev", &dev) != nil || shm.Dev == dev.Dev {
			clydetest.Skip(t, "/dev/shm is not a mount of its own here")
		}
		if err := NewFile("/dev/shm/clyde.tmp", "/dev/shm"); err != nil {
			t.Errorf("refused: %v", err)
		}
	})
}
