//go:build !linux

package osio

import "unsafe"

// unsafeSlice is the one byte at b as a slice, for one-byte calls.
func unsafeSlice(b *byte) []byte { return unsafe.Slice(b, 1) }
