package result

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestCopyFigureFinish(t *testing.T) {
	tests := []struct {
		name           string
		f              CopyFigure
		mbps, fps      float64
		notDataCopy    bool
		sourcesAreCold bool
	}{
		{"100 MiB in half a second", CopyFigure{Method: "readwrite", Ran: true, Files: 1, Bytes: 100 << 20, ElapsedNs: 5e8,
			SourceCache: CacheState{Cold: true}}, 209.7152, 2, false, true},
		{"a clone has a rate but is no data copy", CopyFigure{Method: "clone", Ran: true, Files: 4, Bytes: 4e6, ElapsedNs: 1e9}, 4, 4, true, false},
		{"copy_file_range that shared extents", CopyFigure{Method: "copy_file_range", Ran: true, Files: 2, Bytes: 2e6, ElapsedNs: 2e9, SharedFiles: 1}, 1, 1, true, false},
		{"not run", CopyFigure{Method: "readwrite", Files: 1, Bytes: 1e6, ElapsedNs: 1e9}, 0, 0, false, false},
		{"warm device beneath", CopyFigure{Method: "readwrite", Ran: true, Files: 1, Bytes: 1e6, ElapsedNs: 1e9,
			SourceCache: CacheState{Cold: true}, DeviceCache: &CacheState{}}, 1, 1, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Finish()
			if d := tc.f.MBPerSec - tc.mbps; d > 1e-9 || d < -1e-9 || tc.f.FilesPerSec != tc.fps ||
				tc.f.NotDataCopy != tc.notDataCopy || tc.f.SourcesCold() != tc.sourcesAreCold {
				t.Errorf("got %v MB/s, %v files/s, not a data copy %v, cold %v; want %v, %v, %v, %v",
					tc.f.MBPerSec, tc.f.FilesPerSec, tc.f.NotDataCopy, tc.f.SourcesCold(), tc.mbps, tc.fps, tc.notDataCopy, tc.sourcesAreCold)
			}
		})
	}
}

func TestDecodeCopy(t *testing.T) {
	tests := []struct {
		name, in, wantErr string
	}{
		{"a copy result", `{"schema_version":1,"kind":"copy","results":[{"set":"4Kx1","method":"readwrite"}]}`, ""},
		{"an fs result", `{"schema_version":1,"kind":"fs"}`, "not a copy result"},
		{"newer schema", `{"schema_version":99,"kind":"copy"}`, "newer than this clyde"},
		{"truncated", `{"schema_version":1,"kind":"copy","results":[`, "truncated"},
		{"wrong type", `{"schema_version":1,"kind":"copy","results":[{"files":"many"}]}`, "files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := DecodeCopy([]byte(tc.in))
			if tc.wantErr == "" {
				if err != nil || c.Figure("4Kx1", "readwrite") == nil || c.Figure("4Kx1", "clone") != nil {
					t.Fatalf("DecodeCopy: %v, %+v", err, c)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("DecodeCopy = %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

// FuzzDecodeCopy checks that any input either fails in one line or decodes
// to a result that encodes and decodes again, and that the text reporter's
// figure lookup never panics on it.
func FuzzDecodeCopy(f *testing.F) {
	if data, err := os.ReadFile("../testdata/copy/btrfs-all.json"); err == nil {
		f.Add(data)
	}
	f.Add([]byte(`{"schema_version":1,"kind":"copy","results":[{"set":"4Kx1","method":"clone","ran":true}]}`))
	f.Add([]byte(`{"schema_version":1,"kind":"copy","results":[{"device_cache":null}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := DecodeCopy(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		for i := range res.Results {
			_ = res.Results[i].SourcesCold()
			_ = res.Figure(res.Results[i].Set, res.Results[i].Method)
		}
		var out bytes.Buffer
		if err := EncodeJSON(&out, res); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if _, err := DecodeCopy(out.Bytes()); err != nil {
			t.Fatalf("a decoded result does not decode again: %v", err)
		}
	})
}
