package cpuclock

import (
	"runtime"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/clydetest"
)

// TestStopwatchCountsBusyCPU spins until the process has used 50 ms more
// CPU, read apart from the stopwatch, and checks the stopwatch counted at
// least that: the loop ends on CPU used, not on the wall clock, so a busy
// machine only makes it longer.
func TestStopwatchCountsBusyCPU(t *testing.T) {
	const spin = 50 * time.Millisecond
	x := 0
	burn := func(from Usage) {
		for {
			now, err := ProcessCPU()
			if err != nil {
				t.Fatal(err)
			}
			if now.Sub(from).Total() >= spin {
				return
			}
			for range 100_000 {
				x++
			}
		}
	}
	// CPU used before the stopwatch starts is not its own: a stopwatch
	// that reported the process's total would count this too.
	first, err := ProcessCPU()
	if err != nil {
		clydetest.Skipf(t, "no process CPU time on this platform: %v", err)
	}
	burn(first)
	// The readings around the stopwatch bound its window from outside,
	// the one that starts the spin from inside.
	outerBefore, _ := ProcessCPU()
	sw := Start()
	before, _ := ProcessCPU()
	for {
		now, err := ProcessCPU()
		if err != nil {
			t.Fatal(err)
		}
		if now.Sub(before).Total() >= spin {
			break
		}
		for range 100_000 {
			x++
		}
	}
	s := sw.Stop()
	outerAfter, _ := ProcessCPU()
	if outer := outerAfter.Sub(outerBefore).Total(); s.CPU.Total() > outer {
		t.Fatalf("the stopwatch counted %v CPU, more than the %v the process used around it", s.CPU.Total(), outer)
	}
	if !s.CPUKnown {
		t.Fatal("CPU time unknown on a platform that has it")
	}
	if s.CPU.Total() < spin {
		t.Fatalf("busy loop used %v CPU by the stopwatch, want at least the %v spun", s.CPU.Total(), spin)
	}
	// A process cannot use more CPU than wall time on every core.
	if limit := time.Duration(runtime.NumCPU()) * s.Elapsed; s.CPU.Total() > limit+10*time.Millisecond {
		t.Fatalf("%v CPU over %v elapsed on %d CPUs", s.CPU.Total(), s.Elapsed, runtime.NumCPU())
	}
	if s.CPUPercent() <= 0 {
		t.Fatalf("CPU percent %.1f, want more than nothing", s.CPUPercent())
	}
	_ = x
}

func TestSleepUsesLittleCPU(t *testing.T) {
	sw := Start()
	time.Sleep(300 * time.Millisecond)
	s := sw.Stop()
	// A sleeping process cannot have used more CPU than wall time on every core.
	if limit := time.Duration(runtime.NumCPU()) * s.Elapsed; s.CPU.Total() > limit {
		t.Fatalf("sleep used %v CPU over %v elapsed", s.CPU.Total(), s.Elapsed)
	}
}

func TestCPUPercent(t *testing.T) {
	tests := []struct {
		name string
		s    Sample
		want float64
	}{
		{"half a core", Sample{Elapsed: time.Second, CPU: Usage{User: 300 * time.Millisecond, Sys: 200 * time.Millisecond}, CPUKnown: true}, 50},
		{"two cores", Sample{Elapsed: time.Second, CPU: Usage{User: 2 * time.Second}, CPUKnown: true}, 200},
		{"unknown", Sample{Elapsed: time.Second, CPU: Usage{User: time.Second}}, 0},
		{"no time", Sample{CPU: Usage{User: time.Second}, CPUKnown: true}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.s.CPUPercent(); got != tc.want {
				t.Fatalf("CPUPercent = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNanotimeIsMonotonic(t *testing.T) {
	prev := Nanotime()
	for range 10000 {
		now := Nanotime()
		if now < prev {
			t.Fatalf("Nanotime went back from %d to %d", prev, now)
		}
		prev = now
	}
}

func TestMaxRSS(t *testing.T) {
	n, err := MaxRSS()
	if err != nil {
		clydetest.Skipf(t, "MaxRSS not available here: %v", err)
	}
	if n < 1<<20 {
		t.Fatalf("peak RSS %d bytes: a Go test binary is larger than 1 MiB", n)
	}
}
