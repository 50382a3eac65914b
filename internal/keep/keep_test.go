package keep

import (
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/result"
)

// TestFirstOfWeek: the note that a column is never checked is said by the
// first comparable run of an ISO week only, so a nightly cron job mails it
// once a week.
func TestFirstOfWeek(t *testing.T) {
	at := func(day string) *compare.Run {
		ts, err := time.Parse("2006-01-02", day)
		if err != nil {
			t.Fatal(err)
		}
		return &compare.Run{FS: &result.FS{Provenance: result.Provenance{StartTime: ts}}}
	}
	// 2026-11-30 is a Monday.
	tests := []struct {
		name     string
		run      string
		baseline []string
		want     bool
	}{
		{"monday after last week's runs", "2026-11-30", []string{"2026-11-29", "2026-11-28", "2026-11-27"}, true},
		{"tuesday after monday's", "2026-12-01", []string{"2026-11-30", "2026-11-29"}, false},
		{"sunday, the week's last", "2026-12-06", []string{"2026-12-05"}, false},
		{"no baseline", "2026-12-01", nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var base []*compare.Run
			for _, d := range tc.baseline {
				base = append(base, at(d))
			}
			if got := firstOfWeek(at(tc.run), base); got != tc.want {
				t.Errorf("firstOfWeek = %v, want %v", got, tc.want)
			}
		})
	}
}
