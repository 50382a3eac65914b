package preflight

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestParseFill(t *testing.T) {
	cases := []struct {
		in    string
		pct   float64
		bytes int64
		ok    bool
	}{
		{"50%", 50, 0, true},
		{" 12.5 % ", 12.5, 0, true},
		{"200g", 0, 200 << 30, true},
		{"1m", 0, 1 << 20, true},
		{"0%", 0, 0, false},
		{"100%", 0, 0, false},
		{"-5%", 0, 0, false},
		{"nan%", 0, 0, false},
		{"0", 0, 0, false},
		{"lots", 0, 0, false},
		{"", 0, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			f, err := ParseFill(tc.in)
			switch {
			case tc.ok && err != nil:
				t.Fatalf("refused: %v", err)
			case !tc.ok && (err == nil || !result.IsUsage(err) || !strings.HasPrefix(err.Error(), "--fill: ")):
				t.Fatalf("err = %v, want a usage error for --fill", err)
			case tc.ok && (f.Pct != tc.pct || f.Bytes != tc.bytes || !f.Set()):
				t.Errorf("got %+v, want %v%% / %d bytes", f, tc.pct, tc.bytes)
			}
		})
	}
}

func TestFillMissing(t *testing.T) {
	s := FS{TotalBytes: 1000 << 20, FreeBytes: 900 << 20, AvailBytes: 880 << 20} // 100 MiB in use
	cases := []struct {
		name string
		fill Fill
		want uint64
		room bool
	}{
		{"half", Fill{Pct: 50, Request: "50%"}, 400 << 20, true},
		{"below the use", Fill{Bytes: 50 << 20, Request: "50m"}, 0, true},
		{"to a size", Fill{Bytes: 300 << 20, Request: "300m"}, 200 << 20, true},
		{"past the free space", Fill{Pct: 99, Request: "99%"}, 890 << 20, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.fill.Missing(s); got != tc.want {
				t.Errorf("fill %d bytes, want %d", got, tc.want)
			}
			err := tc.fill.CheckRoom(s, "/mnt", 16<<20, "--fill")
			if (err == nil) != tc.room || (err != nil && (!result.IsUsage(err) || !strings.HasPrefix(err.Error(), "--fill: "+tc.fill.Request+" of /mnt means "))) {
				t.Errorf("room check: %v, want room %v", err, tc.room)
			}
		})
	}
}

func FuzzParseFill(f *testing.F) {
	for _, s := range []string{"50%", "200g", "1e3%", "0x10", "%", "9223372036854775807"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fl, err := ParseFill(s)
		if err != nil {
			if !result.IsUsage(err) {
				t.Fatalf("%q: %v is not a usage error", s, err)
			}
			return
		}
		if !fl.Set() || fl.Pct < 0 || fl.Pct >= 100 || fl.Bytes < 0 || (fl.Pct > 0) == (fl.Bytes > 0) {
			t.Fatalf("%q gave %+v", s, fl)
		}
	})
}

// TestNeeds: new files add up per directory, in the order the directories
// were named, with PerDir counted once in each; the first directory short
// of room is refused.
func TestNeeds(t *testing.T) {
	var ns Needs
	ns.PerDir = Need{Inodes: 2}
	ns.Add("/a", Need{Bytes: 10, Inodes: 2})
	ns.Add("/b", Need{Bytes: 5, Inodes: 2})
	ns.Add("/a", Need{Bytes: 1, Inodes: 2})
	if len(ns.dirs) != 2 || ns.dirs[0] != "/a" || *ns.need["/a"] != (Need{Bytes: 11, Inodes: 6}) || *ns.need["/b"] != (Need{Bytes: 5, Inodes: 4}) {
		t.Fatalf("needs %v: /a %+v, /b %+v", ns.dirs, *ns.need["/a"], *ns.need["/b"])
	}
	dir := t.TempDir()
	var big Needs
	big.Add(dir, Need{Bytes: 1})
	big.Add(dir, Need{Bytes: 1 << 62})
	if err := big.Check("the test file", Advice{Space: "smaller"}); err == nil || !strings.Contains(err.Error(), "the test file needs 4.0 EiB in "+dir) {
		t.Fatalf("4 EiB: %v", err)
	}
}
