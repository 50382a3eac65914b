package preflight

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/internal/osio"
	"github.com/clydebench/clyde/internal/safepath"
	"github.com/clydebench/clyde/result"
)

// The rule's one decision: nothing to say, a note that the target was not
// checked, a warning under --allow-sparse, or a refusal naming the fill
// command.
func TestHolesRule(t *testing.T) {
	for _, c := range []struct {
		name              string
		n                 int64
		err               error
		allow             bool
		note, warn, usage bool
	}{
		{"backed", 0, nil, false, false, false, false},
		{"not supported", 0, fmt.Errorf("fiemap: %w", result.ErrNotSupported), false, true, false, false},
		{"could not count", 0, errors.New("EIO"), false, true, false, false},
		{"holes refused", 4096, nil, false, false, false, true},
		{"holes allowed", 4096, nil, true, false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := Holes{Given: "/dev/x", Size: 1 << 20, Allow: c.allow}
			rep, err := h.rule(c.n, c.err, "it")
			if (rep.Note != "") != c.note || (rep.Warning != "") != c.warn || result.IsUsage(err) != c.usage {
				t.Fatalf("report %+v, error %v; want note %v, warning %v, refusal %v", rep, err, c.note, c.warn, c.usage)
			}
			if c.usage && !strings.Contains(err.Error(), "--filename /dev/x --rw write") {
				t.Errorf("the refusal does not name the fill: %v", err)
			}
		})
	}
}

// A file of one hole is refused where the platform can count holes, and
// noted as not checked where it cannot; a written one passes.
func TestHolesFile(t *testing.T) {
	dir := t.TempDir()
	sparse, full := filepath.Join(dir, "sparse"), filepath.Join(dir, "full")
	if err := os.WriteFile(full, make([]byte, 1<<16), 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Create(sparse); err != nil || f.Truncate(1<<20) != nil || f.Close() != nil {
		t.Fatal("cannot make a sparse file", err)
	}
	check := func(path string, size int64) (HoleReport, error) {
		f, _, err := safepath.Open(path, osio.ReadOnly, safepath.Regular)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		return Holes{Given: path, Size: size}.File(f)
	}
	rep, err := check(sparse, 1<<20)
	if rep.Note != "" {
		clydetest.Skipf(t, "holes cannot be counted here: %s", rep.Note)
	}
	if !result.IsUsage(err) {
		t.Errorf("a file of one hole: %+v, %v; want a refusal", rep, err)
	}
	if rep, err := check(full, 1<<16); err != nil || rep.Warning != "" {
		t.Errorf("a written file: %+v, %v; want nothing to say", rep, err)
	}
}
