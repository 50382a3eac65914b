package main

import (
	"strings"
	"testing"
)

// TestHelpSaysEachDefaultOnce: a flag's help line names its default once;
// urfave/cli adds "(default: 0)" after a usage text that already said what
// the default is ("(default: the number of LUNs) (default: 0)"), which the
// flag's DefaultText avoids.
func TestHelpSaysEachDefaultOnce(t *testing.T) {
	for _, cmd := range newApp(nil, nil).Commands {
		t.Run(cmd.Name, func(t *testing.T) {
			code, out, stderr := runClyde(t, cmd.Name, "--help")
			if code != 0 {
				t.Fatalf("clyde %s --help: exit %d, %s", cmd.Name, code, stderr)
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.Count(line, "(default: ") > 1 {
					t.Errorf("two defaults: %s", strings.TrimSpace(line))
				}
			}
		})
	}
}
