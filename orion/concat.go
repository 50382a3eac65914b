package orion

import "github.com/clydebench/clyde/blockbench"

// concat is -simulate concat's layout of the LUNs as one volume
// (blockbench.VolumeLayout), ORION's default: the members one after the
// other, each holding floor(size/bs) blocks, so no block runs past the end
// of its member.
type concat struct{}

func (concat) Check(int64) error { return nil }

func (concat) Size(members []int64) int64 {
	var total int64
	for _, n := range members {
		total += n
	}
	return total
}

func (concat) Blocks(members []int64, bs int64) blockbench.BlockLayout {
	m := &concatBlocks{sizes: members, bs: bs, starts: make([]int64, len(members)+1)}
	for i, n := range members {
		m.starts[i+1] = m.starts[i] + n/bs
	}
	return m
}

// concatBlocks is a concatenation for one block size: starts[i] is the
// first block of member i, then the total.
type concatBlocks struct {
	sizes  []int64
	bs     int64
	starts []int64
}

func (m *concatBlocks) First(off int64) int64 {
	var base int64
	for i, n := range m.sizes {
		if off < base+n || i == len(m.sizes)-1 {
			return m.starts[i] + min((off-base+m.bs-1)/m.bs, m.starts[i+1]-m.starts[i])
		}
		base += n
	}
	return 0
}

func (m *concatBlocks) Locate(b int64) (int, int64) {
	i := 0
	for i < len(m.sizes)-1 && b >= m.starts[i+1] {
		i++
	}
	return i, (b - m.starts[i]) * m.bs
}
