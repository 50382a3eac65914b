package osio

import (
	"encoding/binary"
	"strings"
	"testing"
)

// The Windows rules are pure functions, checked here on every platform.

func TestWinOpenOf(t *testing.T) {
	cases := []struct {
		name                       string
		flag                       Flag
		access, share, disposition uint32
		optionsSet, optionsClear   uint32
		win32Set, win32Clear       uint32
	}{
		{name: "cached read", flag: ReadOnly, access: ntFileGenericRead | ntSynchronize, share: 7, disposition: ntFileOpen,
			optionsSet:   ntSynchronousIONonalert | ntOpenReparsePoint | ntNonDirectoryFile,
			optionsClear: ntNoIntermediateBuffering | ntWriteThrough, win32Clear: win32FlagNoBuffering | win32FlagOverlapped},
		{name: "unbuffered read (-D, --direct, cdm)", flag: ReadOnly | Direct, access: ntFileGenericRead | ntSynchronize, share: 7,
			disposition: ntFileOpen, optionsSet: ntNoIntermediateBuffering | ntSynchronousIONonalert, optionsClear: ntWriteThrough,
			win32Set: win32FlagNoBuffering},
		{name: "unbuffered write-through write (-D -b)", flag: ReadWrite | Direct | WriteThrough, access: (ntFileGenericRead | ntFileGenericWrite | ntSynchronize) &^ ntFileAppendData,
			share: 7, disposition: ntFileOpen, optionsSet: ntNoIntermediateBuffering | ntWriteThrough, win32Set: win32FlagNoBuffering | win32FlagWriteThrough},
		{name: "create", flag: WriteOnly | Create, access: (ntFileGenericWrite | ntFileReadAttributes | ntSynchronize) &^ ntFileAppendData, share: 7,
			disposition: ntFileCreate, optionsSet: ntOpenReparsePoint},
		{name: "overlapped (windowsaio)", flag: ReadWrite | Direct | Overlapped, access: (ntFileGenericRead | ntFileGenericWrite | ntSynchronize) &^ ntFileAppendData,
			share: 7, disposition: ntFileOpen, optionsSet: ntNoIntermediateBuffering, optionsClear: ntSynchronousIONonalert,
			win32Set: win32FlagOverlapped | win32FlagNoBuffering},
		{name: "exclusive disk check", flag: ReadWrite | Exclusive, access: (ntFileGenericRead | ntFileGenericWrite | ntSynchronize) &^ ntFileAppendData,
			share: 0, disposition: ntFileOpen},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o, err := winOpenOf(tc.flag)
			if err != nil {
				t.Fatal(err)
			}
			if o.access != tc.access || o.share != tc.share || o.disposition != tc.disposition {
				t.Errorf("access %#x share %#x disposition %d; want %#x, %#x, %d", o.access, o.share, o.disposition, tc.access, tc.share, tc.disposition)
			}
			if o.options&tc.optionsSet != tc.optionsSet || o.options&tc.optionsClear != 0 {
				t.Errorf("options %#x; want %#x set and %#x clear", o.options, tc.optionsSet, tc.optionsClear)
			}
			if o.win32Flags&tc.win32Set != tc.win32Set || o.win32Flags&tc.win32Clear != 0 {
				t.Errorf("CreateFile flags %#x; want %#x set and %#x clear", o.win32Flags, tc.win32Set, tc.win32Clear)
			}
			if o.access&ntFileAppendData != 0 {
				t.Errorf("append access asked for")
			}
		})
	}
	if _, err := winOpenOf(ReadOnly | Create); err == nil {
		t.Error("a read-only create was accepted")
	}
}

func TestSectorAlignment(t *testing.T) {
	cases := []struct {
		name              string
		si                SectorInfo
		required          int64
		bufAlign          int
		okSize, badSize   int64
		bufferTooStrictly bool
	}{
		{name: "unknown: 4 KiB", si: SectorInfo{}, required: 4096, bufAlign: 4096, okSize: 8192, badSize: 512},
		{name: "512-byte sectors", si: SectorInfo{Logical: 512, Physical: 512}, required: 512, bufAlign: 4096, okSize: 512, badSize: 1000},
		{name: "512e: logical 512, physical 4096", si: SectorInfo{Logical: 512, Physical: 4096}, required: 512, bufAlign: 4096, okSize: 1536, badSize: 100},
		{name: "4Kn", si: SectorInfo{Logical: 4096, Physical: 4096}, required: 4096, bufAlign: 4096, okSize: 1 << 20, badSize: 512},
		{name: "not a power of two: unknown", si: SectorInfo{Logical: 520}, required: 4096, bufAlign: 4096, okSize: 4096, badSize: 520},
		{name: "8 KiB sectors outgrow the buffers", si: SectorInfo{Logical: 8192, Physical: 8192}, required: 8192, bufAlign: 8192, okSize: 8192,
			badSize: 4096, bufferTooStrictly: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.si.Required(); got != tc.required {
				t.Errorf("Required = %d, want %d", got, tc.required)
			}
			if got := tc.si.BufferAlign(); got != tc.bufAlign {
				t.Errorf("BufferAlign = %d, want %d", got, tc.bufAlign)
			}
			err := tc.si.CheckDirectAlign(tc.okSize, tc.okSize)
			if (err != nil) != tc.bufferTooStrictly {
				t.Errorf("CheckDirectAlign(%d) = %v", tc.okSize, err)
			}
			if err := tc.si.CheckDirectAlign(tc.badSize, 0); err == nil {
				t.Errorf("CheckDirectAlign(%d) accepted a misaligned size", tc.badSize)
			}
			if err := tc.si.CheckDirectAlign(tc.required, tc.badSize); err == nil {
				t.Errorf("CheckDirectAlign accepted offset %d", tc.badSize)
			}
		})
	}
}

func TestPhysicalDrive(t *testing.T) {
	cases := []struct {
		path string
		n    int
		ok   bool
	}{
		{`\\.\PhysicalDrive0`, 0, true},
		{`\\.\physicaldrive12`, 12, true},
		{`\\?\PHYSICALDRIVE3`, 3, true},
		{`\\.\PhysicalDrive`, 0, false},
		{`\\.\PhysicalDrive01`, 0, false},
		{`\\.\PhysicalDrive+1`, 0, false},
		{`\\.\PhysicalDrive1\x`, 0, false},
		{`\\.\C:`, 0, false},
		{`/dev/sda`, 0, false},
		{`C:\PhysicalDrive0`, 0, false},
	}
	for _, tc := range cases {
		n, ok := PhysicalDrive(tc.path)
		if n != tc.n || ok != tc.ok {
			t.Errorf("PhysicalDrive(%q) = %d, %v; want %d, %v", tc.path, n, ok, tc.n, tc.ok)
		}
	}
}

// layoutBytes builds IOCTL_DISK_GET_DRIVE_LAYOUT_EX output.
func layoutBytes(style uint32, parts ...DiskPartition) []byte {
	b := make([]byte, layoutHeaderBytes+len(parts)*layoutEntryBytes)
	le := binary.LittleEndian
	le.PutUint32(b[0:], style)
	le.PutUint32(b[4:], uint32(len(parts)))
	for i, p := range parts {
		e := b[layoutHeaderBytes+i*layoutEntryBytes:]
		le.PutUint32(e[0:], style)
		le.PutUint64(e[8:], uint64(p.Offset))
		le.PutUint64(e[16:], uint64(p.Length))
		le.PutUint32(e[24:], p.Number)
		switch {
		case style == partitionStyleMBR && p.Type != "":
			e[32] = 0x07
		case style == partitionStyleGPT && p.Type != "":
			copy(e[32:], []byte{0xa2, 0xa0, 0xd0, 0xeb, 0xe5, 0xb9, 0x33, 0x44, 0x87, 0xc0, 0x68, 0xb6, 0xb7, 0x26, 0x99, 0xc7})
		}
	}
	return b
}

func TestParseDriveLayout(t *testing.T) {
	used := DiskPartition{Number: 1, Offset: 1 << 20, Length: 1 << 30, Type: "x"}
	empty := DiskPartition{}
	cases := []struct {
		name     string
		b        []byte
		style    string
		inUse    int
		wantType string
		err      string
	}{
		{name: "raw disk", b: layoutBytes(partitionStyleRAW), style: "raw"},
		{name: "empty MBR: four unused entries", b: layoutBytes(partitionStyleMBR, empty, empty, empty, empty), style: "mbr"},
		{name: "MBR with an NTFS partition", b: layoutBytes(partitionStyleMBR, used, empty, empty, empty), style: "mbr", inUse: 1, wantType: "0x07"},
		{name: "empty GPT", b: layoutBytes(partitionStyleGPT), style: "gpt"},
		{name: "GPT with a basic data partition", b: layoutBytes(partitionStyleGPT, used), style: "gpt", inUse: 1,
			wantType: "ebd0a0a2-b9e5-4433-87c0-68b6b72699c7"},
		{name: "cut short", b: layoutBytes(partitionStyleGPT, used)[:100], err: "holds"},
		{name: "no header", b: make([]byte, 10), err: "header"},
		{name: "unknown style", b: layoutBytes(9), err: "style"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ParseDriveLayout(tc.b)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one about %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, p := range l.Partitions {
				if p.InUse() {
					n++
					if p.Type != tc.wantType {
						t.Errorf("type %q, want %q", p.Type, tc.wantType)
					}
				}
			}
			if l.Style != tc.style || n != tc.inUse {
				t.Fatalf("style %s with %d in use, want %s with %d", l.Style, n, tc.style, tc.inUse)
			}
		})
	}
}

func FuzzParseDriveLayout(f *testing.F) {
	f.Add(layoutBytes(partitionStyleGPT, DiskPartition{Number: 1, Length: 5, Type: "x"}))
	f.Add(layoutBytes(partitionStyleMBR))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseDriveLayout(b)
		if err == nil && len(l.Partitions)*layoutEntryBytes+layoutHeaderBytes > len(b) {
			t.Fatalf("%d partitions from %d bytes", len(l.Partitions), len(b))
		}
	})
}
