package htmlreport

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestCacheNoteOnThePage: a block run whose uncached figures a page cache
// served says so on its page, as in its text and JSON; beside another run,
// under its letter.
func TestCacheNoteOnThePage(t *testing.T) {
	const note = "direct=1 on /mnt/f, but it is on /dev/loop3, a loop device that reads its backing file /img through the host's page cache"
	runs := load(t, "html/cdm-both.json", "html/cdm-both.json")
	runs[1].Block.CacheNote = note
	for _, tc := range []struct {
		name string
		n    int
		want string
	}{{"alone", 1, ""}, {"beside another", 2, "B: "}} {
		rs := runs[2-tc.n:]
		p, err := buildPage(rs)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(p.Notes, tc.want+note) {
			t.Errorf("%s: notes %q, want %q", tc.name, p.Notes, tc.want+note)
		}
		var b bytes.Buffer
		if err := pageTemplate.Execute(&b, p); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "a loop device that reads its backing file /img through the host&#39;s page cache") {
			t.Errorf("%s: the page does not show the note", tc.name)
		}
	}
	if p, err := buildPage(runs[:1]); err != nil || len(p.Notes) != len(slices.DeleteFunc(slices.Clone(p.Notes), func(n string) bool { return strings.Contains(n, "loop") })) {
		t.Errorf("a run with no cache note: notes %q", p.Notes)
	}
}

// TestFSCacheNoteOnThePage: an fs run whose read phases were not cold (a
// loop device over an image on tmpfs) says so on its page too.
func TestFSCacheNoteOnThePage(t *testing.T) {
	const note = "the read phases (get_block) were not cold: /dev/loop3 reads its backing file /dev/shm/img from tmpfs"
	runs := load(t, "html/tmpfs-x3-a.json")
	runs[0].FS.CacheNote = note
	p, err := buildPage(runs)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(p.Notes, note) {
		t.Errorf("notes %q, want %q", p.Notes, note)
	}
}
