package fsbench

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestParseSizeSpec(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want SizeSpec
		err  string // substring of the error; "" means success
	}{
		{"plain MiB", "2048", SizeSpec{SizeMiB: 2048}, ""},
		{"zero skips", "0", SizeSpec{}, ""},
		{"bonnie g suffix", "2g", SizeSpec{SizeMiB: 2048}, ""},
		{"bonnie t suffix", "1t", SizeSpec{SizeMiB: 1 << 20}, ""},
		{"m accepted", "512m", SizeSpec{SizeMiB: 512}, ""},
		{"GiB unit", "2GiB", SizeSpec{SizeMiB: 2048}, ""},
		{"MiB unit", "300MiB", SizeSpec{SizeMiB: 300}, ""},
		{"chunk k", "1g:16k", SizeSpec{SizeMiB: 1024, ChunkBytes: 16384}, ""},
		{"chunk bytes", "64:512", SizeSpec{SizeMiB: 64, ChunkBytes: 512}, ""},
		{"chunk 1m", "64:1m", SizeSpec{SizeMiB: 64, ChunkBytes: 1 << 20}, ""},
		{"all four", "512:8k:400k:5", SizeSpec{SizeMiB: 512, ChunkBytes: 8192, Seeks: 409600, SeekProcs: 5}, ""},
		{"empty chunk keeps default", "64::1000:3", SizeSpec{SizeMiB: 64, Seeks: 1000, SeekProcs: 3}, ""},
		{"negative", "-5", SizeSpec{}, "not a number"},
		{"letters", "abc", SizeSpec{}, "not a number"},
		{"junk after number", "12x", SizeSpec{}, "unknown unit"},
		{"empty", "", SizeSpec{}, "empty"},
		{"chunk not power of two", "64:3000", SizeSpec{}, "power of two"},
		{"chunk too small", "64:128", SizeSpec{}, "power of two"},
		{"chunk too big", "64:2m", SizeSpec{}, "power of two"},
		{"chunk zero", "64:0", SizeSpec{}, "power of two"},
		{"seeks zero", "64:8k:0", SizeSpec{}, "seeks must be 1"},
		{"procs zero", "64:8k:10:0", SizeSpec{}, "seek procs"},
		{"procs too many", "64:8k:10:5000", SizeSpec{}, "seek procs"},
		{"procs with unit", "64:8k:10:5k", SizeSpec{}, "unknown unit"},
		{"too many fields", "1:2:3:4:5", SizeSpec{}, "too many fields"},
		{"overflow", "99999999999999999999", SizeSpec{}, "too large"},
		{"unit overflow", "9999999999999t", SizeSpec{}, "too large"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSizeSpec(tc.in)
			checkSpecErr(t, err, tc.err, flagIf(tc.err, "-s"))
			if tc.err == "" && got != tc.want {
				t.Fatalf("ParseSizeSpec(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func TestParseFilesSpec(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want FilesSpec
		err  string
	}{
		{"num only", "16", FilesSpec{FilesK: 16}, ""},
		{"zero skips", "0", FilesSpec{}, ""},
		{"m means 1024", "1m", FilesSpec{FilesK: 1024}, ""},
		{"full", "256:4096:512:16", FilesSpec{FilesK: 256, MaxBytes: 4096, MinBytes: 512, Dirs: 16}, ""},
		{"units on sizes", "1:4k:1k", FilesSpec{FilesK: 1, MaxBytes: 4096, MinBytes: 1024}, ""},
		{"file chunk", "1:4k:0:1:4k", FilesSpec{FilesK: 1, MaxBytes: 4096, Dirs: 1, ChunkSize: 4096}, ""},
		{"hard links", "1:-1", FilesSpec{FilesK: 1, MaxBytes: LinkHard}, ""},
		{"symlinks", "1:-2", FilesSpec{FilesK: 1, MaxBytes: LinkSymbolic}, ""},
		{"dirs k", "1:0:0:1k", FilesSpec{FilesK: 1, Dirs: 1024}, ""},
		{"min over max", "1:512:4096", FilesSpec{}, "larger than max"},
		{"min with links", "1:-1:5", FilesSpec{}, "min must be 0 with links"},
		{"other negative max", "1:-3", FilesSpec{}, "not a number"},
		{"negative num", "-1", FilesSpec{}, "not a number"},
		{"dirs zero", "1:0:0:0", FilesSpec{}, "dirs must be 1"},
		{"dirs too many", "1:0:0:100000", FilesSpec{}, "dirs must be 1"},
		{"chunk zero", "1:4k:0:1:0", FilesSpec{}, "chunk must be"},
		{"num too big", "2000000", FilesSpec{}, "more than"},
		{"max too big", "1:2g", FilesSpec{}, "over"},
		{"junk", "1:4kb2", FilesSpec{}, "unknown unit"},
		{"too many fields", "1:2:3:4:5:6", FilesSpec{}, "too many fields"},
		{"empty", "", FilesSpec{}, "empty"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseFilesSpec(tc.in)
			checkSpecErr(t, err, tc.err, flagIf(tc.err, "-n"))
			if tc.err == "" && got != tc.want {
				t.Fatalf("ParseFilesSpec(%q) = %+v, want %+v", tc.in, got, tc.want)
			}
		})
	}
}

func checkSpecErr(t *testing.T, err error, want, flag string) {
	t.Helper()
	if want == "" && flag == "" {
		if err != nil {
			t.Fatalf("unexpected error: %v", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("no error, want a %s error containing %q", flag, want)
	}
	if !result.IsUsage(err) {
		t.Fatalf("error %v is not a usage error", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, want) || !strings.HasPrefix(msg, flag+":") || strings.Contains(msg, "\n") {
		t.Fatalf("error %q: want one line starting %q and containing %q", msg, flag+":", want)
	}
}

func FuzzParseSizeSpec(f *testing.F) {
	for _, s := range []string{"2048", "1g:16k", "512:8k:400k:5", "64::1000:3", "-1", "", "1:2:3:4:5", "2GiB"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseSizeSpec(s)
		if err != nil {
			if !result.IsUsage(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q must be a one-line usage error", err)
			}
			return
		}
		if spec.SizeMiB < 0 || spec.Seeks < 0 || spec.SeekProcs < 0 {
			t.Fatalf("negative field from %q: %+v", s, spec)
		}
		if c := spec.ChunkBytes; c != 0 && (c < 256 || c > 1<<20 || c&(c-1) != 0) {
			t.Fatalf("bad chunk %d accepted from %q", c, s)
		}
	})
}

func FuzzParseFilesSpec(f *testing.F) {
	for _, s := range []string{"16", "256:4096:512:16", "1:-1", "1:-2", "1:4k:0:1:4k", "1m", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := ParseFilesSpec(s)
		if err != nil {
			if !result.IsUsage(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q must be a one-line usage error", err)
			}
			return
		}
		if spec.FilesK < 0 || spec.MinBytes < 0 || spec.MaxBytes < LinkSymbolic || spec.Dirs < 0 || spec.ChunkSize < 0 {
			t.Fatalf("out-of-range field from %q: %+v", s, spec)
		}
		if spec.MaxBytes >= 0 && spec.MinBytes > spec.MaxBytes {
			t.Fatalf("min > max accepted from %q", s)
		}
	})
}

// flagIf is flag when an error is expected, "" when success is.
func flagIf(wantErr, flag string) string {
	if wantErr == "" {
		return ""
	}
	return flag
}

func TestParseSeedNumbers(t *testing.T) {
	cases := []struct {
		name string
		data []byte
		want []int32
		err  string
	}{
		{"one number", []byte{0, 0, 1, 0}, []int32{256}, ""},
		{"big-endian", []byte{0x12, 0x34, 0x56, 0x78, 0x7f, 0xff, 0xff, 0xff}, []int32{0x12345678, 0x7fffffff}, ""},
		{"negative made positive by abs", []byte{0xff, 0xff, 0xff, 0xff, 0x80, 0, 0, 1}, []int32{1, 0x7fffffff}, ""},
		{"INT_MIN counts as 0", []byte{0x80, 0, 0, 0}, []int32{0}, ""},
		{"trailing bytes ignored, as bonnie++ does", []byte{0, 0, 0, 9, 1, 2, 3}, []int32{9}, ""},
		{"empty", nil, nil, "not one 4-byte number"},
		{"three bytes", []byte{1, 2, 3}, nil, "not one 4-byte number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseSeedNumbers(c.data)
			checkSpecErr(t, err, c.err, flagIf(c.err, "-Z"))
			if c.err == "" && !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestReadSeedFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "seeds")
	if err := os.WriteFile(good, []byte{0, 0, 0, 5, 0, 0, 0, 6}, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxSeedFileBytes+4); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path string
		err  string
	}{
		{good, ""},
		{filepath.Join(dir, "absent"), "no such file"},
		{dir, "not a regular file"},
		{big, "at most"},
	}
	for _, c := range cases {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			nums, err := ReadSeedFile(context.Background(), c.path)
			checkSpecErr(t, err, c.err, flagIf(c.err, "-Z"))
			if c.err == "" && !slices.Equal(nums, []int32{5, 6}) {
				t.Fatalf("got %v, want [5 6]", nums)
			}
		})
	}
}

func FuzzParseSeedNumbers(f *testing.F) {
	for _, b := range [][]byte{nil, {1, 2, 3}, {0x80, 0, 0, 0}, {0xff, 0xff, 0xff, 0xff, 7}} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		nums, err := ParseSeedNumbers(data)
		if err != nil {
			if !result.IsUsage(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q must be a one-line usage error", err)
			}
			return
		}
		if len(nums) != len(data)/4 {
			t.Fatalf("%d numbers from %d bytes", len(nums), len(data))
		}
		for i, v := range nums {
			if v < 0 {
				t.Fatalf("number %d is %d; rand() never returns a negative", i, v)
			}
		}
	})
}
