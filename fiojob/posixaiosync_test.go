package fiojob

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestPosixAIOSyncsAgainstFio holds why clyde's posixaio issues one fsync
// per fsync= point where fio 3.33's issues iodepth of them: at iodepth 1
// fio and clyde count the same syncs; at iodepth 4 a fio before 3.37
// (axboe/fio#1754: last_was_sync set on completion, not issue) counts
// four per point, one fsync for each slot that frees while glibc runs the
// writes queued ahead of the first one, a fio since then one, and clyde
// one, with a note that cites the fix.
func TestPosixAIOSyncsAgainstFio(t *testing.T) {
	fio := fioBinary(t)
	const points = 256/16 - 1 // none after the last write: no I/O follows
	job := func(depth int) string {
		return "[w]\nfilename=s.dat\nsize=1m\nbs=4k\nrw=write\nfsync=16\nioengine=posixaio\niodepth=" + strconv.Itoa(depth) + "\n"
	}
	perPoint := 4
	if fioAtLeast(t, fio, 3, 37) {
		perPoint = 1
	}
	for _, c := range []struct {
		depth, fioSyncs int
	}{{1, points}, {4, perPoint * points}} {
		t.Run("iodepth="+strconv.Itoa(c.depth), func(t *testing.T) {
			want, err := runFio(fio, t.TempDir(), job(c.depth), false)
			if err != nil {
				t.Fatal(err)
			}
			got := runClyde(t, job(c.depth), false)
			if f := want.jobs[0].Sync.TotalIOs; f != int64(c.fioSyncs) {
				t.Errorf("fio counted %d syncs, want %d (%d per point)", f, c.fioSyncs, c.fioSyncs/points)
			}
			if g := got.jobs[0].Sync.TotalIOs; g != points || got.jobs[0].Sync.Lat.N != points {
				t.Errorf("clyde counted %d syncs, timed %d; want one per point, %d", g, got.jobs[0].Sync.Lat.N, points)
			}
			if !strings.Contains(strings.Join(got.notes, "\n"), "axboe/fio#1754") {
				t.Errorf("notes %q: none says why fio 3.33 counts more", got.notes)
			}
		})
	}
}

// fioAtLeast says whether fio --version is major.minor or later.
func fioAtLeast(t *testing.T, fio string, major, minor int) bool {
	t.Helper()
	out, err := exec.Command(fio, "--version").Output()
	if err != nil {
		t.Fatalf("fio --version: %v", err)
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "fio-")
	maj, rest, _ := strings.Cut(v, ".")
	mi := rest[:len(rest)-len(strings.TrimLeft(rest, "0123456789"))] // "33" of "33-dirty"
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(mi)
	if err1 != nil || err2 != nil {
		t.Fatalf("fio --version %q: not major.minor", out)
	}
	return a > major || a == major && b >= minor
}
