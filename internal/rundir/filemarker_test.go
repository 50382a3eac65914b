package rundir

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/proc"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// noPID is a pid no process has: above any pid_max.
const noPID = math.MaxInt32 - 1

// leftover plants what a killed run leaves: the data file, sized, and its
// marker, written by edit's changes to a marker of this process.
func leftover(t *testing.T, dir, name string, edit func(m *FileMarker)) string {
	t.Helper()
	d, err := osio.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f, err := d.Open(osio.Name(name), osio.ReadWrite|osio.Create, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(bytes.Repeat([]byte{0xc1}, 8192)); err != nil {
		t.Fatal(err)
	}
	e, err := f.Stat()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	e.Size = 8192
	m := NewFileMarker(name, e)
	m.PID, m.StartTicks = noPID, 0
	if edit != nil {
		edit(&m)
	}
	if err := WriteFileMarker(d, m); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

// TestCleanupFile: what a killed block run left beside its target goes, the
// data file first, only when the marker and the file are clyde's and match.
func TestCleanupFile(t *testing.T) {
	own := func(m *FileMarker) { m.PID, m.StartTicks = os.Getpid(), proc.StartTicks(os.Getpid()) }
	elsewhere := func(m *FileMarker) { m.Host = "another-" + proc.Host(); m.Dev++ }
	cases := []struct {
		name  string
		plant func(t *testing.T, dir string) string // returns --filename
		force bool
		// removed and kept are the names Cleanup reports; left what stays.
		removed, kept, left []string
		errFlag             string // a usage error for this flag; "-" any other error
	}{
		{"killed run: file, then marker", func(t *testing.T, d string) string { return leftover(t, d, "f", nil) }, false,
			[]string{"f", ".f.clyde-run"}, nil, nil, ""},
		{"no marker: nothing", func(t *testing.T, d string) string {
			os.WriteFile(filepath.Join(d, "f"), []byte("mine"), 0o644)
			return filepath.Join(d, "f")
		}, false, nil, nil, []string{"f"}, ""},
		{"nothing at all", func(t *testing.T, d string) string { return filepath.Join(d, "f") }, false, nil, nil, nil, ""},
		{"live run", func(t *testing.T, d string) string { return leftover(t, d, "f", own) }, false,
			nil, nil, []string{".f.clyde-run", "f"}, "--filename"},
		{"another host without force", func(t *testing.T, d string) string { return leftover(t, d, "f", elsewhere) }, false,
			nil, nil, []string{".f.clyde-run", "f"}, "--force"},
		{"another host with force, device numbers differing", func(t *testing.T, d string) string { return leftover(t, d, "f", elsewhere) }, true,
			[]string{"f", ".f.clyde-run"}, nil, nil, ""},
		{"file replaced since: kept, stale marker removed", func(t *testing.T, d string) string {
			// Made while the original exists, so it cannot get its inode.
			p := leftover(t, d, "f", nil)
			os.WriteFile(p+".new", bytes.Repeat([]byte{1}, 8192), 0o644)
			os.Rename(p+".new", p)
			return p
		}, false, []string{".f.clyde-run"}, []string{"f"}, []string{"f"}, ""},
		{"file grown since: kept", func(t *testing.T, d string) string {
			p := leftover(t, d, "f", nil)
			os.Truncate(p, 9000)
			return p
		}, false, []string{".f.clyde-run"}, []string{"f"}, []string{"f"}, ""},
		{"file gone, marker left", func(t *testing.T, d string) string {
			p := leftover(t, d, "f", nil)
			os.Remove(p)
			return p
		}, false, []string{".f.clyde-run"}, nil, nil, ""},
		{"file is a symlink now: kept", func(t *testing.T, d string) string {
			p := leftover(t, d, "f", nil)
			os.Remove(p)
			os.WriteFile(filepath.Join(d, "victim"), []byte("victim"), 0o644)
			os.Symlink("victim", p)
			return p
		}, false, []string{".f.clyde-run"}, []string{"f"}, []string{"f", "victim"}, ""},
		{"marker not clyde's", func(t *testing.T, d string) string {
			os.WriteFile(filepath.Join(d, "f"), []byte("mine"), 0o644)
			os.WriteFile(filepath.Join(d, ".f.clyde-run"), []byte(`{"tool":"other"}`), 0o644)
			return filepath.Join(d, "f")
		}, false, nil, nil, []string{".f.clyde-run", "f"}, "-"},
		{"marker with a start time of 0: not believed", func(t *testing.T, d string) string {
			return leftover(t, d, "f", func(m *FileMarker) { m.Start = time.Unix(0, 0) })
		}, false, nil, nil, []string{".f.clyde-run", "f"}, "-"},
		{"marker starting in the future: not believed", func(t *testing.T, d string) string {
			return leftover(t, d, "f", func(m *FileMarker) { m.Start = time.Now().Add(24 * time.Hour) })
		}, false, nil, nil, []string{".f.clyde-run", "f"}, "-"},
		{"file not made 0600 by clyde: kept", func(t *testing.T, d string) string {
			if !safepath.Supported {
				clydetest.Skip(t, "file modes are checked where the path rule is (Linux)")
			}
			p := leftover(t, d, "f", nil)
			os.Chmod(p, 0o644)
			return p
		}, false, []string{".f.clyde-run"}, []string{"f"}, []string{"f"}, ""},
		{"marker of another name", func(t *testing.T, d string) string {
			leftover(t, d, "g", nil)
			os.Rename(filepath.Join(d, ".g.clyde-run"), filepath.Join(d, ".f.clyde-run"))
			os.Rename(filepath.Join(d, "g"), filepath.Join(d, "f"))
			return filepath.Join(d, "f")
		}, false, nil, nil, []string{".f.clyde-run", "f"}, "-"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := tc.plant(t, dir)
			res, err := CleanupFile(filepath.Dir(file), filepath.Base(file), file, tc.force)
			switch {
			case tc.errFlag == "" && err != nil:
				t.Fatalf("cleanup: %v", err)
			case tc.errFlag == "-" && (err == nil || result.IsUsage(err)):
				t.Fatalf("err = %v, want a plain error", err)
			case tc.errFlag != "" && tc.errFlag != "-":
				var ue *result.UsageError
				if !errors.As(err, &ue) || ue.Flag != tc.errFlag {
					t.Fatalf("err = %v, want a usage error for %s", err, tc.errFlag)
				}
			}
			var removed, kept []string
			for _, p := range res.Removed {
				removed = append(removed, filepath.Base(p))
			}
			for _, k := range res.Skipped {
				kept = append(kept, filepath.Base(strings.SplitN(k, ":", 2)[0]))
			}
			if strings.Join(removed, ",") != strings.Join(tc.removed, ",") || strings.Join(kept, ",") != strings.Join(tc.kept, ",") {
				t.Errorf("removed %v kept %v; want %v, %v", removed, kept, tc.removed, tc.kept)
			}
			if got := entries(t, dir); strings.Join(got, ",") != strings.Join(tc.left, ",") {
				t.Errorf("left %v, want %v", got, tc.left)
			}
		})
	}
}

func TestParseFileMarker(t *testing.T) {
	good := FileMarker{Tool: "clyde", Kind: "block-target", File: "f", ID: proc.ID{PID: 7, Host: "h", Start: time.Unix(1e9, 0).UTC()}, Dev: 1, Ino: 2, Size: 3}
	enc := func(edit func(m *FileMarker)) string {
		m := good
		edit(&m)
		b, _ := json.Marshal(m)
		return string(b)
	}
	cases := []struct {
		name, in, err string
	}{
		{"good", enc(func(*FileMarker) {}), ""},
		{"another tool", enc(func(m *FileMarker) { m.Tool = "bonnie" }), "tool"},
		{"another kind", enc(func(m *FileMarker) { m.Kind = "fs" }), "kind"},
		{"path as the file", enc(func(m *FileMarker) { m.File = "../etc/passwd" }), "not a name"},
		{"dot dot", enc(func(m *FileMarker) { m.File = ".." }), "not a name"},
		{"no pid", enc(func(m *FileMarker) { m.PID = 0 }), "pid"},
		{"no host", enc(func(m *FileMarker) { m.Host = "" }), "host"},
		{"no inode", enc(func(m *FileMarker) { m.Ino = 0 }), "inode"},
		{"negative size", enc(func(m *FileMarker) { m.Size = -1 }), "size"},
		{"not json", "clyde was here", "not JSON"},
		{"too long", `{"tool":"clyde"` + strings.Repeat(" ", maxMarkerBytes) + "}", "more than"},
		{"wrong types", `{"tool":"clyde","pid":"7"}`, "not JSON"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := parseFileMarker([]byte(tc.in))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err == "" && m != good:
				t.Errorf("got %+v, want %+v", m, good)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("err = %v, want one saying %q", err, tc.err)
			}
		})
	}
}

// FuzzParseFileMarker: whatever a marker file holds, parsing never panics, and
// what it accepts survives a round trip.
func FuzzParseFileMarker(f *testing.F) {
	b, _ := json.Marshal(FileMarker{Tool: "clyde", Kind: "block-target", File: "f", ID: proc.ID{PID: 7, Host: "h"}, Dev: 1, Ino: 2, Size: 3})
	f.Add(b)
	f.Add([]byte(`{"tool":"clyde","kind":"block-target","file":"x","pid":1,"host":"a","ino":1,"size":0,"start":"2026-01-02T03:04:05Z"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseFileMarker(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("accepted %q but cannot encode it: %v", b, err)
		}
		m2, err := parseFileMarker(again)
		if err != nil || m2.Identity() != m.Identity() || m2.PID != m.PID || m2.File != m.File || m2.Host != m.Host || m2.Size != m.Size {
			t.Errorf("round trip of %q: %+v, %v; want %+v", b, m2, err, m)
		}
	})
}
