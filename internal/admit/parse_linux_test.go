//go:build linux

package admit

import (
	"encoding/binary"
	"slices"
	"testing"
)

func mbrSector(entries ...mbrEntry) []byte {
	b := make([]byte, 512)
	for k, e := range entries {
		s := b[446+16*k:]
		s[4] = e.Type
		binary.LittleEndian.PutUint32(s[8:], uint32(e.Start))
		binary.LittleEndian.PutUint32(s[12:], uint32(e.Size))
	}
	b[510], b[511] = 0x55, 0xAA
	return b
}

func TestParseMBR(t *testing.T) {
	noSig := mbrSector(mbrEntry{0x83, 2048, 100})
	noSig[511] = 0
	cases := []struct {
		name string
		in   []byte
		want []mbrEntry
	}{
		{"primary and extended", mbrSector(mbrEntry{0x83, 2048, 16384}, mbrEntry{0x05, 18432, 100000}), []mbrEntry{{0x83, 2048, 16384}, {0x05, 18432, 100000}}},
		{"empty slots left out", mbrSector(mbrEntry{}, mbrEntry{0x0f, 63, 10}, mbrEntry{0x83, 99, 0}), []mbrEntry{{0x0f, 63, 10}}},
		{"GPT's protective entry", mbrSector(mbrEntry{0xee, 1, 0xffffffff}), []mbrEntry{{0xee, 1, 0xffffffff}}},
		{"no signature", noSig, nil},
		{"short", make([]byte, 100), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := parseMBR(tc.in); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	for typ, ext := range map[byte]bool{0x05: true, 0x0f: true, 0x85: true, 0x83: false, 0xee: false, 0x07: false} {
		if (mbrEntry{Type: typ}).extended() != ext {
			t.Errorf("type %#x extended = %v", typ, !ext)
		}
	}
}

func FuzzParseMBR(f *testing.F) {
	f.Add(mbrSector(mbrEntry{0x83, 2048, 16384}, mbrEntry{0x05, 18432, 100000}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		got := parseMBR(b)
		if len(got) > 4 {
			t.Errorf("%d entries", len(got))
		}
		for _, e := range got {
			if e.Type == 0 || e.Size == 0 {
				t.Errorf("empty entry %v returned", e)
			}
		}
	})
}

// TestContainedIn: an extended partition's logical partitions are inside
// it by the table's extent (the kernel shows it as two sectors); a label
// nested in a partition overlaps it; neighbours are neither.
func TestContainedIn(t *testing.T) {
	ext := partRange{"p2", 18432, 2}
	extent := partRange{"p2", 18432, 100000}
	cases := []struct {
		name     string
		self     partRange
		extent   partRange
		siblings []partRange
		want     []inside
	}{
		{"logical partitions of an extended one", ext, extent,
			[]partRange{{"p1", 2048, 16384}, {"p5", 20480, 40000}, {"p6", 62480, 1000}},
			[]inside{{"p5", toInside}, {"p6", toInside}}},
		{"partition right after the extent", ext, extent, []partRange{{"p3", 118432, 10}}, nil},
		{"slices nested in a primary partition", partRange{"p1", 2048, 16384}, partRange{},
			[]partRange{{"p5", 2048, 100}, {"p6", 4096, 100}, {"p2", 18432, 2}},
			[]inside{{"p5", toOverlap}, {"p6", toOverlap}}},
		{"a slice sees the partition it lies in", partRange{"p5", 2048, 100}, partRange{},
			[]partRange{{"p1", 2048, 16384}, {"p6", 4096, 100}}, []inside{{"p1", toOverlap}}},
		{"neighbours touch, do not overlap", partRange{"p1", 2048, 16384}, partRange{}, []partRange{{"p2", 18432, 2}, {"p0", 0, 2048}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := containedIn(tc.self, tc.extent, tc.siblings); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseOverlayLayers(t *testing.T) {
	cases := []struct {
		name   string
		in     string
		upper  string
		lowers []string
	}{
		{"absolute", "rw,lowerdir=/l1:/l2,upperdir=/u,workdir=/w,uuid=on", "/u", []string{"/l1", "/l2"}},
		{"relative, as given", "rw,lowerdir=lower,upperdir=upper,workdir=work", "upper", []string{"lower"}},
		{"no upper (read-only stack)", "ro,lowerdir=/a:/b", "", []string{"/a", "/b"}},
		{"data layers after ::", "ro,lowerdir=/a::/data", "", []string{"/a", "/data"}},
		{"escaped comma, space and colon", `rw,lowerdir=/x\054y:/a\134:b,upperdir=/u\040v`, "/u v", []string{"/x,y", "/a:b"}},
		{"lowerdir+ and datadir+", "rw,lowerdir+=/a,lowerdir+=/b,datadir+=/d,upperdir=/u", "/u", []string{"/a", "/b", "/d"}},
		{"nothing", "rw,relatime", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			upper, lowers := parseOverlayLayers(tc.in)
			if upper != tc.upper || !slices.Equal(lowers, tc.lowers) {
				t.Errorf("got %q %q, want %q %q", upper, lowers, tc.upper, tc.lowers)
			}
		})
	}
}

func FuzzParseOverlayLayers(f *testing.F) {
	f.Add("rw,lowerdir=/l1:/l2,upperdir=/u,workdir=/w,uuid=on")
	f.Add(`lowerdir=\:\\::`)
	f.Fuzz(func(t *testing.T, opts string) {
		_, lowers := parseOverlayLayers(opts)
		for _, l := range lowers {
			if l == "" {
				t.Errorf("empty layer from %q", opts)
			}
		}
	})
}

func TestParseOverlayFH(t *testing.T) {
	// What overlayfs stored for a copied-up file on ext4: version 0, magic
	// 0xfb, 29 bytes, flags 0, type 1 (FILEID_INO32_GEN), a null UUID, and
	// ext4's inode and generation.
	fh := append([]byte{0, 0xfb, 29, 0, 1}, make([]byte, 16)...)
	fh = append(fh, 0xfe, 0x7a, 0x98, 0, 0xa1, 0xb1, 0xb5, 0xb5)
	typ, fid, ok := parseOverlayFH(fh)
	if !ok || typ != 1 || len(fid) != 8 || binary.LittleEndian.Uint32(fid) != 9992958 {
		t.Errorf("got %d %x %v", typ, fid, ok)
	}
	bad := slices.Clone(fh)
	bad[1] = 0xfa
	short := slices.Clone(fh[:21])
	long := append(slices.Clone(fh), 0)
	for name, b := range map[string][]byte{"bad magic": bad, "no handle": short, "length mismatch": long} {
		if _, _, ok := parseOverlayFH(b); ok {
			t.Errorf("%s accepted", name)
		}
	}
}

func FuzzParseOverlayFH(f *testing.F) {
	f.Add(append([]byte{0, 0xfb, 22, 0, 1}, make([]byte, 17)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, fid, ok := parseOverlayFH(b); ok && (len(fid) == 0 || len(fid) != len(b)-21) {
			t.Errorf("fid %x from %x", fid, b)
		}
	})
}

func TestParseRingFiles(t *testing.T) {
	info := "pos:\t0\nflags:\t02000002\nSqThreadCpu:\t-1\nUserFiles:\t3\n    0: /tmp/a b\\040c\n    2: /dev/loop7\n 1000: /x: y\nUserBufs:\t0\nPollList:\n"
	want := []string{"/tmp/a b c", "/dev/loop7", "/x: y"}
	if got := parseRingFiles([]byte(info)); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := parseRingFiles([]byte("pos:\t0\nUserFiles:\t0\nUserBufs:\t0\n")); got != nil {
		t.Errorf("no files: got %q", got)
	}
	if got := parseRingFiles([]byte("pos:\t0\nflags:\t0\n")); got != nil {
		t.Errorf("not a ring: got %q", got)
	}
}

func FuzzParseRingFiles(f *testing.F) {
	f.Add([]byte("UserFiles:\t1\n    0: /tmp/f\nUserBufs:\t0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, p := range parseRingFiles(b) {
			if p == "" {
				t.Errorf("empty path from %q", b)
			}
		}
	})
}
