package blockbench

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/clydebench/clyde/internal/units"
	"github.com/clydebench/clyde/result"
)

// ParseSize reads a size as fio does with its default kb_base=1024: a plain
// number is bytes; k, m, g, t, p (also KB, KiB, MB, MiB, ...) are powers of
// 1024, case-insensitive (internal/units). flag names the option in the error.
func ParseSize(flag, s string) (int64, error) {
	n, err := units.Parse(strings.TrimSpace(s), units.Bytes)
	switch {
	case errors.Is(err, units.ErrTooLarge):
		return 0, result.Usagef(flag, "%q is too large; give at most 8 EiB", s)
	case errors.Is(err, units.ErrUnknownUnit):
		return 0, result.Usagef(flag, "%q has an unknown unit; accepted: k, m, g, t, p (also KiB, MB, ...)", s)
	case err != nil:
		return 0, result.Usagef(flag, "%q is not a size; give bytes or a number with k, m, g or t (4k, 1m, 1GiB)", s)
	}
	return n, nil
}

// ParseBSList reads --bs: one size or a comma list, each run as its own job.
func ParseBSList(s string) ([]int64, error) {
	parts := strings.Split(s, ",")
	out := make([]int64, 0, len(parts))
	for _, p := range parts {
		n, err := ParseSize("--bs", p)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, result.Usagef("--bs", "%q is 0; give a block size above 0 such as 4k, or a list such as 4k,1m", p)
		}
		out = append(out, n)
	}
	return out, nil
}

// BufferKind is what write buffers hold.
type BufferKind string

// The buffer kinds: fio's default random data, zero_buffers,
// buffer_compress_percentage and buffer_pattern.
const (
	BufferRandom       BufferKind = "random"
	BufferZero         BufferKind = "zero"
	BufferCompressible BufferKind = "compressible"
	BufferPattern      BufferKind = "pattern"
)

// Buffer is the --buffer spec.
type Buffer struct {
	Kind BufferKind
	// CompressPct is, for BufferCompressible, the share of each 512-byte chunk
	// that is zeros (fio's buffer_compress_percentage): 70 compresses by ~70%.
	CompressPct int
	// Refill regenerates a write buffer before every write (fio's
	// refill_buffers) instead of filling it once when the worker starts;
	// it costs CPU time in the I/O loop, as it does in fio.
	Refill bool
	// Pattern is fio's buffer_pattern: the bytes BufferPattern repeats
	// over every buffer (fio's cpy_pattern), and the part of each chunk
	// of BufferCompressible that is not random instead of zeros
	// (__fill_random_buf_percentage); at most 512 bytes, held in a string
	// so that a Buffer stays comparable.
	Pattern string
}

func (b Buffer) String() string {
	s := string(b.Kind)
	if b.Kind == BufferCompressible {
		s = "compressible:" + strconv.Itoa(b.CompressPct)
	}
	if b.Refill {
		s += ",refill"
	}
	return s
}

// ParseBuffer reads --buffer random|zero|compressible:PCT.
func ParseBuffer(s string) (Buffer, error) {
	kind, pct, hasPct := strings.Cut(s, ":")
	b := Buffer{Kind: BufferKind(kind)}
	switch {
	case b.Kind == BufferRandom && !hasPct, b.Kind == BufferZero && !hasPct:
		return b, nil
	case b.Kind == BufferCompressible && hasPct:
		n, err := strconv.Atoi(pct)
		if err != nil {
			return Buffer{}, result.Usagef("--buffer", "%q: the percentage must be a whole number 0..100, as compressible:70", s)
		}
		b.CompressPct = n
		return b, b.validate()
	}
	return Buffer{}, result.Usagef("--buffer", "%q is not a buffer spec; accepted: random, zero, compressible:PCT", s)
}

func (b Buffer) validate() error {
	switch {
	case len(b.Pattern) > maxPatternBytes:
		return result.Usagef("--buffer", "a pattern of %d bytes; fio takes at most %d", len(b.Pattern), maxPatternBytes)
	case b.Kind == BufferPattern && len(b.Pattern) == 0:
		return result.Usagef("--buffer", "pattern: no pattern bytes given")
	}
	switch b.Kind {
	case BufferRandom, BufferZero, BufferPattern:
		return nil
	case BufferCompressible:
		if b.CompressPct < 0 || b.CompressPct > 100 {
			return result.Usagef("--buffer", "compressible:%d is outside 0..100", b.CompressPct)
		}
		return nil
	}
	return result.Usagef("--buffer", "%q is not a buffer kind; accepted: random, zero, compressible:PCT", b.Kind)
}

// ParseDuration reads --runtime and --ramp_time: a plain number is seconds,
// as fio's; otherwise Go's form (500ms, 2m, 1h30m).
func ParseDuration(flag, s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		if n > int64(math.MaxInt64/time.Second) || n < int64(math.MinInt64/time.Second) {
			return 0, result.Usagef(flag, "%q is too long; give seconds or a duration such as 30s", s)
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil {
		return 0, result.Usagef(flag, "%q is not a duration; give seconds (5) or a duration (500ms, 2m)", s)
	}
	return d, nil
}

// usagef is a refusal that names a part of a job rather than a flag (the
// batching options, a workload's own sequence).
func usagef(part, format string, args ...any) error {
	return &result.UsageError{Msg: part + ": " + fmt.Sprintf(format, args...)}
}
