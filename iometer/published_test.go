package iometer

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

// TestVersionRule is GetVersion's reading of a version line (Iometer
// 1.1.0, src/ICF_ifstream.cpp), worked by hand from its two formulas, and
// the one format rule AccessSpecList::LoadConfig applies to the number.
func TestVersionRule(t *testing.T) {
	for _, tc := range []struct {
		line   string
		number uint64
		old    bool
		ok     bool
	}{
		{"Version 1.1.0 ", 1*10_000_000_000 + 1*100_000 + 0, false, true},
		{"Version 2006.07.27 ", 20060727, false, true},
		{"Version 2008.06.18-RC2 ", 20080618, false, true},
		{"Version 1998.05.21", 19980521, false, true},
		{"Version 1998.05.20", 19980520, true, true},
		{"Version 1998.01.05", 19980105, true, true},
		{"version 1997.12.31", 19971231, true, true},
		// the 1.1.0 numbering: 3*10^10 + 26*10^5 + 97, after every date
		{"Version 3.26.97", 30002600097, false, true},
		// the only line that still reaches GetVersion's 32697 case
		{"Version 0.0.32697", 19980105, true, true},
		{"Version 1.1", 0, false, false},
		{"Version one", 0, false, false},
		{"Version 1234567890.1.1", 0, false, false},
		{"1.1.0", 0, false, false},
	} {
		t.Run(tc.line, func(t *testing.T) {
			_, n, ok := versionOf(tc.line)
			if ok != tc.ok || ok && (n != tc.number || oldSpecs(n) != tc.old) {
				t.Errorf("%q: number %d ok %v old %v; want %d, %v, %v", tc.line, n, ok, oldSpecs(n), tc.number, tc.ok, tc.old)
			}
		})
	}
}

// TestVersionDecidesFormat: the same named section under two version
// lines, read in the format each version means and no other.
func TestVersionDecidesFormat(t *testing.T) {
	named := "'ACCESS SPECIFICATIONS\n'Access specification name,default assignment\n\t64 KiB; 100% Read; 0% random,ALL\n" +
		"'size,% of size,% reads,% random,delay,burst,align,reply\n\t65536,100,100,0,0,1,0,0\n'END access specifications\n"
	c, err := Parse(strings.NewReader("Version 3.26.97\n"+named), "v.icf")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Specs) != 1 || c.Specs[0].Name != "64 KiB; 100% Read; 0% random" || c.Specs[0].OldFormat {
		t.Fatalf("specs %+v: want the named one", c.Specs)
	}
	// 1998.05.20 means the old format: the name line is data there, and
	// Iometer refuses it as clyde does.
	if _, err := Parse(strings.NewReader("Version 1998.05.20\n"+named), "v.icf"); err == nil || !strings.HasPrefix(err.Error(), "v.icf:4:") {
		t.Errorf("%v: want the old-format reading to refuse line 4", err)
	}
	old := "'ACCESS SPECIFICATIONS\n'size % of size % reads % random delay burst\n\t2048 100 67 100 0 1\n'END access specifications\n"
	_, err = Parse(strings.NewReader("Version 3.26.97\n"+old), "v.icf")
	if err == nil || !strings.HasPrefix(err.Error(), "v.icf:3:") || !strings.Contains(err.Error(), "30002600097") {
		t.Errorf("%v: want an old-format body under 3.26.97 refused at line 3, saying how Iometer reads the version", err)
	}
	c, err = Parse(strings.NewReader("Version 1997.12.31\n"+old), "v.icf")
	if err != nil || len(c.Specs) != 1 || !c.Specs[0].OldFormat || !slices.ContainsFunc(c.Ignored, func(s string) bool { return strings.Contains(s, "earlier than 1998.01.05") }) {
		t.Errorf("%+v, %v: want a pre-1998 file read in the old format, with Iometer's warning noted", c, err)
	}
}

// TestPublishedOLTP is the file of issue 34 (testdata/README.md): read
// as the old format, its access specification name was parsed as data.
func TestPublishedOLTP(t *testing.T) {
	c := parseFile(t, "testdata/oltp_32697.icf")
	if c.Version != "3.26.97" {
		t.Errorf("version %q", c.Version)
	}
	want := []string{"64 KiB; 100% Read; 0% random", "4 KiB aligned; 50% Read; 100% random"}
	var names []string
	for _, s := range c.Specs {
		names = append(names, s.Name)
		if s.OldFormat {
			t.Errorf("%q read in the old format", s.Name)
		}
	}
	if !slices.Equal(names, want) {
		t.Fatalf("specs %q, want %q", names, want)
	}
	if l := c.Specs[0].Lines; len(l) != 1 || l[0] != (AccessLine{Size: 65536, Weight: 100, ReadPct: 100, Burst: 1}) {
		t.Errorf("64 KiB lines %+v", l)
	}
	if l := c.Specs[1].Lines; len(l) != 1 || l[0] != (AccessLine{Size: 4096, Weight: 100, ReadPct: 50, RandomPct: 100, Burst: 1, Align: 4096}) {
		t.Errorf("4 KiB lines %+v", l)
	}
	s, err := c.Setup(Options{Filename: "/tmp/f", Runtime: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Workers) != 1 || s.Workers[0].OutstandingIOs != 16 || len(s.Workers[0].Specs) != 2 {
		t.Errorf("workers %+v: want one of 16 outstanding I/Os running both", s.Workers)
	}
}

// TestQEMUFiles are the two files QEMU's test suite gives Iometer
// (testdata/README.md): each worker 1 has a second 'End target, skipped
// with a note naming its line; both workers run with every target.
func TestQEMUFiles(t *testing.T) {
	for _, tc := range []struct {
		path    string
		stray   int
		targets int
	}{
		{"testdata/tp-qemu/iometer_multi_3disks.icf", 266, 3},
		{"testdata/tp-qemu/iometer_multi_4disks.icf", 271, 4},
	} {
		t.Run(tc.path, func(t *testing.T) {
			c := parseFile(t, tc.path)
			if len(c.Workers) != 2 {
				t.Fatalf("workers %+v, want 2", c.Workers)
			}
			for _, w := range c.Workers {
				if len(w.Targets) != tc.targets || len(w.Specs) != 16 {
					t.Errorf("%s: %d targets, %d specs; want %d and 16", w.Name, len(w.Targets), len(w.Specs), tc.targets)
				}
			}
			note := "line " + itoa(tc.stray) + ": a second 'End target in worker \"Worker 1\"'s target assignments, skipped"
			if !slices.ContainsFunc(c.Ignored, func(s string) bool { return strings.HasPrefix(s, note) }) {
				t.Errorf("ignored %q lacks %q", c.Ignored, note)
			}
			s, err := c.Setup(Options{Filename: "/tmp/f", Runtime: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Workers) != 2 || !slices.ContainsFunc(s.Ignored, func(x string) bool { return strings.HasPrefix(x, note) }) {
				t.Errorf("setup workers %d, ignored %q: want both workers and the note in the result", len(s.Workers), s.Ignored)
			}
			// A line that is not a second 'End target is still refused
			// where it stands.
			b, _ := os.ReadFile(tc.path)
			lines := strings.Split(string(b), "\n")
			lines[tc.stray-1] = "'End targets"
			_, err = Parse(strings.NewReader(strings.Join(lines, "\n")), "bad.icf")
			if ue := (*result.UsageError)(nil); !errorsAs(err, &ue) || ue.Flag != "bad.icf:"+itoa(tc.stray) {
				t.Errorf("%v: want a refusal at bad.icf:%d", err, tc.stray)
			}
		})
	}
}

func parseFile(t *testing.T, path string) *Config {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(strings.NewReader(string(b)), path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
