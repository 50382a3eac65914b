package admit

import (
	"fmt"
	"strings"

	"github.com/clydebench/clyde/internal/osio"
)

// rawDiskInUse is what keeps a Windows raw disk (\\.\PhysicalDriveN) from
// being written whatever the flags, "" when nothing does: a partition in
// its table (Iometer offers a physical drive for writing only when it has
// none), a volume with an extent on it (a superfloppy has a volume but no
// partition entry), or a volume whose extents could not be read, since
// then nothing says the disk holds none. It is a pure function of what the
// disk and the volume list said, so its tests need no disk.
func rawDiskInUse(disk int, layout osio.DiskLayout, volumes, unchecked []string) string {
	var parts []string
	for _, p := range layout.Partitions {
		if p.InUse() {
			parts = append(parts, fmt.Sprintf("partition %d (type %s, %d bytes at offset %d)", p.Number, p.Type, p.Length, p.Offset))
		}
	}
	var found []string
	if len(parts) > 0 {
		found = append(found, fmt.Sprintf("its %s partition table holds %s", strings.ToUpper(layout.Style), strings.Join(parts, ", ")))
	}
	if len(volumes) > 0 {
		found = append(found, "volume "+strings.Join(volumes, ", ")+" is on it")
	}
	if len(found) > 0 {
		return strings.Join(found, "; ") + fmt.Sprintf("; clyde writes only to a disk with no partitions or volumes (remove them first, e.g. diskpart: select disk %d, clean)", disk)
	}
	if len(unchecked) > 0 {
		return "whether it holds a volume is unknown: the extents of " + strings.Join(unchecked, ", ") + " could not be read"
	}
	return ""
}
