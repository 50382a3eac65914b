package fiojob

import (
	"testing"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/clydetest"
)

// TestTrimAgainstFio runs rw=trim, randtrim, trimwrite and randtrimwrite
// (at offset 0: fio 3.33 writes elsewhere with offset=, rwNotes) on a loop device
// made for the test through fio and clyde and compares the entries, bytes
// per direction (trims in "trim", trimwrite's writes in "write") and sync
// counts, then randtrimwrite's latency log: the blocks touched and the
// I/Os.
func TestTrimAgainstFio(t *testing.T) {
	fio := fioBinary(t)
	dev, _ := clydetest.LoopDevice(t, 8<<20)
	text := `[global]
filename=` + dev + `
[seq]
rw=trim
bs=64k
size=2m
offset=1m
[rand]
stonewall
rw=randtrim
bs=4k
size=256k
[tw]
stonewall
rw=trimwrite
bs=64k
size=1m
offset=4m
[rtw]
stonewall
rw=randtrimwrite
bs=64k
size=1m
`
	want, err := runFio(fio, t.TempDir(), text, false)
	if err != nil {
		t.Fatal(err)
	}
	got := runClydePlan(t, text, false, func(p *blockbench.Plan) { p.DestroyData = true })
	want.files, got.files = nil, nil
	for _, d := range compareRuns(want, got, nil, false, 0) {
		t.Errorf("%s (clyde's notes: %q)", d, got.notes)
	}
	if len(want.jobs) != 4 || want.jobs[0].Trim.IOBytes != 2<<20 || want.jobs[2].Trim.IOBytes != 1<<20 || want.jobs[2].Write.IOBytes != 1<<20 ||
		want.jobs[3].Trim.IOBytes != 1<<20 || want.jobs[3].Write.IOBytes != 1<<20 {
		t.Errorf("fio's entries %+v: want four, the first trimming 2 MiB, the last two trimming and writing 1 MiB", want.jobs)
	}

	// randtrimwrite's latency log: every block of the region once (the
	// random map), each trimmed and written, 32 I/Os on 16 blocks.
	logged := `[rtw]
filename=` + dev + `
rw=randtrimwrite
bs=64k
size=1m
write_lat_log=lg
log_offset=1
`
	want, err = runFio(fio, t.TempDir(), logged, true)
	if err != nil {
		t.Fatal(err)
	}
	got = runClydePlan(t, logged, true, func(p *blockbench.Plan) { p.DestroyData = true })
	for _, d := range compareRuns(want, got, nil, false, 0) {
		t.Errorf("randtrimwrite: %s (clyde's notes: %q)", d, got.notes)
	}
	if len(want.offsets) != 16 || want.logIOs != 32 {
		t.Errorf("fio's log: %d blocks in %d I/Os, want 16 in 32", len(want.offsets), want.logIOs)
	}

	// Trims of the third block size (bs=R,W,T) and of a split for trims
	// alone: each trim's size drawn, fio's random map covering the region
	// once, the log's direction 2 (fio's trim) in both.
	for _, c := range []struct {
		name, opts string
		sc         sizeCase
	}{
		{"bs=4k,8k,16k", "rw=trim\nbs=4k,8k,16k\n", sizeCase{align: [3]int64{0, 0, 16 << 10}, cover: 1 << 20}},
		{"bssplit for trims", "rw=randtrim\nbssplit=,,4k/50:64k/50\n", sizeCase{align: [3]int64{0, 0, 4 << 10}, cover: 1 << 20}},
	} {
		text := "[sized]\nfilename=" + dev + "\nsize=1m\n" + c.opts + "write_lat_log=lg\nlog_offset=1\n"
		want, err = runFio(fio, t.TempDir(), text, true)
		if err != nil {
			t.Fatal(err)
		}
		got = runClydePlan(t, text, true, func(p *blockbench.Plan) { p.DestroyData = true })
		for _, d := range c.sc.compare(want, got) {
			t.Errorf("%s: %s", c.name, d)
		}
		for _, io := range append(want.ios, got.ios...) {
			if io.dir != 2 {
				t.Fatalf("%s: a logged I/O in direction %d, want 2 (trim) in both logs", c.name, io.dir)
			}
		}
	}
}
