//go:build linux

package sysinfo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// mountInfo is one line of /proc/self/mountinfo (proc(5)), unescaped.
type mountInfo struct {
	ID, ParentID int
	// Major and Minor are st_dev of files on the mount; 0:N for
	// filesystems without a block device, and for btrfs even with one.
	Major, Minor uint32
	// Root is the directory of the filesystem that appears at MountPoint:
	// "/" normally, a subdirectory for bind mounts and btrfs subvolumes.
	Root         string
	MountPoint   string
	MountOptions string
	Optional     []string
	FSType       string
	Source       string
	SuperOptions string
}

// errMountInfo marks a line that is not in mountinfo's format.
var errMountInfo = errors.New("malformed mountinfo line")

// parseMountInfo reads every mount in the format of /proc/self/mountinfo, in
// the kernel's order: later lines are mounted on top of earlier ones.
func parseMountInfo(r io.Reader) ([]mountInfo, error) {
	var mounts []mountInfo
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		m, err := parseMountInfoLine(line)
		if err != nil {
			return nil, fmt.Errorf("mountinfo line %d: %w", n, err)
		}
		mounts = append(mounts, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read mountinfo: %w", err)
	}
	return mounts, nil
}

// parseMountInfoLine parses one mountinfo line:
//
//	36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
//
// Fields are separated by single spaces (a source can be empty, giving two in
// a row); the optional fields before " - " vary in number.
func parseMountInfoLine(line string) (mountInfo, error) {
	f := strings.Split(strings.TrimRight(line, "\r\n"), " ")
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if len(f) < 6 || sep < 0 || len(f) < sep+3 {
		return mountInfo{}, fmt.Errorf("%w: %q", errMountInfo, line)
	}
	var m mountInfo
	var err error
	if m.ID, err = strconv.Atoi(f[0]); err != nil {
		return mountInfo{}, fmt.Errorf("%w: mount id %q", errMountInfo, f[0])
	}
	if m.ParentID, err = strconv.Atoi(f[1]); err != nil {
		return mountInfo{}, fmt.Errorf("%w: parent id %q", errMountInfo, f[1])
	}
	maj, min, ok := strings.Cut(f[2], ":")
	if !ok {
		return mountInfo{}, fmt.Errorf("%w: device %q", errMountInfo, f[2])
	}
	major, err1 := strconv.ParseUint(maj, 10, 32)
	minor, err2 := strconv.ParseUint(min, 10, 32)
	if err1 != nil || err2 != nil {
		return mountInfo{}, fmt.Errorf("%w: device %q", errMountInfo, f[2])
	}
	m.Major, m.Minor = uint32(major), uint32(minor)
	m.Root = unescapeOctal(f[3])
	m.MountPoint = unescapeOctal(f[4])
	m.MountOptions = unescapeOctal(f[5])
	if sep > 6 {
		m.Optional = f[6:sep]
	}
	m.FSType = unescapeOctal(f[sep+1])
	m.Source = unescapeOctal(f[sep+2])
	if len(f) > sep+3 {
		// Super options never hold a bare space; anything after one is
		// kept rather than lost.
		m.SuperOptions = unescapeOctal(strings.Join(f[sep+3:], " "))
	}
	return m, nil
}

// unescapeOctal undoes the kernel's \ooo escaping of space, tab, newline and
// backslash in mountinfo paths, so "/mnt/my\040disk" matches the real path.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && s[i+1] >= '0' && s[i+1] <= '3' && isOctal(s[i+2]) && isOctal(s[i+3]) {
			v := (s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0')
			b.WriteByte(v)
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// isOctal reports whether c is an octal digit of an escape.
func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// mountFor finds the mount that holds path (absolute, symlinks resolved): the
// longest mount point that is path or a parent of it; among equal mount
// points the last one, since it is mounted on top and hides the others.
func mountFor(mounts []mountInfo, path string) (mountInfo, bool) {
	best, found := mountInfo{}, false
	for _, m := range mounts {
		if !pathWithin(path, m.MountPoint) {
			continue
		}
		if !found || len(m.MountPoint) >= len(best.MountPoint) {
			best, found = m, true
		}
	}
	return best, found
}

// pathWithin reports whether path is dir or below it, on whole components
// (/data2 is not within /data).
func pathWithin(path, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+"/")
}

// joinOptions merges per-mount and super options into one list for the
// result, dropping repeats ("rw" is usually in both).
func joinOptions(lists ...string) string {
	var out []string
	seen := map[string]bool{}
	for _, l := range lists {
		for _, o := range strings.Split(l, ",") {
			if o == "" || seen[o] {
				continue
			}
			seen[o] = true
			out = append(out, o)
		}
	}
	return strings.Join(out, ",")
}

// optionValue finds key=value in a comma-separated option list.
func optionValue(opts, key string) (string, bool) {
	for _, o := range strings.Split(opts, ",") {
		if k, v, _ := strings.Cut(o, "="); k == key {
			return v, true
		}
	}
	return "", false
}

// mountNotes explains what the raw mount fields do not say plainly: that
// fuseblk is (almost always) NTFS through ntfs-3g, and that a bind mount shows
// a subtree of another filesystem.
func mountNotes(m mountInfo) []string {
	var notes []string
	base, sub, _ := strings.Cut(m.FSType, ".")
	if base == "fuseblk" || base == "fuse" {
		src := strings.ToLower(m.Source + " " + sub)
		switch {
		case strings.Contains(src, "ntfs"):
			notes = append(notes, "NTFS through ntfs-3g (FUSE)")
		case base == "fuseblk":
			notes = append(notes, "fuseblk is a FUSE filesystem on a block device, usually ntfs-3g (NTFS)")
		}
	}
	if m.Root != "/" && m.Root != "" {
		subvol, ok := optionValue(m.SuperOptions, "subvol")
		if m.FSType == "btrfs" && ok && subvol == m.Root {
			notes = append(notes, "btrfs subvolume "+subvol)
		} else {
			notes = append(notes, "bind mount of "+m.Root)
		}
	}
	return notes
}

// MountInfo is one line of a mountinfo file, unescaped.
type MountInfo = mountInfo

// ReadMounts parses the mountinfo file at path (/proc/self/mountinfo; tests
// give a fake one): the one reader of the mount table, which the block
// engine's safety rules use as well.
func ReadMounts(path string) ([]MountInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	defer f.Close()
	return parseMountInfo(f)
}

// UnescapeOctal undoes the kernel's \ooo escaping (\040 for a space) in
// /proc/self/mountinfo and /proc/swaps.
func UnescapeOctal(s string) string { return unescapeOctal(s) }
