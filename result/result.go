// Package result is clyde's result schema: plain data with snake_case JSON
// names and units in the names. Engines fill it; reporters read it; a saved
// result can be rendered again later.
package result

import "time"

// SchemaVersion is bumped whenever a field changes meaning or is removed.
const SchemaVersion = 1

// Provenance says where, when and how a result was produced.
type Provenance struct {
	Tool        string     `json:"tool"`
	Version     string     `json:"version"`
	Commit      string     `json:"commit,omitempty"`
	CommandLine []string   `json:"command_line"`
	Hostname    string     `json:"hostname"`
	OS          string     `json:"os"`
	Arch        string     `json:"arch"`
	Kernel      string     `json:"kernel,omitempty"`
	CPUs        int        `json:"cpus"`
	RAMBytes    uint64     `json:"ram_bytes,omitempty"`
	Filesystem  Filesystem `json:"filesystem"`
	StartTime   time.Time  `json:"start_time"`
	// Client identifies one process among many writing to one shared
	// filesystem (a Slurm, MPI or Kubernetes rank), so results merge later.
	Client string `json:"client,omitempty"`
}

// Filesystem describes the filesystem a test ran on, as the kernel reports it.
type Filesystem struct {
	Path         string `json:"path"`
	Type         string `json:"type,omitempty"`
	MountPoint   string `json:"mount_point,omitempty"`
	MountOptions string `json:"mount_options,omitempty"`
	Source       string `json:"source,omitempty"`
	DeviceModel  string `json:"device_model,omitempty"`
	DeviceSerial string `json:"device_serial,omitempty"`
	// UUID is the filesystem's own UUID (NTFS: its volume serial number)
	// from its superblock, where it could be read (Linux, as root): the
	// history knows the filesystem again wherever it is mounted.
	UUID string `json:"uuid,omitempty"`
	// Created is when the filesystem was made, where its superblock keeps
	// it (ext2/3/4's s_mkfs_time): two filesystems given one UUID by mkfs
	// differ here.
	Created time.Time `json:"created,omitzero"`
	// DeviceID names the device(s) the filesystem is on, as the kernel
	// ties them to the mount (never the mount's source text, which a tmpfs
	// or FUSE mount sets freely): a disk's serial and a partition's start,
	// a loop device's backing file, a device-mapper UUID. Two clones of
	// one filesystem (dd, cp: one UUID) differ here; the history's volume
	// is UUID, Created and DeviceID together.
	DeviceID string `json:"device_id,omitempty"`
	// VolumeName is the volume's label, ClusterBytes its allocation unit
	// (the NTFS cluster size) and SectorBytes the sector size its
	// allocation is counted in, where the platform reports them (Windows).
	VolumeName   string `json:"volume_name,omitempty"`
	ClusterBytes int64  `json:"cluster_bytes,omitempty"`
	SectorBytes  int64  `json:"sector_bytes,omitempty"`
	// NoJournal is set for an ext4 known to run without a journal, where a
	// new file skips inodes freed in the last minute or more: file creation
	// soon after many deletions (bonnie++'s random create after its
	// sequential delete, another run) is slower than the drive.
	NoJournal bool `json:"no_journal,omitempty"`
	// Note explains a type that needs it (ntfs-3g shows up as fuseblk).
	Note string `json:"note,omitempty"`
}
