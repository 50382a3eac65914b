package fsbench

import (
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestLiveLine(t *testing.T) {
	cases := []struct {
		done, total int64
		rate        float64
		want        string
	}{
		{158_000_000, 0, 1_000_000, "Writing a byte at a time... 158,000,000 ops, 1,000,000/s"},
		{158_000_000, 194_000_000, 1_000_000, "Writing a byte at a time... 158,000,000 of 194,000,000 ops, 1,000,000/s, about 36s left"},
		{194_000_000, 194_000_000, 1_000_000, "Writing a byte at a time... 194,000,000 of 194,000,000 ops, 1,000,000/s"},
		{0, 100, 0, "Writing a byte at a time... 0 of 100 ops, 0/s"},
	}
	for _, tc := range cases {
		if got := liveLine(result.PutChar.Progress(), tc.done, tc.total, tc.rate); got != tc.want {
			t.Errorf("liveLine(%d, %d, %g) = %q, want %q", tc.done, tc.total, tc.rate, got, tc.want)
		}
	}
}

func TestExpectedOps(t *testing.T) {
	o := smallOptions(t.TempDir())
	o.ByteIOMiB, o.SizeMiB, o.ChunkBytes, o.Seeks, o.FilesK = 3, 64, 8192, 200, 2
	r := &runner{opts: o}
	for test, want := range map[result.FSTest]int64{result.PutChar: 3 << 20, result.GetChar: 3 << 20, result.PutBlock: 8192,
		result.Rewrite: 8192, result.GetBlock: 8192, result.Seeks: 200, result.SeqCreate: 2048, result.RandDelete: 2048} {
		if got := r.expectedOps(test); got != want {
			t.Errorf("%s: %d, want %d", test.Name(), got, want)
		}
	}
}
