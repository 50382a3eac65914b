//go:build linux

package sysinfo

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// mountinfoFixture is a /proc/self/mountinfo from a desktop with the cases
// the parser must get right: an overmounted /dev/shm, an escaped space in a
// mount point, a bind mount, btrfs subvolumes on a 0:N device, an ntfs-3g
// disk (fuseblk), sshfs (fuse.sshfs) and several optional fields.
const mountinfoFixture = `22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro
23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
24 22 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs rw
25 22 0:5 / /dev rw,nosuid,relatime shared:3 - devtmpfs udev rw,size=8000000k,nr_inodes=2000000,mode=755
26 25 0:23 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw
27 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=65536k
40 22 0:45 /@home /home rw,relatime shared:30 - btrfs /dev/sda2 rw,ssd,space_cache=v2,subvolid=257,subvol=/@home
41 22 0:45 /@data /data rw,noatime shared:31 master:7 propagate_from:2 - btrfs /dev/sda2 rw,ssd,space_cache=v2,subvolid=258,subvol=/@data
42 22 8:17 / /media/user/My\040Passport rw,nosuid,nodev,relatime shared:40 - fuseblk /dev/sdb1 rw,user_id=0,group_id=0,default_permissions,allow_other,blksize=4096
43 22 259:2 /srv/exports/a\134b /mnt/bind rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw,errors=remount-ro
44 22 0:50 / /data2 rw,nosuid,nodev,relatime - fuse.sshfs user@host:/big rw,user_id=1000,group_id=1000
`

func TestParseMountInfoLine(t *testing.T) {
	tests := []struct {
		name string
		line string
		want mountInfo
	}{
		{
			name: "proc(5) example",
			line: `36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`,
			want: mountInfo{ID: 36, ParentID: 35, Major: 98, Minor: 0, Root: "/mnt1", MountPoint: "/mnt2",
				MountOptions: "rw,noatime", Optional: []string{"master:1"}, FSType: "ext3",
				Source: "/dev/root", SuperOptions: "rw,errors=continue"},
		},
		{
			name: "no optional fields",
			line: `27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard`,
			want: mountInfo{ID: 27, ParentID: 1, Major: 254, Root: "/", MountPoint: "/",
				MountOptions: "rw,relatime", FSType: "ext4", Source: "/dev/vda", SuperOptions: "rw,discard"},
		},
		{
			name: "several optional fields",
			line: `41 22 0:45 /@data /data rw shared:31 master:7 propagate_from:2 unbindable - btrfs /dev/sda2 rw,subvol=/@data`,
			want: mountInfo{ID: 41, ParentID: 22, Major: 0, Minor: 45, Root: "/@data", MountPoint: "/data",
				MountOptions: "rw", Optional: []string{"shared:31", "master:7", "propagate_from:2", "unbindable"},
				FSType: "btrfs", Source: "/dev/sda2", SuperOptions: "rw,subvol=/@data"},
		},
		{
			name: "escaped space tab newline backslash",
			line: `42 22 8:17 /a\011b /media/My\040Passport\012x\134y rw - fuseblk /dev/sdb1 rw,blksize=4096`,
			want: mountInfo{ID: 42, ParentID: 22, Major: 8, Minor: 17, Root: "/a\tb",
				MountPoint: "/media/My Passport\nx\\y", MountOptions: "rw", FSType: "fuseblk",
				Source: "/dev/sdb1", SuperOptions: "rw,blksize=4096"},
		},
		{
			name: "backslash not followed by octal is kept",
			line: `1 0 0:1 / /a\x\9 rw - tmpfs tmpfs rw`,
			want: mountInfo{ID: 1, Major: 0, Minor: 1, Root: "/", MountPoint: `/a\x\9`, MountOptions: "rw",
				FSType: "tmpfs", Source: "tmpfs", SuperOptions: "rw"},
		},
		{
			name: "bind mount of a subdirectory",
			line: `43 22 259:2 /srv/exports/a /mnt/bind rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw`,
			want: mountInfo{ID: 43, ParentID: 22, Major: 259, Minor: 2, Root: "/srv/exports/a",
				MountPoint: "/mnt/bind", MountOptions: "rw,relatime", Optional: []string{"shared:1"},
				FSType: "ext4", Source: "/dev/nvme0n1p2", SuperOptions: "rw"},
		},
		{
			name: "empty source",
			line: `50 22 0:60 / /run/x rw - tmpfs  rw,size=4k`,
			want: mountInfo{ID: 50, ParentID: 22, Minor: 60, Root: "/", MountPoint: "/run/x", MountOptions: "rw",
				FSType: "tmpfs", Source: "", SuperOptions: "rw,size=4k"},
		},
		{
			name: "no super options, trailing newline",
			line: "60 22 0:61 / /old rw - oldfs none\n",
			want: mountInfo{ID: 60, ParentID: 22, Minor: 61, Root: "/", MountPoint: "/old", MountOptions: "rw",
				FSType: "oldfs", Source: "none"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseMountInfoLine(tc.line)
			if err != nil {
				t.Fatalf("parseMountInfoLine: %v", err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestParseMountInfoLineRejects(t *testing.T) {
	tests := []struct{ name, line string }{
		{"empty", ""},
		{"too few fields", "1 2 3:4 / /"},
		{"no separator", "36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 ext3 /dev/root rw"},
		{"separator without type and source", "36 35 98:0 /mnt1 /mnt2 rw -"},
		{"separator without source", "36 35 98:0 /mnt1 /mnt2 rw - ext3"},
		{"bad mount id", "x 35 98:0 / / rw - ext3 /dev/root rw"},
		{"bad parent id", "36 y 98:0 / / rw - ext3 /dev/root rw"},
		{"device without colon", "36 35 980 / / rw - ext3 /dev/root rw"},
		{"device not numeric", "36 35 a:b / / rw - ext3 /dev/root rw"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseMountInfoLine(tc.line)
			if !errors.Is(err, errMountInfo) {
				t.Errorf("parseMountInfoLine(%q) = %+v, %v; want errMountInfo", tc.line, m, err)
			}
		})
	}
}

func TestParseMountInfo(t *testing.T) {
	mounts, err := parseMountInfo(strings.NewReader(mountinfoFixture + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(mounts) != 11 {
		t.Fatalf("got %d mounts, want 11", len(mounts))
	}
	if _, err := parseMountInfo(strings.NewReader(mountinfoFixture + "garbage\n")); err == nil ||
		!strings.Contains(err.Error(), "line 12") {
		t.Errorf("malformed line 12: err = %v, want one naming line 12", err)
	}
}

func TestMountFor(t *testing.T) {
	mounts, err := parseMountInfo(strings.NewReader(mountinfoFixture))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path   string
		wantID int
	}{
		{"/", 22},
		{"/etc/passwd", 22},
		{"/dev/shm", 27},    // overmounted: the later mount is the visible one
		{"/dev/shm/x", 27},  //
		{"/dev/shmem", 25},  // whole components only
		{"/home/user", 40},  // btrfs subvolume
		{"/data2/file", 44}, // not inside /data
		{"/data/file", 41},  //
		{"/media/user/My Passport/f", 42},
		{"/media/user/My", 22},
		{"/mnt/bind", 43},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			m, ok := mountFor(mounts, tc.path)
			if !ok || m.ID != tc.wantID {
				t.Errorf("mountFor(%q) = id %d (found %v), want %d", tc.path, m.ID, ok, tc.wantID)
			}
		})
	}
	if _, ok := mountFor(nil, "/x"); ok {
		t.Error("mountFor with no mounts found one")
	}
}

func TestMountNotes(t *testing.T) {
	tests := []struct {
		name string
		m    mountInfo
		want []string
	}{
		{"plain ext4", mountInfo{Root: "/", FSType: "ext4", Source: "/dev/sda1"}, nil},
		{"fuseblk on a device", mountInfo{Root: "/", FSType: "fuseblk", Source: "/dev/sdb1"},
			[]string{"fuseblk is a FUSE filesystem on a block device, usually ntfs-3g (NTFS)"}},
		{"fuseblk naming ntfs", mountInfo{Root: "/", FSType: "fuseblk", Source: "ntfs-3g"},
			[]string{"NTFS through ntfs-3g (FUSE)"}},
		{"fuse subtype ntfs-3g", mountInfo{Root: "/", FSType: "fuse.ntfs-3g", Source: "/dev/sdc1"},
			[]string{"NTFS through ntfs-3g (FUSE)"}},
		{"sshfs gets no ntfs note", mountInfo{Root: "/", FSType: "fuse.sshfs", Source: "u@h:/"}, nil},
		{"btrfs subvolume", mountInfo{Root: "/@home", FSType: "btrfs", SuperOptions: "rw,subvolid=257,subvol=/@home"},
			[]string{"btrfs subvolume /@home"}},
		{"bind mount of a btrfs subvolume's subdirectory",
			mountInfo{Root: "/@home/u", FSType: "btrfs", SuperOptions: "rw,subvol=/@home"},
			[]string{"bind mount of /@home/u"}},
		{"bind mount", mountInfo{Root: "/srv/a", FSType: "ext4"}, []string{"bind mount of /srv/a"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := mountNotes(tc.m); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("mountNotes = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestJoinOptions(t *testing.T) {
	tests := []struct {
		name, mount, super, want string
	}{
		{"repeats dropped", "rw,relatime", "rw,errors=remount-ro", "rw,relatime,errors=remount-ro"},
		{"no super options", "ro,noatime", "", "ro,noatime"},
		{"btrfs", "rw,noatime", "rw,ssd,space_cache=v2,subvolid=258,subvol=/@data",
			"rw,noatime,ssd,space_cache=v2,subvolid=258,subvol=/@data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := joinOptions(tc.mount, tc.super); got != tc.want {
				t.Errorf("joinOptions(%q, %q) = %q, want %q", tc.mount, tc.super, got, tc.want)
			}
		})
	}
}

// escapeOctal is the kernel's mangling of mountinfo fields (plus every
// control byte, which the scanner or the line trim would otherwise eat).
func escapeOctal(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' || c == '\\' || c < 0x20 {
			fmt.Fprintf(&b, `\%03o`, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func formatMountInfo(m mountInfo) string {
	f := []string{fmt.Sprint(m.ID), fmt.Sprint(m.ParentID), fmt.Sprintf("%d:%d", m.Major, m.Minor),
		escapeOctal(m.Root), escapeOctal(m.MountPoint), escapeOctal(m.MountOptions)}
	f = append(f, m.Optional...)
	f = append(f, "-", escapeOctal(m.FSType), escapeOctal(m.Source), escapeOctal(m.SuperOptions))
	return strings.Join(f, " ")
}

// FuzzParseMountInfoLine checks that no line makes the parser panic and that
// whatever it accepts survives being written back the kernel's way.
func FuzzParseMountInfoLine(f *testing.F) {
	for _, line := range strings.Split(mountinfoFixture, "\n") {
		f.Add(line)
	}
	f.Add(`36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue`)
	f.Add(`1 0 0:1 / /a\x\9\777 rw - tmpfs  rw extra field`)
	f.Add(`1 0 0:1 / / rw - - - -`)
	f.Fuzz(func(t *testing.T, line string) {
		m, err := parseMountInfoLine(line)
		if err != nil {
			return
		}
		again, err := parseMountInfoLine(formatMountInfo(m))
		if err != nil {
			t.Fatalf("reformatted %+v does not parse: %v", m, err)
		}
		if !reflect.DeepEqual(again, m) {
			t.Fatalf("round trip changed the mount:\n got %+v\nwant %+v", again, m)
		}
	})
}
