package fiojob

import (
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

// TestParsePattern reads patterns as fio 3.33 does: the table is what
// fio's own parse_and_fill_pattern made of each (testdata/pattern_oracle.c
// prints it): the bytes, whether fio refused it, where %o goes.
func TestParsePattern(t *testing.T) {
	for _, c := range []struct {
		in      string
		hex     string
		refused bool
		offsets []int
	}{
		{`"abcd"`, "61626364", false, nil},
		{`-1024`, "00fcffff", false, nil},
		{`66`, "42", false, nil},
		{`0xFF0X1`, "ff01", false, nil},
		{`"123"0xFFeeCC`, "313233ffeecc", false, nil},
		{`-100xab"1"%o"2"`, "f6ffffffab31000000000000000032", false, []int{6}},
		{`%o0xdeadbeef%o`, "0000000000000000deadbeef0000000000000000", false, []int{0, 12}},
		{`0xfefefefefefefefefefefefefefefefefefefefefe`, "fefefefefefefefefefefefefefefefefefefefefe", false, nil},
		{`0`, "00", false, nil},
		{`256`, "0001", false, nil},
		{`0xabc`, "0abc", false, nil},
		{`1 2`, "0102", false, nil},
		{`0xff0x14`, "ff14", false, nil},
		{`2147483647`, "ffffff7f", false, nil},
		{`-2147483648`, "00000080", false, nil},
		{`2147483648`, "", true, nil},
		{`0xabx`, "", true, nil},
		{`"abc`, "", true, nil},
		{`7`, "07", false, nil},
		{`0x12"a"9`, "126109", false, nil},
		{` 5`, "05", false, nil},
		{`+3`, "03", false, nil},
		{`0X0a`, "0a", false, nil},
	} {
		got, offsets, err := parsePattern(c.in, true)
		if c.refused {
			if err == nil {
				t.Errorf("%s: read as %x; fio refuses it", c.in, got)
			}
			continue
		}
		if err != nil || hex.EncodeToString(got) != c.hex || !slices.Equal(offsets, c.offsets) {
			t.Errorf("%s: %x at %v (%v); fio reads %s at %v", c.in, got, offsets, err, c.hex, c.offsets)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"'/etc/passwd'", "names a file"},
		{"%o", "other than"}, // buffer_pattern takes no format
		{`""`, "empty string"},
		{strings.Repeat("0xff", 513), "512 bytes"},
		{"", "not a pattern"},
	} {
		if _, _, err := parsePattern(c.in, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error saying %q", c.in, err, c.want)
		}
	}
}

func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{`"abcd"`, `-100xab"1"%o"2"`, `0xff0x14`, `1 2`, `%o0xdeadbeef%o`, `0x0x1`, `'f'`, `-2147483648`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, offsets, err := parsePattern(s, true)
		if err != nil {
			return
		}
		if len(p) == 0 || len(p) > maxPattern {
			t.Fatalf("%q: %d bytes", s, len(p))
		}
		for _, o := range offsets {
			if o < 0 || o+patternOffsetLen > len(p) {
				t.Fatalf("%q: %%o at %d of %d bytes", s, o, len(p))
			}
		}
	})
}
