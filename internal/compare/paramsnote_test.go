package compare

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestParamsNote(t *testing.T) {
	fsRun := func(sizeMiB int64, filesK int, dir string) *Run {
		return &Run{FS: &result.FS{Config: result.FSConfig{FileSizeMiB: sizeMiB, FilesK: filesK, Dir: dir, ChunkBytes: 8192}}}
	}
	// Where a run was made does not count; what it did does.
	if n := ParamsNote([]*Run{fsRun(1024, 16, "/mnt/a"), fsRun(1024, 16, "/mnt/b")}); n != "" {
		t.Errorf("same parameters in two places: %q, want no note", n)
	}
	if n := ParamsNote([]*Run{fsRun(1024, 16, "/mnt/a")}); n != "" {
		t.Errorf("one run: %q", n)
	}
	n := ParamsNote([]*Run{fsRun(1536, 128, "/mnt/a"), fsRun(1536, 768, "/mnt/b"), fsRun(1536, 128, "/mnt/c")})
	for _, want := range []string{"A, C: ", "-n 128", "; B: ", "-n 768", "not like for like"} {
		if !strings.Contains(n, want) {
			t.Errorf("--auto's two sizes: %q lacks %q", n, want)
		}
	}
	if strings.Contains(n, "do not show") {
		t.Errorf("%q: the flags do show the difference", n)
	}
	// A difference the key flags do not show is still named.
	a, b := fsRun(1024, 16, "/mnt/a"), fsRun(1024, 16, "/mnt/b")
	b.FS.Config.Direct = !a.FS.Config.Direct
	if n := ParamsNote([]*Run{a, b}); !strings.Contains(n, "A: ") || !strings.Contains(n, "; B: ") {
		t.Errorf("a hidden difference: %q", n)
	}
}
