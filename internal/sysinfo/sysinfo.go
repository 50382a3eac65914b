// Package sysinfo describes the machine a benchmark runs on, so that every
// result can say where it came from: memory (bonnie++ sizes its file from it),
// the filesystem and device under test, free space, kernel and host.
//
// OS-specific pieces live in one file per primitive; what a platform cannot
// tell returns result.ErrNotSupported or is left empty.
package sysinfo

import (
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/clydebench/clyde/result"
)

// RAMInfo is memory as a benchmark must see it: a container's memory limit
// makes a file of "twice physical RAM" no longer defeat the page cache, it
// gets the process killed, so sizes are computed from Effective.
type RAMInfo struct {
	// Physical is the installed RAM in bytes as the kernel reports it.
	Physical uint64
	// Limit is the cgroup (or job) memory limit in bytes; 0 means no limit.
	Limit uint64
	// Effective is min(Physical, Limit) in bytes, Physical when there is
	// no limit.
	Effective uint64
}

// EffectiveMiB is Effective in MiB, the unit of bonnie++'s size rule.
func (r RAMInfo) EffectiveMiB() uint64 { return r.Effective >> 20 }

// effectiveRAM builds a RAMInfo from its two sources, so every platform
// applies the same rule.
func effectiveRAM(physical, limit uint64) RAMInfo {
	r := RAMInfo{Physical: physical, Limit: limit, Effective: physical}
	if limit != 0 && (physical == 0 || limit < physical) {
		r.Effective = limit
	}
	return r
}

// Hostname is the machine's name, or "" when it cannot be read; provenance
// must never stop a run.
func Hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}

// NewProvenance records where, when and how a run happens. args is the full
// command line, path the directory under test ("" when there is none).
// Lookups that fail leave their fields empty: provenance never stops a run.
func NewProvenance(args []string, version, commit, path string) result.Provenance {
	p := result.Provenance{
		Tool:        "clyde",
		Version:     version,
		Commit:      commit,
		CommandLine: append([]string(nil), args...),
		Hostname:    Hostname(),
		OS:          runtime.GOOS,
		Arch:        runtime.GOARCH,
		Kernel:      Kernel(),
		CPUs:        runtime.NumCPU(),
		StartTime:   time.Now().UTC(),
		Client:      clientFrom(os.Getenv),
	}
	if ram, err := RAM(); err == nil {
		p.RAMBytes = ram.Effective
	}
	if path != "" {
		fs, err := FilesystemOf(path)
		if err != nil {
			fs = result.Filesystem{Path: path}
		}
		p.Filesystem = fs
	}
	return p
}

// clientFrom names this process among the many a job launcher starts against
// one shared filesystem ("slurm:3", "mpi:12", "k8s:web-0"), so their results
// can be merged later. It returns "" outside such launchers.
func clientFrom(getenv func(string) string) string {
	for _, v := range []struct{ env, kind string }{
		{"SLURM_PROCID", "slurm"},
		{"OMPI_COMM_WORLD_RANK", "mpi"},
		{"PMI_RANK", "mpi"},
		{"PMIX_RANK", "mpi"},
	} {
		if s := strings.TrimSpace(getenv(v.env)); s != "" {
			return v.kind + ":" + s
		}
	}
	// Kubernetes sets KUBERNETES_SERVICE_HOST in every pod and the pod
	// name as HOSTNAME.
	if getenv("KUBERNETES_SERVICE_HOST") != "" {
		if h := strings.TrimSpace(getenv("HOSTNAME")); h != "" {
			return "k8s:" + h
		}
	}
	return ""
}

// flagName is one platform mount or volume flag and how options lists spell it.
type flagName struct {
	bit  uint64
	name string
}

// spellFlags renders flags as a mount(8)-style option list: "rw" or "ro"
// first, then the name of every flag in names that is set.
func spellFlags(flags, readOnly uint64, names []flagName) string {
	opts := []string{"rw"}
	if flags&readOnly != 0 {
		opts[0] = "ro"
	}
	for _, f := range names {
		if flags&f.bit != 0 {
			opts = append(opts, f.name)
		}
	}
	return strings.Join(opts, ",")
}
