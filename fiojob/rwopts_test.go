package fiojob

import (
	"strings"
	"testing"
)

// TestRandTrimWriteOffsetNote: randtrimwrite with offset= says that fio
// 3.33 writes each block elsewhere (axboe/fio#1932) and clyde where it
// trimmed it; at offset 0 there is nothing to say.
func TestRandTrimWriteOffsetNote(t *testing.T) {
	for _, c := range []struct {
		name, opts string
		note       bool
	}{
		{"offset", "rw=randtrimwrite\noffset=1m\n", true},
		{"offset 0", "rw=randtrimwrite\noffset=0\n", false},
		{"trimwrite", "rw=trimwrite\noffset=1m\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile(t, "[a]\nfilename=/dev/null\nsize=1m\n"+c.opts, nil, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(strings.Join(p.Notes, "\n"), "axboe/fio#1932"); got != c.note {
				t.Errorf("notes %q: the offset= note there %v, want %v", p.Notes, got, c.note)
			}
		})
	}
}
