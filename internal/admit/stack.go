package admit

// StackLoop is a loop device under a target (LoopsUnder).
type StackLoop struct {
	// Device is the loop device (/dev/loop3); Chain is the way to it from
	// where the walk began, as the admission rule's refusals name it
	// ("/dev/loop3p1 -> /dev/loop3 (its disk)").
	Device, Chain string
	// Backing is the backing file or device as the kernel shows it; File
	// is set when it is a regular file, whose identity BackingDev and
	// BackingIno are (the device of its filesystem, its inode).
	Backing                string
	File                   bool
	BackingDev, BackingIno uint64
	// BackingRdev is the device number of a backing block device (File
	// false), where the kernel says it; 0 otherwise.
	BackingRdev uint64
	// DirectIO is /sys/block/NAME/loop/dio: the loop device does its I/O
	// to its backing file with O_DIRECT, past the host's page cache
	// (losetup --direct-io=on). DirectIOKnown is false where sysfs does not
	// say (a kernel before 4.10).
	DirectIO, DirectIOKnown bool
	// Offset is where the loop device begins in its backing (loop/offset),
	// SizeLimit its length there (loop/sizelimit; 0: to the end).
	Offset, SizeLimit int64
	// At is where the target's data begins in the loop device: 0 for the
	// loop device itself, a partition's start for a partition of it, -1
	// where the way down does not say (a filesystem's blocks, a
	// device-mapper table).
	At int64
}
