// Package units is clyde's one parser of numbers with unit suffixes: fio's
// sizes (4k, 1MiB), bonnie++'s -s and -n fields, the sizes bonnie++ prints
// in its reports. Each caller passes the table of suffixes its format
// accepts; the parsing is the same, and strict where C's atoi was not: no
// sign, no spaces, no trailing junk, no overflow.
package units

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Unit is one suffix and what it multiplies by. Suffixes match
// case-insensitively; "" is the bare number.
type Unit struct {
	Suffix string
	Mult   int64
}

// The ways a number can be wrong; Parse's errors wrap one of them.
var (
	ErrEmpty       = errors.New("empty value")
	ErrNotNumber   = errors.New("not a number")
	ErrTooLarge    = errors.New("too large")
	ErrUnknownUnit = errors.New("unknown unit")
)

// Bytes are fio's size suffixes with its default kb_base=1024: k, m, g, t,
// p and their KB/KiB spellings are powers of 1024; b is bytes.
var Bytes = []Unit{
	{"b", 1},
	{"k", 1 << 10}, {"kb", 1 << 10}, {"kib", 1 << 10},
	{"m", 1 << 20}, {"mb", 1 << 20}, {"mib", 1 << 20},
	{"g", 1 << 30}, {"gb", 1 << 30}, {"gib", 1 << 30},
	{"t", 1 << 40}, {"tb", 1 << 40}, {"tib", 1 << 40},
	{"p", 1 << 50}, {"pb", 1 << 50}, {"pib", 1 << 50},
}

// Powers is the table bonnie++'s print_size uses: each letter of letters
// (from the first, "KMG") is the next power of 1024, starting at 1024^first.
func Powers(letters string, first int) []Unit {
	var out []Unit
	mult := int64(1)
	for range first {
		mult *= 1024
	}
	for _, l := range letters {
		out = append(out, Unit{Suffix: string(l), Mult: mult})
		if mult > math.MaxInt64/1024 {
			break
		}
		mult *= 1024
	}
	return out
}

// Parse reads a non-negative whole number of digits followed by at most one
// suffix from units (nil: no suffix allowed).
func Parse(s string, units []Unit) (int64, error) {
	if s == "" {
		return 0, ErrEmpty
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("%q is %w", s, ErrNotNumber)
	}
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is %w", s, ErrTooLarge)
	}
	rest := s[i:]
	if rest == "" {
		return n, nil
	}
	for _, u := range units {
		if strings.EqualFold(rest, u.Suffix) {
			if u.Mult > 0 && n > math.MaxInt64/u.Mult {
				return 0, fmt.Errorf("%q is %w", s, ErrTooLarge)
			}
			return n * u.Mult, nil
		}
	}
	return 0, fmt.Errorf("%q has an %w %q", s, ErrUnknownUnit, rest)
}

// Label prints a byte count the way fio's job names and CrystalDiskMark's
// rows do: 4k, 1m, 512.
func Label(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "m"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}
