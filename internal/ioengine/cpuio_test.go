package ioengine

import (
	"slices"
	"testing"
	"time"
)

// TestCPUIOOptions reads cpuio's options as fio's engine takes them:
// cpuload required and capped at 100, cpuchunks in microseconds (50000 by
// default), cpumode noop or qsort; exit_on_io_done=1 refused.
func TestCPUIOOptions(t *testing.T) {
	for _, c := range []struct {
		name string
		opts map[string]string
		want *cpuioConf // nil: refused
	}{
		{"load alone", map[string]string{"cpuload": "50"}, &cpuioConf{load: 50, chunk: 50 * time.Millisecond}},
		{"load capped", map[string]string{"cpuload": "150", "cpuchunks": "1000"}, &cpuioConf{load: 100, chunk: time.Millisecond}},
		{"qsort", map[string]string{"cpuload": "10", "cpumode": "qsort", "exit_on_io_done": "0"}, &cpuioConf{load: 10, chunk: 50 * time.Millisecond, qsort: true}},
		{"no load", map[string]string{"cpumode": "noop"}, nil},
		{"load 0", map[string]string{"cpuload": "0"}, nil},
		{"load not a number", map[string]string{"cpuload": "half"}, nil},
		{"chunks negative", map[string]string{"cpuload": "5", "cpuchunks": "-1"}, nil},
		{"unknown mode", map[string]string{"cpuload": "5", "cpumode": "spin"}, nil},
		{"exit_on_io_done", map[string]string{"cpuload": "5", "exit_on_io_done": "1"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := cpuioOptions("j", c.opts)
			switch {
			case c.want == nil && err == nil:
				t.Errorf("took %v as %+v; want it refused", c.opts, got)
			case c.want != nil && (err != nil || got != *c.want):
				t.Errorf("%v: %+v, %v; want %+v", c.opts, got, err, *c.want)
			}
			if err := cpuio.Check(Job{Name: "j", Options: c.opts}); (err == nil) != (c.want != nil) {
				t.Errorf("Check: %v; want accepted %v", err, c.want != nil)
			}
		})
	}
}

// TestCPUIOThinks: each unit completes in Queue with no bytes, and the
// pause the engine asks for after it is the burn times (100-load)/load:
// cpuchunks for noop, the time the sorts took for qsort, which leave the
// numbers in descending order.
func TestCPUIOThinks(t *testing.T) {
	noop, err := openCPUIO(Config{Options: map[string]string{"cpuload": "25", "cpuchunks": "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	u := &Unit{Op: Read}
	if s := noop.Queue(u); s != Completed || u.N != 0 || u.Err != nil {
		t.Fatalf("noop unit: status %d, %d bytes, %v", s, u.N, u.Err)
	}
	if got := noop.(Thinker).Think(); got != 3*time.Millisecond {
		t.Errorf("noop at 25%% of 1 ms chunks thinks %v, want 3ms", got)
	}
	qs, err := openCPUIO(Config{Options: map[string]string{"cpuload": "80", "cpumode": "qsort"}})
	if err != nil {
		t.Fatal(err)
	}
	e := qs.(*cpuioEngine)
	if s := e.Queue(&Unit{Op: Read}); s != Completed {
		t.Fatalf("qsort unit: status %d", s)
	}
	if e.burnt <= 0 || e.burnt == e.conf.chunk || e.Think() != e.burnt/4 {
		t.Errorf("qsort burnt %v and thinks %v; want the sorts' time and a quarter of it", e.burnt, e.Think())
	}
	if !slices.IsSortedFunc(e.data, descending) || len(e.data) != qsortNumbers {
		t.Error("the numbers are not left in descending order")
	}
}
