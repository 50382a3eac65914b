package fiojob

import (
	"errors"
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/result"
)

// KBBase is fio's kb_base: how the unit prefixes of a quantity of data
// read. fio's default, 1024, is its compatibility mode: k, KB, MB ... are
// powers of 1024 and the IEC KiB, MiB ... powers of 1000 (fio 3.33 writes
// 999,424 bytes for size=1MiB with bs=4k). 1000 reads them as their
// standards say: KB powers of 1000, KiB powers of 1024.
type KBBase int

// The two kb_base values fio accepts.
const (
	KBBase1024 KBBase = 1024
	KBBase1000 KBBase = 1000
)

// Errors of ParseSize, for the messages of the options that call it.
var (
	errNotNumber  = errors.New("not a number")
	errUnknownSfx = errors.New("unknown unit")
	errFraction   = errors.New("fraction")
	errPercent    = errors.New("percentage")
	errExpression = errors.New("arithmetic expression")
	errTooLarge   = errors.New("too large")
)

// ParseSize reads a quantity as fio's str_to_decimal does for sizes and
// whole numbers: decimal digits (a leading zero is still decimal:
// iodepth=010 is 10), hexadecimal when the text holds "0x" (size=0x100000),
// then an optional unit, case-insensitive: k, m, g, t, p with or without
// a trailing b, and kib, mib, gib, tib, pib, read by kb_base. Where fio
// would read "1.5g" as 1 byte, or ignore a unit it does not know, the text
// is refused instead; so are fio's "50%" and "(expressions)".
func ParseSize(s string, kb KBBase) (int64, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return 0, errNotNumber
	case s[0] == '(':
		return 0, errExpression
	case strings.HasSuffix(s, "%"):
		return 0, errPercent
	}
	base := 10
	digits := s
	if i := strings.Index(strings.ToLower(s), "0x"); i >= 0 {
		base = 16
		if i != 0 {
			return 0, errNotNumber
		}
		digits = s[2:]
	}
	end := 0
	for end < len(digits) && isDigit(digits[end], base) {
		end++
	}
	if end == 0 {
		return 0, errNotNumber
	}
	v, err := strconv.ParseUint(digits[:end], base, 64)
	if err != nil {
		return 0, errTooLarge
	}
	rest := digits[end:]
	if base == 16 {
		// fio reads no unit after a hexadecimal number.
		if rest != "" {
			return 0, errUnknownSfx
		}
		return checked(v, 1)
	}
	if strings.HasPrefix(rest, ".") {
		return 0, errFraction
	}
	mult, ok := unitMultiplier(strings.ToLower(strings.TrimSpace(rest)), kb)
	if !ok {
		return 0, errUnknownSfx
	}
	return checked(v, mult)
}

func checked(v, mult uint64) (int64, error) {
	hi, lo := bits.Mul64(v, mult)
	if hi != 0 || lo > math.MaxInt64 {
		return 0, errTooLarge
	}
	return int64(lo), nil
}

func isDigit(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '9':
		return true
	case base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		return true
	}
	return false
}

// unitMultiplier is fio's __get_mult_bytes for a unit clyde accepts.
func unitMultiplier(unit string, kb KBBase) (uint64, bool) {
	if unit == "" {
		return 1, true
	}
	pow := strings.IndexByte("kmgtp", unit[0]) + 1
	if pow == 0 {
		return 0, false
	}
	mult := uint64(kb)
	switch unit[1:] {
	case "", "b":
	case "ib":
		// The IEC prefixes read the other way round from kb_base.
		mult = 1024
		if kb == KBBase1024 {
			mult = 1000
		}
	default:
		return 0, false
	}
	out := uint64(1)
	for range pow {
		out *= mult
	}
	return out, true
}

// parseKBBase reads kb_base=1024|1000.
func parseKBBase(s string) (KBBase, bool) {
	switch strings.TrimSpace(s) {
	case "1024":
		return KBBase1024, true
	case "1000":
		return KBBase1000, true
	}
	return 0, false
}

// ParseKBBaseFlag reads clyde block's --kb_base.
func ParseKBBaseFlag(flag, s string) (KBBase, error) {
	kb, ok := parseKBBase(s)
	if !ok {
		return 0, result.Usagef(flag, "%q: give 1024 (fio's default: KB, MB are powers of 1024, KiB, MiB powers of 1000) or 1000 (KB powers of 1000, KiB of 1024)", s)
	}
	return kb, nil
}

// ParseSizeFlag reads a size flag of clyde block (--size, --offset, --bs)
// as fio's command line reads the option: ParseSize under kb_base.
func ParseSizeFlag(flag, s string, kb KBBase) (int64, error) {
	n, err := ParseSize(s, kb)
	if err != nil {
		return 0, sizeError(Option{Name: flag, Value: s, Pos: flag}, err)
	}
	return n, nil
}

// ParseBSFlag reads --bs: one size or a comma list, each run as its own job.
func ParseBSFlag(flag, s string, kb KBBase) ([]int64, error) {
	parts := strings.Split(s, ",")
	out := make([]int64, 0, len(parts))
	for _, p := range parts {
		n, err := ParseSizeFlag(flag, p, kb)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, result.Usagef(flag, "%q is 0; give a block size above 0 such as 4k, or a list such as 4k,1m", p)
		}
		out = append(out, n)
	}
	return out, nil
}
