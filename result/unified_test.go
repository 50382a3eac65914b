package result

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestMixedJSON writes a job of fio's unified_rw_reporting as fio does:
// mixed in place of read, write, trim and sync; both with all of them and
// mixed after sync; fio's ">=64" keys unescaped for an encoder that asks
// so. Reading it back keeps the mode.
func TestMixedJSON(t *testing.T) {
	mixed := &BlockDir{IOBytes: 8192, TotalIOs: 2}
	depth := BlockJobFio{IODepthLevel: Dist{{">=64", 0}}}
	for _, c := range []struct {
		name      string
		job       BlockJob
		keys      string // the direction keys, in order
		mixedOnly bool
	}{
		{"none", BlockJob{JobName: "n", BlockJobFio: depth}, "read write trim sync", false},
		{"mixed", BlockJob{JobName: "m", Mixed: mixed, MixedOnly: true, BlockJobFio: depth}, "mixed", true},
		{"both", BlockJob{JobName: "b", Mixed: mixed, BlockJobFio: depth}, "read write trim sync mixed", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(c.job); err != nil {
				t.Fatal(err)
			}
			members, err := orderedObject(b.Bytes(), func(v json.RawMessage) (json.RawMessage, error) { return v, nil })
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, m := range members {
				switch m.key {
				case "read", "write", "trim", "sync", "mixed":
					keys = append(keys, m.key)
				}
			}
			if strings.Join(keys, " ") != c.keys {
				t.Errorf("direction keys %q, want fio's %q", keys, c.keys)
			}
			if !strings.Contains(b.String(), `">=64"`) {
				t.Errorf("fio's key escaped: %s", b.String())
			}
			var back BlockJob
			if err := json.Unmarshal(b.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			if back.MixedOnly != c.mixedOnly || (back.Mixed != nil) != (c.job.Mixed != nil) || (back.Mixed != nil && back.Mixed.TotalIOs != 2) {
				t.Errorf("read back: mixed %+v, only %v", back.Mixed, back.MixedOnly)
			}
		})
	}
	// The default encoder escapes as it would for any field.
	b, err := json.Marshal(BlockJob{BlockJobFio: depth})
	if err != nil || !strings.Contains(string(b), `"\u003e=64"`) {
		t.Errorf("json.Marshal: %s, %v", b, err)
	}
}
