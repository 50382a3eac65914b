package orion

import (
	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// raid0 is -simulate raid0's layout of the LUNs as one volume
// (blockbench.VolumeLayout): striped RAID-0 fashion in units of Stripe
// bytes, stripe k on LUN k mod n, each LUN holding as many whole stripes
// as the smallest one does. No I/O crosses a stripe.
type raid0 struct{ Stripe int64 }

// Check refuses a block size that does not divide the stripe: such an I/O
// would span two LUNs, which one request cannot.
func (r raid0) Check(bs int64) error {
	switch {
	case r.Stripe <= 0:
		return result.Usagef("-simulate", "stripe %d is not above 0", r.Stripe)
	case r.Stripe%bs != 0:
		return result.Usagef("--bs", "%d does not divide the stripe of %d bytes, so I/Os would cross stripes; give a power of two", bs, r.Stripe)
	}
	return nil
}

// Size is n LUNs of the smallest one's whole stripes.
func (r raid0) Size(members []int64) int64 {
	var smallest int64
	for i, n := range members {
		if i == 0 || n < smallest {
			smallest = n
		}
	}
	return int64(len(members)) * (smallest / r.Stripe * r.Stripe)
}

// Blocks numbers the blocks stripe by stripe: Stripe/bs of them in each.
func (r raid0) Blocks(members []int64, bs int64) blockbench.BlockLayout {
	return &raid0Blocks{luns: int64(len(members)), stripe: r.Stripe, bs: bs, per: r.Stripe / bs}
}

// raid0Blocks is the layout for one block size.
type raid0Blocks struct {
	luns, stripe, bs int64
	per              int64 // blocks per stripe
}

func (m *raid0Blocks) First(off int64) int64 {
	return off/m.stripe*m.per + min((off%m.stripe+m.bs-1)/m.bs, m.per)
}

func (m *raid0Blocks) Locate(b int64) (int, int64) {
	s := b / m.per
	return int(s % m.luns), s/m.luns*m.stripe + b%m.per*m.bs
}
