package sysinfo

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestEffectiveRAM(t *testing.T) {
	tests := []struct {
		name            string
		physical, limit uint64
		want            uint64
	}{
		{"no limit", 16 << 30, 0, 16 << 30},
		{"limit below physical", 16 << 30, 2 << 30, 2 << 30},
		{"limit above physical", 4 << 30, 8 << 30, 4 << 30},
		{"physical unknown", 0, 1 << 30, 1 << 30},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := effectiveRAM(tc.physical, tc.limit)
			if r.Effective != tc.want || r.Physical != tc.physical || r.Limit != tc.limit {
				t.Errorf("effectiveRAM(%d, %d) = %+v, want Effective %d", tc.physical, tc.limit, r, tc.want)
			}
		})
	}
	if got := effectiveRAM(3<<30+5, 0).EffectiveMiB(); got != 3072 {
		t.Errorf("EffectiveMiB = %d, want 3072", got)
	}
}

func TestClientFrom(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"none", map[string]string{"HOSTNAME": "box"}, ""},
		{"slurm", map[string]string{"SLURM_PROCID": "3", "PMI_RANK": "9"}, "slurm:3"},
		{"open mpi", map[string]string{"OMPI_COMM_WORLD_RANK": "12"}, "mpi:12"},
		{"mpich", map[string]string{"PMI_RANK": "0"}, "mpi:0"},
		{"kubernetes pod", map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1", "HOSTNAME": "bench-2"}, "k8s:bench-2"},
		{"hostname alone is not kubernetes", map[string]string{"HOSTNAME": "bench-2"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := clientFrom(func(k string) string { return tc.env[k] }); got != tc.want {
				t.Errorf("clientFrom = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNewProvenance(t *testing.T) {
	args := []string{"clyde", "fs", "-d", "/tmp"}
	before := time.Now()
	p := NewProvenance(args, "1.2.3", "abc123", "")
	args[0] = "changed"
	if p.Tool != "clyde" || p.Version != "1.2.3" || p.Commit != "abc123" {
		t.Errorf("identity = %q %q %q", p.Tool, p.Version, p.Commit)
	}
	if len(p.CommandLine) != 4 || p.CommandLine[0] != "clyde" {
		t.Errorf("CommandLine = %q, want an unaliased copy of the arguments", p.CommandLine)
	}
	if p.OS != runtime.GOOS || p.Arch != runtime.GOARCH || p.CPUs != runtime.NumCPU() {
		t.Errorf("OS/Arch/CPUs = %s/%s/%d", p.OS, p.Arch, p.CPUs)
	}
	if p.StartTime.Location() != time.UTC || p.StartTime.Before(before.Add(-time.Second)) ||
		p.StartTime.After(time.Now().Add(time.Second)) {
		t.Errorf("StartTime = %v, want now in UTC", p.StartTime)
	}
	if p.Filesystem.Path != "" || p.Filesystem.Type != "" {
		t.Errorf("Filesystem = %+v with no path, want empty", p.Filesystem)
	}
	if h, err := os.Hostname(); err == nil && p.Hostname != h {
		t.Errorf("Hostname = %q, want %q", p.Hostname, h)
	}
	if ram, err := RAM(); err == nil && p.RAMBytes != ram.Effective {
		t.Errorf("RAMBytes = %d, want effective RAM %d", p.RAMBytes, ram.Effective)
	}
}

func TestIsTerminalFalseForFileAndPipe(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "notatty")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Error("IsTerminal(regular file) = true")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if IsTerminal(w) {
		t.Error("IsTerminal(pipe) = true")
	}
	if IsTerminal(nil) {
		t.Error("IsTerminal(nil) = true")
	}
}
