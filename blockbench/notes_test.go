package blockbench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

// TestNotesOnlyForARunThatRuns: a plan's notes (here, the depth a
// synchronous engine cannot keep) are printed once every safety rule let
// it run; a refusal prints its one error and no notes on a run that never
// was.
func TestNotesOnlyForARunThatRuns(t *testing.T) {
	dir := t.TempDir()
	kept := filepath.Join(dir, "kept")
	if err := os.WriteFile(kept, bytes.Repeat([]byte{7}, 64<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(name string) (string, *result.Block, error) {
		var warn bytes.Buffer
		w := withDefaults(Workload{RW: Write, Size: 64 << 10, Filename: name})
		w.IODepth = 8
		res, err := RunPlan(context.Background(), Plan{Warn: &warn, SizeGiven: true, Groups: []Group{{w}}})
		return warn.String(), res, err
	}
	warn, _, err := run(kept)
	if !result.IsUsage(err) {
		t.Fatalf("writing over existing data without DestroyData: %v, want a refusal", err)
	}
	if warn != "" {
		t.Errorf("a refused plan printed %q before its refusal, want nothing", warn)
	}
	warn, res, err := run(filepath.Join(dir, "new"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) == 0 || strings.Count(warn, "clyde: note: ") != len(res.Notes) || !strings.Contains(warn, res.Notes[0]) {
		t.Errorf("a run with notes %q printed %q, want each once", res.Notes, warn)
	}
}
