package keep

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/history"
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

// nightly is a night's fs run on /srv/data: putc and getc at the rates
// given (one repeat each, measured for 2 s), seq_create under 0.5 s.
func nightly(day int, putc, getc float64) *compare.Run {
	f := &result.FS{SchemaVersion: 1, Kind: "fs", Config: result.FSConfig{Dir: "/srv/data", FileSizeMiB: 4, ChunkBytes: 8192},
		Provenance: result.Provenance{Hostname: "nas", StartTime: time.Date(2026, 11, 2+day, 3, 30, 0, 0, time.UTC)}}
	var r result.FSRun
	r.Tests[result.PutChar] = result.FSTestResult{Test: result.PutChar, Ran: true, RatePerSec: putc, RateUnit: "KiB/s", ElapsedNs: 2e9}
	r.Tests[result.GetChar] = result.FSTestResult{Test: result.GetChar, Ran: true, RatePerSec: getc, RateUnit: "KiB/s", ElapsedNs: 2e9}
	r.Tests[result.SeqCreate] = result.FSTestResult{Test: result.SeqCreate, Ran: true, RatePerSec: 5000, RateUnit: "files/s",
		ElapsedNs: 1e8, TooShort: true}
	f.Runs = []result.FSRun{r}
	return compare.FromFS(f)
}

// TestFlaggedRunStaysOutOfBaselines: a run the check flagged must not join
// the next run's baseline. Three steady nights (putc 100, 101, 99), a
// night that fell to 10 (flagged), then a night at 75: against the steady
// three that is a regression (t 21.7, df 2); had the flagged 10 joined,
// the baseline's spread (s 45) would put 75 within the noise.
func TestFlaggedRunStaysOutOfBaselines(t *testing.T) {
	o := Options{DBPath: filepath.Join(t.TempDir(), "h.db"), RegressPct: 20, Silent: true, Stderr: io.Discard}
	ctx := context.Background()
	for day, v := range []float64{100, 101, 99} {
		if err := After(ctx, o, nightly(day, v, 2*v), nil); err != nil {
			t.Fatalf("steady night %d: %v", day, err)
		}
	}
	if err := After(ctx, o, nightly(3, 10, 200), nil); !errors.Is(err, ErrRegression) {
		t.Fatalf("the night at 10: %v, want a regression", err)
	}
	run := nightly(4, 75, 200)
	err := After(ctx, o, run, nil)
	if !errors.Is(err, ErrRegression) || !strings.Contains(err.Error(), "putc -25.0% (75.0 vs 100 KiB/s, p=") {
		t.Fatalf("the night at 75: %v, want putc's regression against the steady three", err)
	}
	rc := run.Check()
	if rc == nil || strings.Join(rc.Baseline, " ") != "#3 #2 #1" || !rc.Regressed || len(rc.Fell) != 1 || rc.Fell[0] != "putc" {
		t.Fatalf("the record: %+v, want the baseline #3 #2 #1 without the flagged #4", rc)
	}
	store, err := history.OpenReadOnly(o.DBPath)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	all, _ := store.Query(ctx, history.Filter{WithJSON: true})
	if len(all) != 5 || all[1].Flagged == "" || all[0].Flagged == "" || all[2].Flagged != "" {
		t.Fatalf("flags %q %q %q, want #5 and #4 flagged, #3 not", all[0].Flagged, all[1].Flagged, all[2].Flagged)
	}
	// The history's copy holds the same record as the run's.
	saved, err := result.DecodeFS(all[0].JSON)
	if err != nil || saved.Check == nil || saved.Check.Line != rc.Line {
		t.Fatalf("the history's record: %+v, %v; want the line %q", saved.Check, err, rc.Line)
	}
}

// TestNeverJudgedOnAFirstRun: the weekly note about columns the check never
// judges is said even with --silent, by the first run of a new history too
// (there is no earlier run to judge by, and seq_create ran under 0.5 s),
// then not again that week.
func TestNeverJudgedOnAFirstRun(t *testing.T) {
	var stderr strings.Builder
	o := Options{DBPath: filepath.Join(t.TempDir(), "h.db"), RegressPct: 20, Silent: true, Stderr: &stderr}
	if err := After(context.Background(), o, nightly(0, 100, 200), nil); err != nil {
		t.Fatal(err)
	}
	want := "clyde: note: the regression check cannot judge seq_create: each ran under 0.5 s in this run, the history's first; " +
		"larger sizes (or --auto) make them measurable (said once a week)\n"
	if s := stderr.String(); s != want {
		t.Fatalf("first run's stderr %q, want the weekly note alone: %q", s, want)
	}
	stderr.Reset()
	if err := After(context.Background(), o, nightly(1, 100, 200), nil); err != nil || stderr.Len() != 0 {
		t.Fatalf("second run of the week: %v, stderr %q; want nothing", err, stderr.String())
	}
	// Next week's first run, which --auto sized: the note names its
	// baseline, and a way out that is not --auto again.
	stderr.Reset()
	auto := nightly(7, 100, 200)
	auto.FS.Config.Auto = &result.FSAuto{BudgetNs: 120e9}
	if err := After(context.Background(), o, auto, nil); err != nil {
		t.Fatal(err)
	}
	want = "clyde: note: the regression check cannot judge seq_create: each ran under 0.5 s in this run and in every run of its baseline; " +
		"--auto sized them; larger sizes given with -s, -f or -n (which --auto keeps) make them measurable (said once a week)\n"
	if s := stderr.String(); s != want {
		t.Fatalf("an --auto run's stderr %q, want %q", s, want)
	}
}
