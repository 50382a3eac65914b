package fsbench

import (
	"testing"

	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/result"
)

func TestPhaseFlags(t *testing.T) {
	rw, cr, dio, wt := osio.ReadWrite, osio.Create, osio.Direct, osio.WriteThrough
	cases := []struct {
		name                       string
		direct, sync, writeThrough bool
		putc, put, rewr, getc, get osio.Flag
		seeks                      osio.Flag
	}{
		{name: "defaults: cached", putc: rw | cr, put: rw | cr, rewr: rw, getc: rw, get: rw, seeks: rw},
		{name: "-D: block phases uncached, per-char cached", direct: true,
			putc: rw | cr, put: rw | cr | dio, rewr: rw | dio, getc: rw, get: rw | dio, seeks: rw | dio},
		{name: "-b on Linux: no write-through flag, the flushes do it", sync: true,
			putc: rw | cr, put: rw | cr, rewr: rw, getc: rw, get: rw, seeks: rw},
		{name: "-b on Windows: block writes write through", sync: true, writeThrough: true,
			putc: rw | cr, put: rw | cr | wt, rewr: rw | wt, getc: rw, get: rw, seeks: rw | wt},
		{name: "-D -b on Windows", direct: true, sync: true, writeThrough: true,
			putc: rw | cr, put: rw | cr | dio | wt, rewr: rw | dio | wt, getc: rw, get: rw | dio, seeks: rw | dio | wt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := map[result.FSTest]osio.Flag{result.PutChar: tc.putc, result.PutBlock: tc.put, result.Rewrite: tc.rewr,
				result.GetChar: tc.getc, result.GetBlock: tc.get, result.Seeks: tc.seeks}
			for test, w := range want {
				if got := phaseFlags(test, tc.direct, tc.sync, tc.writeThrough); got != w {
					t.Errorf("%s: flags %#x, want %#x", test.Name(), got, w)
				}
			}
		})
	}
}
