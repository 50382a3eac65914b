//go:build linux && !cgo

package limits

// cgoThreads: without cgo the runtime makes its threads itself, with small
// stacks from its own heap and no malloc arenas.
const cgoThreads = false
