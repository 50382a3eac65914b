package blockbench

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/preflight"
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

func TestFillBytes(t *testing.T) {
	s := preflight.FS{TotalBytes: 1000 << 20, FreeBytes: 900 << 20, AvailBytes: 880 << 20} // 100 MiB in use
	cases := []struct {
		name string
		fill FillLevel
		want uint64
		room bool
	}{
		{"half", FillLevel{Pct: 50, Request: "50%"}, 400 << 20, true},
		{"below the use", FillLevel{Bytes: 50 << 20, Request: "50m"}, 0, true},
		{"to a size", FillLevel{Bytes: 300 << 20, Request: "300m"}, 200 << 20, true},
		{"past the free space", FillLevel{Pct: 99, Request: "99%"}, 890 << 20, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pd := &privateDir{fill: tc.fill, need: 16 << 20, parentPath: "/mnt"}
			if got := pd.fillBytes(s); got != tc.want {
				t.Errorf("fill %d bytes, want %d", got, tc.want)
			}
			if err := pd.checkRoom(s, "--fill"); (err == nil) != tc.room {
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
