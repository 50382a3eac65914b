package fiojob

import (
	"errors"
	"math"
	"strconv"
	"strings"
)

// fio's data patterns (buffer_pattern, verify_pattern), read as fio 3.33's
// lib/pattern.c parse_and_fill_pattern reads them: a run of items with
// nothing between them, each a quoted string ("abc", its bytes as
// written, no escapes), a hexadecimal number (0xdeadbeef, its bytes in
// the order written; an odd digit count gives the first digit a byte of
// its own), a decimal number from INT_MIN to INT_MAX (its bytes little
// endian, as few as hold it; 0 is one zero byte), or, in verify_pattern
// only, %o: the offset of the block, 8 bytes little endian
// (verify.c paste_blockoff). fio's 'file' item, a file's contents, is
// refused: clyde reads no file a job file names but the job file.

// maxPattern is fio's MAX_PATTERN_SIZE: a pattern's bytes.
const maxPattern = 512

// patternOffsetLen is the bytes %o takes.
const patternOffsetLen = 8

// errPattern is a pattern fio would not read.
var errPattern = errors.New("not a pattern")

// parsePattern reads a pattern; offsets says %o is allowed, and holds the
// byte positions where the block's offset goes.
func parsePattern(in string, formats bool) (pattern []byte, offsets []int, err error) {
	if in == "" {
		return nil, nil, errPattern
	}
	for in != "" {
		var item []byte
		switch in[0] {
		case '\'':
			return nil, nil, errors.New("a 'file' pattern names a file to read, which clyde does not; write its bytes as 0x... or \"...\"")
		case '"':
			end := strings.IndexByte(in[1:], '"')
			if end < 0 {
				return nil, nil, errors.New("a string without its closing quote")
			}
			item, in = []byte(in[1:1+end]), in[2+end:]
			if len(item) == 0 {
				// fio's assert(filled): an empty string fills nothing.
				return nil, nil, errors.New("an empty string")
			}
		case '%':
			if !formats || !strings.HasPrefix(in, "%o") {
				return nil, nil, errors.New("a % format other than verify_pattern's %o")
			}
			offsets = append(offsets, len(pattern))
			item, in = make([]byte, patternOffsetLen), in[2:]
		default:
			if item, in, err = parsePatternNumber(in); err != nil {
				return nil, nil, err
			}
		}
		if len(pattern)+len(item) > maxPattern {
			return nil, nil, errors.New("longer than fio's 512 bytes")
		}
		pattern = append(pattern, item...)
	}
	return pattern, offsets, nil
}

// parsePatternNumber is parse_number: a hexadecimal run after 0x (up to
// a 0x that starts the next one), else a decimal number up to the next
// 0x, strtol's way (leading blanks and a sign taken).
func parsePatternNumber(in string) (item []byte, rest string, err error) {
	if len(in) > 2 && in[0] == '0' && (in[1] == 'x' || in[1] == 'X') && isDigit(in[2], 16) {
		digits := 0
		for 2+digits < len(in) && isDigit(in[2+digits], 16) {
			digits++
		}
		// "0xff0x14" is two numbers: the 0 of the next one's 0x is not
		// this one's.
		if end := 2 + digits; end < len(in) && (in[end] == 'x' || in[end] == 'X') && in[end-1] == '0' {
			digits--
		}
		if digits == 0 {
			return nil, "", errors.New("0x without a digit of its own") // fio asserts
		}
		hex := in[2 : 2+digits]
		if len(hex)%2 == 1 {
			hex = "0" + hex
		}
		for i := 0; i < len(hex); i += 2 {
			b, _ := strconv.ParseUint(hex[i:i+2], 16, 8)
			item = append(item, byte(b))
		}
		return item, in[2+digits:], nil
	}
	num := in
	for i := 0; i+1 < len(in); i++ { // strcasestr(beg, "0x"), byte by byte
		if in[i] == '0' && (in[i+1] == 'x' || in[i+1] == 'X') {
			num = in[:i]
			break
		}
	}
	t := strings.TrimLeft(num, " \t\n\v\f\r")
	end := 0
	if end < len(t) && (t[end] == '+' || t[end] == '-') {
		end++
	}
	start := end
	for end < len(t) && t[end] >= '0' && t[end] <= '9' {
		end++
	}
	if end == start {
		return nil, "", errPattern
	}
	v, perr := strconv.ParseInt(t[:end], 10, 64)
	if perr != nil || v > math.MaxInt32 || v < math.MinInt32 {
		return nil, "", errors.New("a decimal number outside fio's INT_MIN..INT_MAX")
	}
	rest = in[len(num)-len(t)+end:]
	u := uint32(v)
	if u == 0 {
		return []byte{0}, rest, nil
	}
	for ; u != 0; u >>= 8 {
		item = append(item, byte(u))
	}
	return item, rest, nil
}
