//go:build linux

package clydetest

import "testing"

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`/tmp/a`:             "/tmp/a",
		`/tmp/with\040space`: "/tmp/with space",
		`/tmp/tab\011x\134y`: "/tmp/tab\tx\\y",
		`/tmp/end\04`:        `/tmp/end\04`,
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestUnder(t *testing.T) {
	for _, c := range []struct {
		path, dir string
		want      bool
	}{
		{"/tmp/clyde-suite-integration.1/x", "/tmp/clyde-suite-integration.1", true},
		{"/tmp/clyde-suite-integration.1", "/tmp/clyde-suite-integration.1", true},
		{"/tmp/clyde-suite-integration.12/x", "/tmp/clyde-suite-integration.1", false},
	} {
		if got := under(c.path, c.dir); got != c.want {
			t.Errorf("under(%q, %q) = %v", c.path, c.dir, got)
		}
	}
}
