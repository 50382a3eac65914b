// Package datagen makes the data clyde writes when it must not compress or
// dedupe: bytes from a seeded PCG stream, so a run is repeatable.
package datagen

import (
	"encoding/binary"
	"math/rand/v2"
)

// Fill fills buf with the next bytes of rng, little-endian, eight at a time.
func Fill(buf []byte, rng *rand.PCG) {
	i := 0
	for ; i+8 <= len(buf); i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], rng.Uint64())
	}
	if i < len(buf) {
		var tail [8]byte
		binary.LittleEndian.PutUint64(tail[:], rng.Uint64())
		copy(buf[i:], tail[:])
	}
}
