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

// TestRWModifier: rw=MODE:N is a gap (a size, negative backwards) for a
// sequential mode and a run per random offset for a random one, as fio's
// str_rw_cb reads it; rw_sequencer= says how a run goes on; a later rw=
// without N clears it; fio's job options echo rw= as written.
func TestRWModifier(t *testing.T) {
	for _, c := range []struct {
		name, opts string
		gap        int64
		repeat     int
		same       bool
		echo       string
		refused    string
	}{
		{name: "backwards", opts: "rw=read:-8k", gap: -8192, echo: "read:-8k"},
		{name: "holes", opts: "rw=write:112k", gap: 112 << 10, echo: "write:112k"},
		{name: "holes kb_base=1000", opts: "kb_base=1000\nrw=write:4KiB", gap: 4096, echo: "write:4KiB"},
		{name: "mixed holes", opts: "rw=readwrite:4k", gap: 4096, echo: "readwrite:4k"},
		{name: "random run", opts: "rw=randread:8", repeat: 8, echo: "randread:8"},
		{name: "identical", opts: "rw_sequencer=identical\nrw=randrw:4", repeat: 4, same: true, echo: "randrw:4"},
		{name: "sequential sequencer", opts: "rw=randwrite:2\nrw_sequencer=sequential", repeat: 2, echo: "randwrite:2"},
		{name: "random :1 is fio's default", opts: "rw=randread:1", echo: "randread:1"},
		{name: "sequential :0 is fio's default", opts: "rw=read:0", echo: "read:0"},
		{name: "a later rw= clears it", opts: "rw=read:8k\nrw=write", echo: "write"},
		{name: "random :0", opts: "rw=randread:0", refused: "from 1"},
		{name: "random negative", opts: "rw=randread:-2", refused: "from 1"},
		{name: "not a number", opts: "rw=read:lots", refused: "not a number"},
		{name: "trim", opts: "rw=trim:8k", refused: "trims"},
		{name: "unknown sequencer", opts: "rw_sequencer=backwards", refused: "identical"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile(t, "[a]\nfilename=f\nsize=1m\n"+c.opts+"\n", nil, nil, Options{})
			if c.refused != "" {
				if err == nil || !strings.Contains(err.Error(), c.refused) {
					t.Errorf("%v, want a refusal saying %q", err, c.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := p.Groups[0][0]
			if w.SeqGap != c.gap || w.SeqRepeat != c.repeat || w.SeqRepeatSame != c.same || w.JobOptions.Get("rw") != c.echo {
				t.Errorf("gap %d, run %d, identical %v, rw echoed %q; want %d, %d, %v, %q",
					w.SeqGap, w.SeqRepeat, w.SeqRepeatSame, w.JobOptions.Get("rw"), c.gap, c.repeat, c.same, c.echo)
			}
		})
	}
}
