package copybench

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestParseSets(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Set
		wantErr string // part of the one-line error; "" for success
	}{
		{"CopySpdBench's three", DefaultSetSpec, DefaultSets(), ""},
		{"bytes without a unit", "1500:3", []Set{{1500, 3}}, ""},
		{"units in every spelling", "1K:1,2kb:1,3KiB:1,1m:1,2MiB:1,1g:1,1GB:2,3b:1", []Set{{1 << 10, 1}, {2 << 10, 1}, {3 << 10, 1},
			{1 << 20, 1}, {2 << 20, 1}, {1 << 30, 1}, {1 << 30, 2}, {3, 1}}, ""},
		{"spaces around items", " 4k:10 , 1m:2 ", []Set{{4 << 10, 10}, {1 << 20, 2}}, ""},
		{"terabyte file", "1t:1", []Set{{1 << 40, 1}}, ""},
		{"empty", "", nil, "empty"},
		{"no count", "4k", nil, "not SIZE:COUNT"},
		{"zero size", "0:10", nil, "file size must be"},
		{"zero count", "4k:0", nil, "file count must be"},
		{"negative count", "4k:-1", nil, "file count must be"},
		{"count not a number", "4k:lots", nil, "file count must be"},
		{"bad unit", "4q:10", nil, "unknown unit"},
		{"size not a number", "big:10", nil, "not a size"},
		{"over a terabyte", "2t:1", nil, "file size must be"},
		{"size overflows", "99999999999999999999:1", nil, "too large"},
		{"unit overflows", "9999999999999t:1", nil, "too large"},
		{"too many files", "4k:1000001", nil, "file count must be"},
		{"the same set twice", "4k:10,4096:10", nil, "4Kx10 is given twice"},
		{"empty item", "4k:10,,1m:1", nil, "not SIZE:COUNT"},
		{"too many sets", strings.Repeat("1k:1,", 16) + "1k:2", nil, "at most 16"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseSets(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !result.IsUsage(err) || !strings.HasPrefix(err.Error(), "--set: ") {
					t.Fatalf("ParseSets(%q) = %v, %v; want a --set usage error with %q", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSets(%q): %v", tc.in, err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("ParseSets(%q) = %v, want %v", tc.in, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("set %d = %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestSetNames(t *testing.T) {
	tests := []struct {
		set  Set
		name string
	}{
		{Set{100 << 20, 1}, "100Mx1"},
		{Set{512 << 10, 200}, "512Kx200"},
		{Set{4 << 10, 1000}, "4Kx1000"},
		{Set{1536 << 10, 2}, "1536Kx2"},
		{Set{2 << 30, 1}, "2Gx1"},
		{Set{1500, 7}, "1500x7"},
		{Set{1 << 40, 1}, "1Tx1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.set.Name(); got != tc.name {
				t.Errorf("Name() = %q, want %q", got, tc.name)
			}
			back, err := ParseSets(SetSpec([]Set{tc.set}))
			if err != nil || len(back) != 1 || back[0] != tc.set {
				t.Errorf("SetSpec %q reads back as %v, %v", SetSpec([]Set{tc.set}), back, err)
			}
		})
	}
}

// FuzzParseSets checks that any input is either refused with one --set
// line or gives sets the engine accepts, which SetSpec spells back to the
// same sets.
func FuzzParseSets(f *testing.F) {
	for _, s := range []string{DefaultSetSpec, "1500:3", "4k", "0:1", "1t:1", "4k:10,4096:10", " 1m : 2 ", "9999999999999t:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sets, err := ParseSets(s)
		if err != nil {
			if !result.IsUsage(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("ParseSets(%q): %v is not a one-line usage error", s, err)
			}
			return
		}
		o := DefaultOptions()
		o.Sets = sets
		if err := o.Validate(); err != nil {
			t.Fatalf("ParseSets(%q) gave %v, which Validate refuses: %v", s, sets, err)
		}
		back, err := ParseSets(SetSpec(sets))
		if err != nil || len(back) != len(sets) {
			t.Fatalf("SetSpec(%v) = %q reads back as %v, %v", sets, SetSpec(sets), back, err)
		}
		for i := range back {
			if back[i] != sets[i] {
				t.Fatalf("set %d: %+v reads back as %+v", i, sets[i], back[i])
			}
		}
	})
}
