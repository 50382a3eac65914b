package shellcomp

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
)

var sample = Program{
	Name:  "tool",
	Flags: []Flag{{Names: []string{"version", "v"}, Summary: "print the version"}},
	Commands: []Command{
		{Name: "run", Summary: "run it: the long way; with notes", Args: File, Flags: []Flag{
			{Names: []string{"mode"}, Summary: "read|write", Value: List, Words: []string{"read", "write", "bad word"}},
			{Names: []string{"dir", "d"}, Summary: "where [it] goes: 'here'", Value: Dir},
			{Names: []string{"json"}, Summary: "result file", Value: File},
			{Names: []string{"n"}, Summary: "count", Value: Word},
			{Names: []string{"fast"}, Summary: "skip"},
		}},
		{Name: "shell", Summary: "a shell", Args: List, ArgWords: []string{"bash", "fish"}},
	},
}

func TestShortSummary(t *testing.T) {
	for in, want := range map[string]string{
		"run it: the long way; with notes": "run it: the long way",
		"size (MiB)":                       "size",
		strings.Repeat("x", 90):            strings.Repeat("x", 67) + "...",
	} {
		if got := shortSummary(in); got != want {
			t.Errorf("shortSummary(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestScriptsParse checks each script is valid in its shell (where
// installed) and leaves out list words that would need quoting.
func TestScriptsParse(t *testing.T) {
	for _, sh := range Shells {
		t.Run(sh, func(t *testing.T) {
			var b strings.Builder
			if err := Write(&b, sh, sample); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(b.String(), "bad word") {
				t.Errorf("%s script offers a word with a space", sh)
			}
			if !strings.Contains(b.String(), "read write") {
				t.Errorf("%s script does not offer the list", sh)
			}
			if _, err := exec.LookPath(sh); err != nil {
				clydetest.Skipf(t, "%s is not installed", sh)
			}
			args := []string{"-n"}
			if sh == "fish" {
				args = []string{"--no-execute"}
			}
			cmd := exec.Command(sh, args...)
			cmd.Stdin = strings.NewReader(b.String())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s %v: %v\n%s\n%s", sh, args, err, out, b.String())
			}
		})
	}
	if err := Write(&strings.Builder{}, "tcsh", sample); err == nil {
		t.Error("an unknown shell was accepted")
	}
}
