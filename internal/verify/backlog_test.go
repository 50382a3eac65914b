package verify

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBacklog: fio's check_get_verify over a pass of 20 blocks written in
// order with verify_backlog=8: once 8 blocks are pending after a write, a
// batch of them (8 when verify_backlog_batch is 0) is read back, oldest
// first, one per I/O; a batch that finds none left waits for a write.
func TestBacklog(t *testing.T) {
	for _, c := range []struct {
		name  string
		batch int
		// during is how many blocks are read back between the writes,
		// first the first batch.
		during int
		first  []int64
	}{
		// 8 written, 8 read back, 8 and 8, 4 written, the last 4 left
		// to the final read back.
		{"batch defaults to the backlog", 0, 16, []int64{0, 1, 2, 3, 4, 5, 6, 7}},
		// 8 written, 3 read back, 5 pending: 3 written, 3 read back, ...
		{"batch of 3", 3, 12, []int64{0, 1, 2}},
		{"batch of 1", 1, 12, []int64{0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := New(Spec{Kind: CRC32C, Size: 20 * testBS, Interval: testBS, MaxIO: testBS, Seeds: rand.NewPCG(1, 1), Backlog: 8, BacklogBatch: c.batch})
			buf := make([]byte, testBS)
			var reads [][]int64
			for blk := range int64(20) {
				var due []int64
				for i, ok := b.NextBacklog(); ok; i, ok = b.NextBacklog() {
					due = append(due, i)
					if r := b.Take(i); r.Seed == 0 {
						t.Fatalf("block %d read back before it was written", i)
					}
				}
				if len(due) > 0 {
					reads = append(reads, due)
				}
				b.Fill(buf, blk*testBS, 0)
			}
			during := 0
			for _, r := range reads {
				during += len(r)
			}
			if during != c.during || len(reads) == 0 || !slices.Equal(reads[0], c.first) || during+b.Written() != 20 {
				t.Errorf("read back during the writes %v (%d), %d left; want %d, the first %v", reads, during, b.Written(), c.during, c.first)
			}
		})
	}
	if _, ok := New(Spec{Kind: MD5, Size: testBS, Interval: testBS, Seeds: rand.NewPCG(1, 1)}).NextBacklog(); ok {
		t.Error("a region without verify_backlog has a block due")
	}
}
