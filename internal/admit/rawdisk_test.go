package admit

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/osio"
)

func TestRawrawDiskInUse(t *testing.T) {
	ntfs := osio.DiskPartition{Number: 1, Offset: 1 << 20, Length: 100 << 30, Type: "0x07"}
	unused := osio.DiskPartition{}
	gptData := osio.DiskPartition{Number: 2, Offset: 16 << 20, Length: 200 << 30, Type: "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"}
	cases := []struct {
		name      string
		layout    osio.DiskLayout
		volumes   []string
		unchecked []string
		refuse    string // "" when the write may go on
	}{
		{name: "raw disk, no volumes", layout: osio.DiskLayout{Style: "raw"}},
		{name: "empty MBR (four unused entries)", layout: osio.DiskLayout{Style: "mbr", Partitions: []osio.DiskPartition{unused, unused, unused, unused}}},
		{name: "empty GPT", layout: osio.DiskLayout{Style: "gpt"}},
		{name: "MBR with an NTFS partition", layout: osio.DiskLayout{Style: "mbr", Partitions: []osio.DiskPartition{ntfs, unused, unused, unused}},
			refuse: "MBR partition table holds partition 1 (type 0x07"},
		{name: "GPT with a data partition and its volume", layout: osio.DiskLayout{Style: "gpt", Partitions: []osio.DiskPartition{gptData}},
			volumes: []string{`\\?\Volume{1}`}, refuse: `volume \\?\Volume{1} is on it`},
		{name: "superfloppy: a volume without a partition", layout: osio.DiskLayout{Style: "mbr"}, volumes: []string{`\\?\Volume{2}`},
			refuse: "no partitions or volumes"},
		{name: "a volume that could not be checked", layout: osio.DiskLayout{Style: "raw"}, unchecked: []string{`\\?\Volume{3} (Access is denied.)`},
			refuse: "could not be read"},
		{name: "a zero-length entry with a type is no partition", layout: osio.DiskLayout{Style: "mbr",
			Partitions: []osio.DiskPartition{{Number: 1, Type: "0x07"}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := rawDiskInUse(1, tc.layout, tc.volumes, tc.unchecked)
			switch {
			case tc.refuse == "" && got != "":
				t.Fatalf("refused: %s", got)
			case tc.refuse != "" && !strings.Contains(got, tc.refuse):
				t.Fatalf("got %q, want a refusal containing %q", got, tc.refuse)
			}
		})
	}
}
