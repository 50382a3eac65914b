//go:build linux

package sysinfo

import (
	"bufio"
	"bytes"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// noLimitFloor is where a cgroup memory value stops being a limit: cgroup v1
// reports "unlimited" as PAGE_COUNTER_MAX pages (9223372036854771712 on
// 4 KiB pages), and no machine has 1 EiB of RAM.
const noLimitFloor = 1 << 60

// procCgroups is this process's place in the cgroup hierarchies, from
// /proc/self/cgroup.
type procCgroups struct {
	// Unified is the cgroup v2 path ("0::/path"), "" when absent.
	Unified string
	// MemoryV1 is the path in the v1 hierarchy holding the memory
	// controller, "" when absent.
	MemoryV1 string
}

// parseProcCgroup reads lines of "hierarchy-ID:controller-list:cgroup-path"
// for the memory controller.
func parseProcCgroup(r io.Reader) procCgroups {
	unified, v1 := cgroupPaths(r, "memory")
	return procCgroups{Unified: unified, MemoryV1: v1}
}

// cgroupPaths is this process's cgroup v2 path ("0::/path") and its path in
// the v1 hierarchy holding controller, "" for either that is absent.
func cgroupPaths(r io.Reader, controller string) (unified, v1 string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		id, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		controllers, path, ok := strings.Cut(rest, ":")
		if !ok || !strings.HasPrefix(path, "/") {
			continue
		}
		switch {
		case id == "0" && controllers == "":
			unified = path
		case slices.Contains(strings.Split(controllers, ","), controller):
			v1 = path
		}
	}
	return unified, v1
}

// parseMemoryLimit reads memory.max (v2) or memory.limit_in_bytes (v1);
// "max", -1 and absurdly large values all mean no limit.
func parseMemoryLimit(s string) (uint64, bool) {
	v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	if err != nil || v == 0 || v >= noLimitFloor {
		return 0, false
	}
	return v, true
}

// cgroupMemoryLimit is the tightest memory limit over this process's cgroup
// and its ancestors in both the v2 and the v1 hierarchy, 0 when there is
// none. A parent's limit binds its children, so the walk goes up to the
// mount's root rather than stopping at the first limit; the nearest limit is
// among those compared. readFile reads the real files; tests give fixtures.
func cgroupMemoryLimit(pc procCgroups, mounts []mountInfo, readFile func(string) ([]byte, error)) uint64 {
	var limit uint64
	consider := func(v uint64) {
		if limit == 0 || v < limit {
			limit = v
		}
	}
	for _, h := range hierarchies(pc.Unified, pc.MemoryV1, "memory", mounts) {
		file := "memory.limit_in_bytes"
		if h.v2 {
			file = "memory.max"
		}
		for _, dir := range h.dirs {
			if b, err := readFile(filepath.Join(dir, file)); err == nil {
				if v, ok := parseMemoryLimit(string(b)); ok {
					consider(v)
				}
			}
		}
	}
	return limit
}

// hierarchy is one mounted cgroup hierarchy this process is in: the
// directories from its cgroup up to the mount point (cgroupDirs).
type hierarchy struct {
	dirs []string
	v2   bool
}

// hierarchies are the mounts holding this process's cgroup: the v2 one
// (unified is its "0::" path) and the v1 ones with controller (v1 is its
// path there); an empty path leaves that kind out.
func hierarchies(unified, v1, controller string, mounts []mountInfo) []hierarchy {
	var hs []hierarchy
	for _, m := range mounts {
		switch {
		case m.FSType == "cgroup2" && unified != "":
			hs = append(hs, hierarchy{dirs: cgroupDirs(m, unified), v2: true})
		case m.FSType == "cgroup" && v1 != "" && hasOption(m.SuperOptions, controller):
			hs = append(hs, hierarchy{dirs: cgroupDirs(m, v1)})
		}
	}
	return hs
}

// CgroupDirs are the directories of this process's cgroup and of each of
// its ancestors, up to each hierarchy's mount point, in the v2 hierarchy
// and in the v1 hierarchy holding controller, from /proc/self/cgroup and
// /proc/self/mountinfo (given, so tests can too). The mount's own root is
// cut from the path, as in a container without a cgroup namespace.
func CgroupDirs(procCgroup, mountinfo []byte, controller string) []string {
	mounts, err := parseMountInfo(bytes.NewReader(mountinfo))
	if err != nil {
		return nil
	}
	unified, v1 := cgroupPaths(bytes.NewReader(procCgroup), controller)
	var dirs []string
	for _, h := range hierarchies(unified, v1, controller, mounts) {
		dirs = append(dirs, h.dirs...)
	}
	return dirs
}

// cgroupDirs lists the directories from the process's cgroup up to the
// mount point of the hierarchy. The mount may show only a subtree (its Root,
// as in a container without a cgroup namespace), so that prefix is cut from
// the path first; a path outside the mounted subtree leaves only the mount
// point itself to read.
func cgroupDirs(m mountInfo, cgPath string) []string {
	rel := cgPath
	if m.Root != "/" {
		if !pathWithin(cgPath, m.Root) {
			return []string{m.MountPoint}
		}
		rel = strings.TrimPrefix(cgPath, m.Root)
	}
	rel = filepath.Clean("/" + rel)
	var dirs []string
	for {
		dirs = append(dirs, filepath.Join(m.MountPoint, rel))
		if rel == "/" {
			return dirs
		}
		rel = filepath.Dir(rel)
	}
}

// hasOption reports whether a comma-separated option list holds opt.
func hasOption(opts, opt string) bool {
	return slices.Contains(strings.Split(opts, ","), opt)
}
