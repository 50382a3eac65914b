package blockbench

// Volume is several targets seen as one address space, the way ORION's
// -simulate lays out the LUNs of a .lun file: concatenated one after the
// other (Stripe 0), or striped RAID-0 fashion in Stripe-byte units across
// all of them. A workload with a Volume works on that address space; each
// I/O goes to the target and offset the layout maps it to.
type Volume struct {
	Filenames []string
	Stripe    int64
}
