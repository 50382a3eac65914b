package orion

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A real mixed point on a small file: small random reads and large random
// or sequential reads run at once, and both have figures. O_DIRECT is off
// so the test runs on tmpfs too.
func TestMixedPointRuns(t *testing.T) {
	for _, typ := range []string{"rand", "seq"} {
		t.Run(typ, func(t *testing.T) {
			dir := t.TempDir()
			lun := filepath.Join(dir, "lun.img")
			if err := os.WriteFile(lun, make([]byte, 8<<20), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "t.lun"), []byte(lun+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			o := DefaultOptions(RunAdvanced)
			o.TestName, o.OutputDir, o.Direct, o.Duration = filepath.Join(dir, "t"), "", false, 300*time.Millisecond
			o.Matrix, o.NumSmall, o.NumLarge, o.Type, o.SizeLarge = MatrixPoint, 2, 2, typ, 256
			res := runTest(t, o, false)
			pts := res.Orion.Sets[0].Points
			if len(pts) != 1 {
				t.Fatalf("%d points, want 1", len(pts))
			}
			p := pts[0]
			wantJobs := 2
			if typ == "seq" {
				wantJobs = 3 // the small workload and one per stream
			}
			if p.SmallIOPS <= 0 || p.LargeMBPS <= 0 || len(p.Jobs) != wantJobs || p.SmallRead == nil || p.LargeRead == nil {
				t.Errorf("point %+v: want small IOPS, large MBPS and %d jobs", p, wantJobs)
			}
			if len(res.Groups) != 1 || len(res.Groups[0].Jobs) != wantJobs {
				t.Errorf("groups %+v: want the point's jobs run as one group", res.Groups)
			}
			if typ == "seq" && res.Jobs[1].Config.OffsetBytes == res.Jobs[2].Config.OffsetBytes {
				t.Error("two streams start at the same offset")
			}
		})
	}
}

// Several LUNs make one volume: concatenated or striped, every point's
// workloads span all of them, and the summary names each.
func TestSeveralLUNs(t *testing.T) {
	for _, sim := range []string{"concat", "raid0"} {
		t.Run(sim, func(t *testing.T) {
			dir := t.TempDir()
			var lines string
			for _, n := range []string{"a.img", "b.img", "c.img"} {
				p := filepath.Join(dir, n)
				if err := os.WriteFile(p, make([]byte, 4<<20), 0o644); err != nil {
					t.Fatal(err)
				}
				lines += p + "\n"
			}
			if err := os.WriteFile(filepath.Join(dir, "t.lun"), []byte(lines), 0o644); err != nil {
				t.Fatal(err)
			}
			o := DefaultOptions(RunAdvanced)
			o.TestName, o.OutputDir, o.Direct, o.Duration = filepath.Join(dir, "t"), dir, false, 200*time.Millisecond
			o.Matrix, o.NumSmall, o.NumLarge, o.Simulate = MatrixPoint, 3, 1, sim
			res := runTest(t, o, true)
			p := res.Orion.Sets[0].Points[0]
			if p.SmallIOPS <= 0 || p.LargeMBPS <= 0 || res.Orion.NumDisks != 3 || len(res.Orion.LUNs) != 3 {
				t.Errorf("point %+v, %d disks: want figures over 3 LUNs", p, res.Orion.NumDisks)
			}
			sum, _ := os.ReadFile(filepath.Join(dir, res.Orion.Sets[0].Prefix+"_summary.txt"))
			if !strings.Contains(string(sum), "3 FILEs found.") || !strings.Contains(string(sum), "Simulated Array Type: "+strings.ToUpper(sim)) {
				t.Errorf("summary does not describe the volume:\n%s", sum)
			}
		})
	}
}

// TestLiveProgress: without -verbose a terminal gets one line rewritten
// per data point, counting to the last, and cleared at the end; with
// -verbose the points go to Out as ORION prints them, and Live nothing.
func TestLiveProgress(t *testing.T) {
	dir := t.TempDir()
	lun := filepath.Join(dir, "lun.img")
	if err := os.WriteFile(lun, make([]byte, 4<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.lun"), []byte(lun+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, verbose := range []bool{false, true} {
		o := DefaultOptions(RunAdvanced)
		o.TestName, o.OutputDir, o.Direct, o.Duration = filepath.Join(dir, "t"), "", false, 100*time.Millisecond
		o.Matrix, o.SizeLarge = MatrixRow, 256 // large loads 1..2 at small 0 (-num_disks 1)
		var live, out strings.Builder
		o.Live, o.Out, o.Verbose = &live, &out, verbose
		runTest(t, o, false)
		if verbose {
			if live.Len() != 0 || !strings.Contains(out.String(), "Point 1 of ") {
				t.Fatalf("-verbose: live %q, out %q", live.String(), out.String())
			}
			continue
		}
		got := live.String()
		last := regexp.MustCompile(`ORION: point (\d+) of (\d+) done`).FindAllStringSubmatch(got, -1)
		if len(last) < 2 || last[0][1] != "1" || last[len(last)-1][1] != last[len(last)-1][2] || strconv.Itoa(len(last)) != last[0][2] ||
			!strings.Contains(got, "about 0s left") || !strings.HasSuffix(got, "\r\033[K") || out.Len() != 0 {
			t.Fatalf("live %q, out %q", got, out.String())
		}
	}
}
