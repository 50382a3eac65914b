package buildinfo

import (
	"runtime"
	"strings"
	"testing"
)

func TestSummary(t *testing.T) {
	cases := []struct {
		name, version, commit, time string
		modified                    bool
		want                        string
	}{
		{"release", "1.2.3", "0123abcd", "2026-12-01T19:00:00Z", false,
			"clyde version 1.2.3\ncommit 0123abcd (2026-12-01T19:00:00Z)\nbuilt with go1.26.8 linux/amd64\n"},
		{"dirty tree", "1.2.3-4-g0123abc", "0123abcd", "2026-12-01T19:00:00Z", true,
			"clyde version 1.2.3-4-g0123abc\ncommit 0123abcd (2026-12-01T19:00:00Z, with uncommitted changes)\nbuilt with go1.26.8 linux/amd64\n"},
		{"no vcs", "0.1.0-dev", "", "", false,
			"clyde version 0.1.0-dev\ncommit unknown (built outside version control)\nbuilt with go1.26.8 linux/amd64\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := summary("clyde", c.version, c.commit, c.time, c.modified, "go1.26.8", "linux/amd64")
			if got != c.want {
				t.Errorf("got\n%s\nwant\n%s", got, c.want)
			}
		})
	}
}

// TestSummaryNamesThisToolchain checks the live summary against the
// runtime: the Go version is the one that built the binary.
func TestSummaryNamesThisToolchain(t *testing.T) {
	s := Summary("clyde")
	if !strings.HasPrefix(s, "clyde version "+Version()+"\n") || !strings.Contains(s, "built with "+runtime.Version()+" "+runtime.GOOS+"/"+runtime.GOARCH+"\n") {
		t.Errorf("summary %q does not name version %s and %s", s, Version(), runtime.Version())
	}
}

func TestModuleVersion(t *testing.T) {
	for v, want := range map[string]bool{"": false, "(devel)": false, "v1.2.3": true, "v0.0.0-20261201190000-0123456789ab+dirty": true} {
		if got := moduleVersion(v); got != want {
			t.Errorf("moduleVersion(%q) = %v, want %v", v, got, want)
		}
	}
}
