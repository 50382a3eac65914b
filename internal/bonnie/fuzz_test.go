package bonnie

import (
	"io"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// FuzzParseCSVLine feeds arbitrary lines to the parser. It must never panic,
// errors must be one line, and a parsed line must survive the writers: its
// result renders as text, and rewriting it as CSV reaches a line that
// parses and rewrites to itself.
func FuzzParseCSVLine(f *testing.F) {
	for _, line := range referenceLines(f) {
		f.Add(line)
	}
	for _, c := range renderCases() {
		f.Add(CSVLine(c.cfg, c.run))
	}
	f.Add(CSVHeader())
	f.Add("1.97,1.97,geek.sc,1,1385389585,2G,16k,715,99,417854,19,377889,20,+++++,+++,+++++,+++,+++++,+++,256,4096,512,,16,25559,52,252156,91,34331,97,25815,52,216073,89,31693,97,16906us,38us,54us,2697us,21us,837us,737ms,1900us,735us,821ms,9814us,625us")
	f.Add(strings.Repeat(",", 49))
	// A seek rate just under 1000 prints as "1000.0", as in bonnie++, and
	// reads back as 1000, which then prints as "1000".
	f.Add(strings.Replace(CSVLine(baseConfig(), baseRun()), ",13125,", ",999.96,", 1))
	f.Fuzz(func(t *testing.T, line string) {
		l, err := ParseCSVLine(line)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		cfg, run := l.Result()
		if err := WriteText(io.Discard, cfg, run); err != nil {
			t.Fatal(err)
		}
		_ = advise(cfg, run, &result.Room{FreeBytes: 1 << 30, FreeInodes: 1000, InodesKnown: true})
		// The version decides bonnie++'s placement; write clyde's own line
		// so the placement is unambiguous. A line must settle within two
		// rewrites: the only value that moves twice is a seek rate in
		// [999.95, 1000), which bonnie++'s rule prints as "1000.0".
		cfg.CompatVersion = "clyde"
		line = CSVLine(cfg, run)
		for pass := 1; ; pass++ {
			l2, err := ParseCSVLine(line)
			if err != nil {
				t.Fatalf("rewritten line does not parse: %v\n%s", err, line)
			}
			next := CSVLine(l2.Result())
			if next == line {
				break
			}
			if pass == 2 {
				t.Fatalf("line still changes after %d rewrites\nbefore %s\nafter  %s", pass, line, next)
			}
			line = next
		}
	})
}

// FuzzParseLatency checks the latency parser never panics, and that a parsed
// latency formats to a string that parses to the same rendering.
func FuzzParseLatency(f *testing.F) {
	for _, s := range []string{"", "11334us", "702ms", "142s", "0us", "9223372036s", "us", "-1s", "1.5ms"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ns, known, err := ParseLatency(s)
		if err != nil || !known {
			if known || ns != 0 {
				t.Fatalf("ParseLatency(%q) = %d, %v, %v", s, ns, known, err)
			}
			return
		}
		if ns < 0 {
			t.Fatalf("negative latency %d from %q", ns, s)
		}
		text := FormatLatency(ns)
		if ns == 0 {
			if text != "" {
				t.Fatalf("FormatLatency(0) = %q", text)
			}
			return
		}
		ns2, known2, err := ParseLatency(text)
		if err != nil || !known2 {
			t.Fatalf("FormatLatency(%d) = %q does not parse: %v", ns, text, err)
		}
		if ns2 > ns || FormatLatency(ns2) != text {
			t.Fatalf("%q → %d → %q → %d → %q", s, ns, text, ns2, FormatLatency(ns2))
		}
	})
}
