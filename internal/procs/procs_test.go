package procs

import (
	"runtime"
	"testing"
)

func TestReserve(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	var r1, r2, r3 func()
	steps := []struct {
		name string
		do   func()
		want int
	}{
		{"four workers get a P each and one is left", func() { r1 = Reserve(4) }, 5},
		{"a second measurement adds its own", func() { r2 = Reserve(2) }, 7},
		{"and a third", func() { r3 = Reserve(1) }, 8},
		{"the first gives its back", func() { r1() }, 4},
		{"giving back twice is a no-op", func() { r1() }, 4},
		{"never below what it was", func() { r2() }, 2},
		{"the last restores it", func() { r3() }, 2},
		{"no workers change nothing", func() { Reserve(0)() }, 2},
	}
	for _, s := range steps {
		s.do()
		if got := runtime.GOMAXPROCS(0); got != s.want {
			t.Fatalf("%s: GOMAXPROCS %d, want %d", s.name, got, s.want)
		}
	}
	if reserved != 0 {
		t.Errorf("%d workers still reserved", reserved)
	}
}

func TestReserveNeverLowers(t *testing.T) {
	prev := runtime.GOMAXPROCS(16)
	defer runtime.GOMAXPROCS(prev)
	release := Reserve(3)
	if got := runtime.GOMAXPROCS(0); got != 16 {
		t.Fatalf("GOMAXPROCS %d with 3 workers, want 16 kept", got)
	}
	release()
	if got := runtime.GOMAXPROCS(0); got != 16 {
		t.Fatalf("GOMAXPROCS %d after release, want 16", got)
	}
}

func TestReserveCaps(t *testing.T) {
	prev := runtime.GOMAXPROCS(2)
	defer runtime.GOMAXPROCS(prev)
	release := Reserve(5000)
	defer release()
	if got := runtime.GOMAXPROCS(0); got != limit {
		t.Fatalf("GOMAXPROCS %d for 5000 workers, want the cap %d", got, limit)
	}
}
