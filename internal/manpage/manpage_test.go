package manpage

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

func TestEscape(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"hyphen is a minus", "--dir", `\-\-dir`},
		{"backslash", `a\b`, `a\eb`},
		{"non-ASCII", "µs ≤ 1", `\[u00B5]s \[u2264] 1`},
		{"control characters dropped", "a\x01b\tc", "ab c"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := escape(c.in); got != c.want {
				t.Errorf("escape(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
	if got := escapeLine(".hidden and 'quoted"); got != `\&.hidden and 'quoted` {
		t.Errorf("a leading dot must not become a request: %q", got)
	}
}

// TestWriteRendersClean writes a page with every part and checks groff
// reads it without one warning (-ww).
func TestWriteRendersClean(t *testing.T) {
	p := Page{
		Name: "tool-sub", Section: "1", Source: "tool 1.0", Manual: "tool manual", Summary: "does one thing",
		Synopsis:    []string{"tool sub [-d dir] FILE"},
		Description: "First paragraph.\n.starts with a dot\n\n  tool sub -d /mnt\n  tool sub x\n\nLast one, 'quoted' and \\ back.",
		Options: []Option{{Names: []string{"-d", "--dir"}, Arg: "DIR", Usage: "where", Default: `"."`, Env: []string{"TOOL_DIR"}},
			{Names: []string{"--fast"}, Usage: "skip"}},
		Sections: []Section{
			{Title: "Examples", Examples: []Example{{Comment: "plain", Command: "tool sub -d /mnt"}}},
			{Title: "Exit status", Items: []Item{{Tag: "0", Text: "ok"}}},
			{Title: "Notes", Text: "intro", Items: []Item{{Text: "a bullet"}}},
		},
		SeeAlso: []string{"bonnie++(8)", "fio(1)"},
	}
	var b strings.Builder
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	roff := b.String()
	for _, want := range []string{".TH \"TOOL\\-SUB\" 1", ".SH NAME\ntool\\-sub \\- does one thing", ".SH \"EXIT STATUS\"", ".BR bonnie++ (8),\n.BR fio (1)\n", ".EX\ntool sub \\-d /mnt\n"} {
		if !strings.Contains(roff, want) {
			t.Errorf("page has no %q:\n%s", want, roff)
		}
	}
	if _, err := exec.LookPath("groff"); err != nil {
		clydetest.Skip(t, "groff is not installed")
	}
	cmd := exec.Command("groff", "-ww", "-z", "-man")
	cmd.Stdin = strings.NewReader(roff)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff -ww: %v\n%s\n%s", err, out, roff)
	}
}

const readme = "# tool\n\n## Recipes\n\n### Compare two disks\n\n```\n$ tool sub -d /a --json a.json\noutput line\n$ tool sub -d /b     # the second disk\n```\n\n" +
	"```sh\n# fast, no per-char\ntool sub -f -d /a\ntool other -x\ntool sub [-d dir] FILE\ntool sub -f -d /a\n```\n\n" +
	"### What tool sub does differently\n\n- One `code` and a [link](#x),\n  continued.\n- **Two**.\n\n## Next\n\n- not this\n"

func TestExamplesFrom(t *testing.T) {
	got := ExamplesFrom(readme, "tool", "sub")
	want := []Example{
		{Comment: "Compare two disks", Command: "tool sub -d /a --json a.json"},
		{Comment: "the second disk", Command: "tool sub -d /b"},
		{Comment: "fast, no per-char", Command: "tool sub -f -d /a"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("example %d: %q, want %q", i, got[i], want[i])
		}
	}
}

func TestBulletsUnder(t *testing.T) {
	got := BulletsUnder(readme, "What tool sub does differently")
	if len(got) != 2 || got[0].Text != "One code and a link, continued." || got[1].Text != "Two." {
		t.Errorf("bullets %q", got)
	}
	if BulletsUnder(readme, "No such heading") != nil {
		t.Error("a missing heading gave bullets")
	}
}

// FuzzMarkdown feeds any text to the README readers: no panic, and every
// example is a command line of the program asked for.
func FuzzMarkdown(f *testing.F) {
	f.Add(readme)
	f.Add("```\n$ tool sub  #\n```")
	f.Fuzz(func(t *testing.T, md string) {
		for _, e := range ExamplesFrom(md, "tool", "sub") {
			if e.Command != "tool sub" && !strings.HasPrefix(e.Command, "tool sub ") {
				t.Errorf("example %q is not a tool sub command", e.Command)
			}
		}
		BulletsUnder(md, "What tool sub does differently")
	})
}
