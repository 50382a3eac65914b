package iometer

import (
	"slices"
	"strings"
	"testing"
)

// oldICF is a file as Iometer wrote them before its 1998.05.21 build: no
// names, no assignments, six numbers a line, specifications closing when
// their % of size reach 100.
const oldICF = "Version 1998.01.05\n" +
	"'ACCESS SPECIFICATIONS\n" +
	"'size\t% of size\t% reads\t% random\tdelay\tburst\n" +
	"\t2048\t100\t67\t100\t0\t1\n" +
	"\t512\t60\t100\t0\t0\t1\n" +
	"\t65536\t0\t100\t0\t0\t1\n" +
	"\t4096\t40\t0\t100\t5\t2\n" +
	"\t2048\t100\t67\t100\t0\t1\n" +
	"\t1048576\t30\t0\t0\t0\t1\n" +
	"'END access specifications\n"

func TestOldFormatSpecs(t *testing.T) {
	c, err := Parse(strings.NewReader(oldICF), "old.icf")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sp := range c.Specs {
		names = append(names, sp.Name)
		if sp.Assignment != "ALL" || !sp.OldFormat {
			t.Errorf("%q: assignment %q, old %v; want ALL, as Iometer assigns an old specification", sp.Name, sp.Assignment, sp.OldFormat)
		}
	}
	want := []string{"2 KiB random 67% reads", "Untitled 1", "2 KiB random 67% reads 2"}
	if !slices.Equal(names, want) {
		t.Fatalf("specifications %q, want %q", names, want)
	}
	mixed := c.Specs[1].Lines
	wantMixed := []AccessLine{
		{Size: 512, Weight: 60, ReadPct: 100, RandomPct: 0, Burst: 1, Align: oldFormatAlign},
		{Size: 4096, Weight: 40, ReadPct: 0, RandomPct: 100, Delay: 5e6, Burst: 2, Align: oldFormatAlign},
	}
	if !slices.Equal(mixed, wantMixed) {
		t.Errorf("lines %+v\nwant  %+v", mixed, wantMixed)
	}
	for _, want := range []string{"line 6: an old-format access specification line of 0% of size", "line 9: old-format access specification lines 9 to 9, dropped"} {
		if !slices.ContainsFunc(c.Ignored, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("ignored %q lacks %q", c.Ignored, want)
		}
	}
	s, err := c.Setup(Options{Filename: "/tmp/f", Runtime: 1e9})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Workers) != 1 || len(s.Workers[0].Specs) != 3 {
		t.Fatalf("workers %+v: want Iometer's one default worker running all three", s.Workers)
	}
	if !slices.ContainsFunc(s.Notes, func(n string) bool {
		return strings.Contains(n, `"Untitled 1" (line 5) is in the format of Iometer before 1998.05.21`)
	}) {
		t.Errorf("notes %q do not say what the old format changed", s.Notes)
	}
}

func TestOldFormatVersions(t *testing.T) {
	for v, old := range map[string]bool{"1998.01.05": true, "1998.05.20": true, "1997.12.31": true, "0.0.32697": true,
		"3.26.97": false, "1998.05.21": false, "1998.10.08": false, "2006.07.27": false, "2008.06.18-RC2": false, "1.1.0": false} {
		_, n, ok := versionOf("Version " + v)
		if !ok || oldSpecs(n) != old {
			t.Errorf("version %s (%d, %v): old format %v, want %v", v, n, ok, !old, old)
		}
	}
}

func TestOldFormatRefusals(t *testing.T) {
	for _, tc := range []struct{ name, lines, want string }{
		{"above 100", "\t512\t60\t100\t0\t0\t1\n\t512\t60\t100\t0\t0\t1\n", "old.icf:5"},
		{"commas", "\t512,100,100,0,0,1\n", "old.icf:4"},
		{"percent out of range", "\t512\t100\t101\t0\t0\t1\n", "old.icf:4"},
		{"not a number", "\t512\t100\tx\t0\t0\t1\n", "old.icf:4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "Version 1998.01.05\n'ACCESS SPECIFICATIONS\n'size % of size\n" + tc.lines + "'END access specifications\n"
			_, err := Parse(strings.NewReader(src), "old.icf")
			if err == nil || !strings.HasPrefix(err.Error(), tc.want+":") {
				t.Errorf("%v, want a refusal at %s", err, tc.want)
			}
		})
	}
}
