//go:build linux

package sysinfo

import (
	"fmt"
	"path/filepath"
)

// ext4NoJournal reports whether the ext4 filesystem on block device
// major:minor runs without a journal: /sys/fs/ext4/<device>/journal_task
// names the journal's thread, or "<none>" when there is no journal. Not
// knowing (an older kernel without the file) is false.
func ext4NoJournal(sysRoot string, major, minor uint32) bool {
	dir, err := filepath.EvalSymlinks(filepath.Join(sysRoot, "dev", "block", fmt.Sprintf("%d:%d", major, minor)))
	if err != nil {
		return false
	}
	return readSysfs(filepath.Join(sysRoot, "fs", "ext4", filepath.Base(dir), "journal_task")) == "<none>"
}

// noJournalNote is the note of an ext4 without a journal. Without one, the
// kernel gives a new file an inode freed over 60 s ago (360 s while its
// inode table block is not yet written) where it can, and finds one by
// checking every free inode of the group: creating files soon after many
// deletions measures that search as well as the drive.
const noJournalNote = "ext4 without a journal: a new file skips inodes freed in the last minute or more, so file creation soon after many deletions is slower than the drive"
