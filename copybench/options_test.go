package copybench

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		modify func(o *Options)
		flag   string // the flag the usage error names; "" for valid
	}{
		{"defaults", func(*Options) {}, ""},
		{"all methods, no fsync, zero data", func(o *Options) { o.Method, o.Sync, o.Buffer = All, SyncNone, BufferZero }, ""},
		{"no directory", func(o *Options) { o.Dir = "" }, "-d"},
		{"to is -d", func(o *Options) { o.Dir, o.To = "/mnt/a", "/mnt/a/" }, "--to"},
		{"no sets", func(o *Options) { o.Sets = nil }, "--set"},
		{"zero-byte set", func(o *Options) { o.Sets = []Set{{0, 1}} }, "--set"},
		{"empty set", func(o *Options) { o.Sets = []Set{{4096, 0}} }, "--set"},
		{"the same set twice", func(o *Options) { o.Sets = []Set{{4096, 2}, {4096, 2}} }, "--set"},
		{"zero dirs", func(o *Options) { o.Dirs = 0 }, "--dirs"},
		{"too many dirs", func(o *Options) { o.Dirs = MaxDirs + 1 }, "--dirs"},
		{"zero buffer", func(o *Options) { o.BlockBytes = 0 }, "--bs"},
		{"huge buffer", func(o *Options) { o.BlockBytes = MaxBlockBytes + 1 }, "--bs"},
		{"unknown method", func(o *Options) { o.Method = "rsync" }, "--method"},
		{"unknown buffer", func(o *Options) { o.Buffer = "compressible" }, "--buffer"},
		{"unknown sync", func(o *Options) { o.Sync = "later" }, "--syncfs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			tc.modify(&o)
			err := o.Validate()
			if tc.flag == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !result.IsUsage(err) || !strings.HasPrefix(err.Error(), tc.flag+": ") {
				t.Fatalf("Validate = %v, want a usage error naming %s", err, tc.flag)
			}
		})
	}
}

func TestParseMethodAndBuffer(t *testing.T) {
	for _, s := range []string{"readwrite", "copy_file_range", "clone", "all"} {
		if m, err := ParseMethod(s); err != nil || string(m) != s {
			t.Errorf("ParseMethod(%q) = %q, %v", s, m, err)
		}
	}
	if _, err := ParseMethod("cp"); !result.IsUsage(err) {
		t.Errorf("ParseMethod(cp) = %v, want a usage error", err)
	}
	for _, s := range []string{"random", "zero"} {
		if b, err := ParseBuffer(s); err != nil || string(b) != s {
			t.Errorf("ParseBuffer(%q) = %q, %v", s, b, err)
		}
	}
	if _, err := ParseBuffer("ones"); !result.IsUsage(err) {
		t.Errorf("ParseBuffer(ones) = %v, want a usage error", err)
	}
}

func TestNeeds(t *testing.T) {
	o := DefaultOptions()
	o.Sets = []Set{{1000, 10}, {1 << 20, 2}}
	o.Dirs = 4
	src, dst := o.Needs()
	// Largest set: 2 files of 1 MiB in 2 directories plus the set's own,
	// then 4 blocks of private directory, marker and probes, per side;
	// both sides on -d without --to.
	perSide := uint64(2<<20 + 3*4096 + 4*4096)
	if src.Bytes != 2*perSide || dst.Bytes != 0 {
		t.Errorf("Needs without --to = %d, %d bytes; want %d, 0", src.Bytes, dst.Bytes, 2*perSide)
	}
	// Most inodes: the 10 small files in 4 directories plus the set's own.
	if want := uint64(2 * (10 + 5 + 4)); src.Inodes != want {
		t.Errorf("Needs without --to = %d inodes, want %d", src.Inodes, want)
	}
	o.To = "/elsewhere"
	src, dst = o.Needs()
	if src.Bytes != perSide || dst.Bytes != perSide {
		t.Errorf("Needs with --to = %d, %d bytes; want %d each", src.Bytes, dst.Bytes, perSide)
	}
}
