package result

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/internal/latency"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixedFS is a result built from fixed numbers, as a run would fill it.
func fixedFS() *FS {
	f := &FS{
		SchemaVersion: SchemaVersion,
		Kind:          "fs",
		Provenance: Provenance{
			Tool: "clyde", Version: "0.1.0", Commit: "abc123", CommandLine: []string{"clyde", "fs", "-d", "/mnt/ssd"},
			Hostname: "testbox", OS: "linux", Arch: "amd64", Kernel: "Linux 6.1.0", CPUs: 2, RAMBytes: 24 << 30,
			Filesystem: Filesystem{Path: "/mnt/ssd", Type: "btrfs", MountPoint: "/mnt/ssd", MountOptions: "rw,relatime,ssd",
				Source: "/dev/sda1", DeviceModel: "Samsung SSD 840 PRO"},
			StartTime: time.Date(2026, 11, 29, 18, 0, 0, 0, time.UTC),
		},
		Config: FSConfig{Dir: "/mnt/ssd", MachineName: "testbox", FileSizeMiB: 2048, ChunkBytes: 8192, Seeks: 8192,
			SeekProcs: 5, ByteIOMiB: 3, FilesK: 16, Dirs: 1, FileChunk: 8192, Concurrency: 1, RAMMiB: 1024,
			Seed: 42, Iterations: 1, CompatVersion: "clyde"},
		MaxRSSBytes: 12 << 20,
	}
	run := FSRun{Iteration: 1, Seed: 42}
	for i := range run.Tests {
		tr := &run.Tests[i]
		tr.Test = FSTest(i)
		tr.Ran = true
		tr.Ops = int64(1000 * (i + 1))
		tr.Bytes = int64(8192 * 1000 * (i + 1))
		tr.ElapsedNs = int64(300_000_000 * (i + 1))
		tr.CPUUserNs, tr.CPUSysNs, tr.CPUKnown = 10_000_000, 90_000_000, true
		tr.Latency = latency.Summary{Count: tr.Ops, MinNs: 900, MeanNs: 1500.5, StddevNs: 200.25, P50Ns: 1400,
			P90Ns: 1900, P99Ns: 4000, P999Ns: 9000, MaxNs: 120000}
		if i == int(GetBlock) {
			tr.Cache = &CacheState{Evicted: true, ResidentBytes: 0, FileBytes: 2 << 30, Cold: true}
		}
		tr.Finish()
	}
	f.Runs = []FSRun{run}
	return f
}

func TestFSJSONGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := EncodeJSON(&buf, fixedFS()); err != nil {
		t.Fatal(err)
	}
	const golden = "../testdata/result/fs.json"
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("JSON differs from %s (run with -update if the change is meant):\n%s", golden, buf.String())
	}
}

func TestFSRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	orig := fixedFS()
	if err := EncodeJSON(&buf, orig); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeFS(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	for i, tr := range got.Runs[0].Tests {
		want := orig.Runs[0].Tests[i]
		if tr.Test != FSTest(i) || tr.Name != want.Name || tr.RatePerSec != want.RatePerSec || tr.Latency != want.Latency {
			t.Fatalf("test %d after round trip: %+v, want %+v", i, tr, want)
		}
	}
	if got.Provenance.Filesystem != orig.Provenance.Filesystem || !got.Provenance.StartTime.Equal(orig.Provenance.StartTime) {
		t.Fatalf("provenance changed: %+v", got.Provenance)
	}
}

func TestDecodeFSRejects(t *testing.T) {
	var buf bytes.Buffer
	EncodeJSON(&buf, fixedFS())
	full := buf.String()
	tests := []struct {
		name, in, want string
	}{
		{"truncated", full[:len(full)/2], "truncated"},
		{"not json", "1.98,2.00a,x", "malformed JSON"},
		{"other json", `{"a": 1}`, "not a clyde result"},
		{"block result", `{"kind": "block", "schema_version": 1}`, "not an fs result"},
		{"newer schema", `{"kind": "fs", "schema_version": 99}`, "newer"},
		{"wrong type", `{"kind": "fs", "schema_version": 1, "runs": 5}`, "holds number"},
		{"empty", "", "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeFS([]byte(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line containing %q", err, tc.want)
			}
		})
	}
}

func FuzzDecodeFS(f *testing.F) {
	var buf bytes.Buffer
	EncodeJSON(&buf, fixedFS())
	f.Add(buf.Bytes())
	f.Add([]byte(`{"kind":"fs","schema_version":1,"runs":[{"tests":[{}]}]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := DecodeFS(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		var out bytes.Buffer
		if err := EncodeJSON(&out, res); err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		if _, err := DecodeFS(out.Bytes()); err != nil {
			t.Fatalf("a decoded result does not decode again: %v", err)
		}
	})
}

// TestLatNsRecorder checks fio's lat_ns object carries what merging needs:
// two jobs' objects, through JSON, merge to the percentiles of the two
// recorders merged directly.
func TestLatNsRecorder(t *testing.T) {
	a, b, direct, merged := latency.New(), latency.New(), latency.New(), latency.New()
	for i := range 5000 {
		a.Record(time.Duration(1000 + i*i%70000))
		b.Record(time.Duration(50_000 + i*7))
	}
	direct.Merge(a)
	direct.Merge(b)
	ps := []float64{50, 99, 99.9}
	for _, r := range []*latency.Recorder{a, b} {
		data, err := json.Marshal(LatNsFrom(r, ps))
		if err != nil {
			t.Fatal(err)
		}
		var l LatNs
		if err := json.Unmarshal(data, &l); err != nil {
			t.Fatal(err)
		}
		back, err := l.Recorder()
		if err != nil {
			t.Fatal(err)
		}
		merged.Merge(back)
	}
	got, want := LatNsFrom(merged, ps), LatNsFrom(direct, ps)
	if got.N != want.N || got.Min != want.Min || got.Max != want.Max || got.HDR != want.HDR {
		t.Fatalf("merged through JSON N %d min %d max %d, directly N %d min %d max %d", got.N, got.Min, got.Max, want.N, want.Min, want.Max)
	}
	for i := range ps {
		if got.Percentile[i] != want.Percentile[i] {
			t.Errorf("p%v: %d through JSON, %d directly", ps[i], got.Percentile[i].Value, want.Percentile[i].Value)
		}
	}
}
