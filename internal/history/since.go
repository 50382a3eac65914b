package history

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSince reads --since: a age like "30d", "12h", "2w", "90m" (counted
// back from now), or a date "2026-01-31" or RFC 3339 time. The error is one
// line saying what is accepted.
func ParseSince(s string, now time.Time) (time.Time, error) {
	bad := fmt.Errorf("--since %q: want an age such as 30d, 12h, 2w or 90m, or a date such as 2026-01-31", s)
	if s == "" {
		return time.Time{}, bad
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	unit := s[len(s)-1]
	n, err := strconv.ParseInt(strings.TrimSpace(s[:len(s)-1]), 10, 64)
	if err != nil || n < 0 || n > 100_000 {
		return time.Time{}, bad
	}
	var d time.Duration
	switch unit {
	case 'm':
		d = time.Minute
	case 'h':
		d = time.Hour
	case 'd':
		d = 24 * time.Hour
	case 'w':
		d = 7 * 24 * time.Hour
	case 'y':
		d = 365 * 24 * time.Hour
	default:
		return time.Time{}, bad
	}
	return now.Add(-time.Duration(n) * d), nil
}
