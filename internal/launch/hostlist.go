package launch

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxHosts bounds what ExpandHostlist makes of one list.
const MaxHosts = 1 << 16

// ExpandHostlist expands a Slurm hostlist such as "n[01-03,07],gpu[1-2]"
// into its names in order, keeping zero padding ("n01", "n02", ...).
// Brackets may appear more than once in one name ("r[1-2]n[1-2]").
func ExpandHostlist(list string) ([]string, error) {
	var out []string
	for _, item := range splitTop(list) {
		if item == "" {
			continue
		}
		names, err := expandOne(item)
		if err != nil {
			return nil, err
		}
		out = append(out, names...)
		if len(out) > MaxHosts {
			return nil, fmt.Errorf("hostlist %q names more than %d hosts", list, MaxHosts)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("hostlist %q names no host", list)
	}
	return out, nil
}

// splitTop splits at commas outside brackets.
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func expandOne(item string) ([]string, error) {
	open := strings.IndexByte(item, '[')
	if open < 0 {
		if strings.ContainsAny(item, "]") {
			return nil, fmt.Errorf("hostlist item %q has ']' without '['", item)
		}
		return []string{item}, nil
	}
	end := strings.IndexByte(item[open:], ']')
	if end < 0 {
		return nil, fmt.Errorf("hostlist item %q has '[' without ']'", item)
	}
	end += open
	prefix, ranges, rest := item[:open], item[open+1:end], item[end+1:]
	tails, err := expandOne(rest)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range strings.Split(ranges, ",") {
		lo, hi, found := strings.Cut(r, "-")
		if !found {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 0 || b < a || lo == "" {
			return nil, fmt.Errorf("hostlist range %q in %q is not N or N-M", r, item)
		}
		if (b-a+1)*len(tails) > MaxHosts || len(out) > MaxHosts {
			return nil, fmt.Errorf("hostlist item %q names more than %d hosts", item, MaxHosts)
		}
		width := len(lo)
		for n := a; n <= b; n++ {
			num := strconv.Itoa(n)
			if len(num) < width {
				num = strings.Repeat("0", width-len(num)) + num
			}
			for _, t := range tails {
				out = append(out, prefix+num+t)
			}
		}
	}
	return out, nil
}
