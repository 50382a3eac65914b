//go:build linux

package sysinfo

import (
	"io/fs"
	"strings"
	"testing"
)

func TestParseProcCgroup(t *testing.T) {
	tests := []struct {
		name string
		text string
		want procCgroups
	}{
		{"cgroup v2 only", "0::/user.slice/user-1000.slice/session-2.scope\n",
			procCgroups{Unified: "/user.slice/user-1000.slice/session-2.scope"}},
		{"hybrid v1 with memory", `12:memory:/docker/abc
11:cpu,cpuacct:/docker/abc
1:name=systemd:/docker/abc
0::/docker/abc
`, procCgroups{Unified: "/docker/abc", MemoryV1: "/docker/abc"}},
		{"memory among several v1 controllers", "4:cpu,memory:/batch/job7\n",
			procCgroups{MemoryV1: "/batch/job7"}},
		{"named hierarchy is not memory", "1:name=memory:/x\n", procCgroups{}},
		{"malformed lines ignored", "garbage\n3:memory\n0::relative\n", procCgroups{}},
		{"empty", "", procCgroups{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseProcCgroup(strings.NewReader(tc.text)); got != tc.want {
				t.Errorf("parseProcCgroup = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestParseMemoryLimit(t *testing.T) {
	tests := []struct {
		in     string
		want   uint64
		wantOK bool
	}{
		{"max\n", 0, false},
		{"9223372036854771712\n", 0, false}, // v1 "unlimited" on 4 KiB pages
		{"9223372036854775807", 0, false},
		{"-1", 0, false},
		{"0", 0, false},
		{"", 0, false},
		{"536870912\n", 536870912, true},
		{" 1073741824 ", 1073741824, true},
	}
	for _, tc := range tests {
		got, ok := parseMemoryLimit(tc.in)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("parseMemoryLimit(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}

const (
	v2Mount     = "30 22 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
	hybridMount = `31 22 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`
	// A container without a cgroup namespace sees only its own cgroup,
	// mounted with that cgroup as the root.
	containerV1Mount = "35 31 0:32 /docker/abc /sys/fs/cgroup/memory ro,nosuid - cgroup cgroup rw,memory\n"
)

func TestCgroupMemoryLimit(t *testing.T) {
	const unlimitedV1 = "9223372036854771712\n"
	tests := []struct {
		name   string
		cgroup string
		mounts string
		files  map[string]string
		want   uint64
	}{
		{
			name:   "v2 limit on own cgroup",
			cgroup: "0::/system.slice/bench.service\n",
			mounts: v2Mount,
			files: map[string]string{
				"/sys/fs/cgroup/system.slice/bench.service/memory.max": "1073741824\n",
				"/sys/fs/cgroup/system.slice/memory.max":               "max\n",
			},
			want: 1 << 30,
		},
		{
			name:   "v2 limit only on an ancestor",
			cgroup: "0::/kubepods/burstable/pod1/ctr\n",
			mounts: v2Mount,
			files: map[string]string{
				"/sys/fs/cgroup/kubepods/burstable/pod1/ctr/memory.max": "max\n",
				"/sys/fs/cgroup/kubepods/burstable/pod1/memory.max":     "536870912\n",
				"/sys/fs/cgroup/kubepods/burstable/memory.max":          "max\n",
			},
			want: 512 << 20,
		},
		{
			name:   "v2 parent tighter than child",
			cgroup: "0::/a/b\n",
			mounts: v2Mount,
			files: map[string]string{
				"/sys/fs/cgroup/a/b/memory.max": "2147483648\n",
				"/sys/fs/cgroup/a/memory.max":   "1073741824\n",
			},
			want: 1 << 30,
		},
		{
			name:   "v2 no limit anywhere",
			cgroup: "0::/user.slice\n",
			mounts: v2Mount,
			files:  map[string]string{"/sys/fs/cgroup/user.slice/memory.max": "max\n"},
			want:   0,
		},
		{
			name:   "v2 in a cgroup namespace",
			cgroup: "0::/\n",
			mounts: v2Mount,
			files:  map[string]string{"/sys/fs/cgroup/memory.max": "268435456\n"},
			want:   256 << 20,
		},
		{
			name:   "hybrid: v1 memory unlimited, unified has no memory controller",
			cgroup: "4:memory:/process_api/2f4b\n1:cpu:/\n0::/\n",
			mounts: hybridMount,
			files: map[string]string{
				"/sys/fs/cgroup/memory/process_api/2f4b/memory.limit_in_bytes": unlimitedV1,
				"/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes":      unlimitedV1,
				"/sys/fs/cgroup/memory/memory.limit_in_bytes":                  unlimitedV1,
			},
			want: 0,
		},
		{
			name:   "v1 limit",
			cgroup: "4:memory:/docker/abc\n0::/\n",
			mounts: hybridMount,
			files: map[string]string{
				"/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes": "4294967296\n",
				"/sys/fs/cgroup/memory/docker/memory.limit_in_bytes":     unlimitedV1,
			},
			want: 4 << 30,
		},
		{
			name:   "v1 container mount rooted at its own cgroup",
			cgroup: "4:memory:/docker/abc\n",
			mounts: containerV1Mount,
			files: map[string]string{
				"/sys/fs/cgroup/memory/memory.limit_in_bytes": "2147483648\n",
			},
			want: 2 << 30,
		},
		{
			name:   "v1 path outside the mounted subtree reads the mount point",
			cgroup: "4:memory:/other\n",
			mounts: containerV1Mount,
			files: map[string]string{
				"/sys/fs/cgroup/memory/memory.limit_in_bytes": "2147483648\n",
			},
			want: 2 << 30,
		},
		{
			name:   "no memory hierarchy mounted",
			cgroup: "4:memory:/docker/abc\n",
			mounts: "22 1 254:0 / / rw - ext4 /dev/vda rw\n",
			files:  map[string]string{"/memory.limit_in_bytes": "1\n"},
			want:   0,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mounts, err := parseMountInfo(strings.NewReader(tc.mounts))
			if err != nil {
				t.Fatal(err)
			}
			readFile := func(name string) ([]byte, error) {
				s, ok := tc.files[name]
				if !ok {
					return nil, fs.ErrNotExist
				}
				return []byte(s), nil
			}
			got := cgroupMemoryLimit(parseProcCgroup(strings.NewReader(tc.cgroup)), mounts, readFile)
			if got != tc.want {
				t.Errorf("cgroupMemoryLimit = %d, want %d", got, tc.want)
			}
		})
	}
}
