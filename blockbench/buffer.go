package blockbench

import (
	"math/rand/v2"

	"github.com/clydebench/clyde/internal/datagen"
	"github.com/clydebench/clyde/internal/offsets"
)

// compressChunk is fio's buffer_compress_chunk default: the unit in which
// random bytes and zeros alternate for --buffer compressible:PCT.
const compressChunk = 512

// fillBuffer writes the --buffer pattern into buf.
func fillBuffer(buf []byte, spec Buffer, rng *rand.PCG) {
	switch spec.Kind {
	case BufferZero:
		clear(buf)
	case BufferCompressible:
		randomLen := compressChunk * (100 - spec.CompressPct) / 100
		for start := 0; start < len(buf); start += compressChunk {
			chunk := buf[start:min(start+compressChunk, len(buf))]
			r := min(randomLen, len(chunk))
			datagen.Fill(chunk[:r], rng)
			if spec.Pattern != "" {
				copyPattern(chunk[r:], spec.Pattern)
			} else {
				clear(chunk[r:])
			}
		}
	case BufferPattern:
		copyPattern(buf, spec.Pattern)
	default:
		datagen.Fill(buf, rng)
	}
}

// maxPatternBytes is fio's MAX_PATTERN_SIZE.
const maxPatternBytes = 512

// copyPattern repeats pattern over buf from its start, as fio's
// cpy_pattern (lib/pattern.c); it does not allocate.
func copyPattern(buf []byte, pattern string) {
	n := copy(buf, pattern)
	if n == 0 {
		return
	}
	for n < len(buf) {
		n += copy(buf[n:], buf[:n])
	}
}

// below returns a uniform value in [0, n) from one 64-bit draw
// (offsets.Below: the distributions draw with it too).
func below(rng *rand.PCG, n uint64) uint64 { return offsets.Below(rng, n) }

// newRand seeds one worker's stream; streams of different workers and jobs differ.
func newRand(seed uint64, stream uint64) *rand.PCG {
	return rand.NewPCG(seed, 0x9e3779b97f4a7c15^(stream*0xbf58476d1ce4e5b9+1))
}

// refill regenerates a write buffer (refill_buffers, or the verify= block for
// the offset just drawn); it does not allocate.
func (w *worker) refill(buf []byte) {
	if w.verify != nil {
		w.verify.fill(buf, w.now())
		return
	}
	fillBuffer(buf, w.spec.Buffer, w.fill)
}
