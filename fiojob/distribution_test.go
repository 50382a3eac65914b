package fiojob

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// TestParseRandomDistribution: fio's syntax (options.c
// str_random_distribution_cb, parse_zoned_distribution), its defaults and
// its ranges.
func TestParseRandomDistribution(t *testing.T) {
	z := func(a, s int) blockbench.DistZone { return blockbench.DistZone{AccessPct: a, SizePct: s} }
	abs := func(a int, n int64) blockbench.DistZone { return blockbench.DistZone{AccessPct: a, Size: n} }
	both := func(zs ...blockbench.DistZone) [2][]blockbench.DistZone { return [2][]blockbench.DistZone{zs, zs} }
	cases := []struct {
		in   string
		want blockbench.Distribution
	}{
		{"random", blockbench.Distribution{Kind: "random"}},
		{"zipf", blockbench.Distribution{Kind: "zipf", Param: 1.1}},
		{"zipf:1.2", blockbench.Distribution{Kind: "zipf", Param: 1.2}},
		{"zipf:0.8:0.5", blockbench.Distribution{Kind: "zipf", Param: 0.8, Center: 0.5, HasCenter: true}},
		{"pareto", blockbench.Distribution{Kind: "pareto", Param: 0.2}},
		{"pareto:0.9", blockbench.Distribution{Kind: "pareto", Param: 0.9}},
		{"normal", blockbench.Distribution{Kind: "normal"}},
		{"normal:10", blockbench.Distribution{Kind: "normal", Param: 10}},
		{"normal:10:0.5", blockbench.Distribution{Kind: "normal", Param: 10, Center: 0.5, HasCenter: true}},
		{"zoned:60/10:30/20:8/30:2/40", blockbench.Distribution{Kind: "zoned", Zones: both(z(60, 10), z(30, 20), z(8, 30), z(2, 40))}},
		// A size left out shares what the others leave; above 100 is 100.
		{"zoned:50/20:50", blockbench.Distribution{Kind: "zoned", Zones: both(z(50, 20), z(50, 80))}},
		{"zoned:100", blockbench.Distribution{Kind: "zoned", Zones: both(z(100, 100))}},
		// fio's examples/rand-zones.fio: the last size left empty.
		{"zoned:50/5:30/15:20/", blockbench.Distribution{Kind: "zoned", Zones: both(z(50, 5), z(30, 15), z(20, 80))}},
		{"zoned:50/5:30/15:20/,50/10:50/90", blockbench.Distribution{Kind: "zoned",
			Zones: [2][]blockbench.DistZone{{z(50, 5), z(30, 15), z(20, 80)}, {z(50, 10), z(50, 90)}}}},
		{"zoned:100/150", blockbench.Distribution{Kind: "zoned", Zones: both(z(100, 100))}},
		// Reads, then writes, after a comma; trims' after a second are
		// read and ignored.
		{"zoned:60/10:40/90,100/100", blockbench.Distribution{Kind: "zoned",
			Zones: [2][]blockbench.DistZone{{z(60, 10), z(40, 90)}, {z(100, 100)}}}},
		{"zoned:,100/10", blockbench.Distribution{Kind: "zoned", Zones: [2][]blockbench.DistZone{nil, {z(100, 10)}}}},
		{"zoned:60/10:40/90,100/100,100/50", blockbench.Distribution{Kind: "zoned",
			Zones: [2][]blockbench.DistZone{{z(60, 10), z(40, 90)}, {z(100, 100)}}}},
		{"zoned_abs:60/20m:40/80m", blockbench.Distribution{Kind: "zoned_abs", Zones: both(abs(60, 20<<20), abs(40, 80<<20))}},
		{"zoned_abs:100/1MiB", blockbench.Distribution{Kind: "zoned_abs", Zones: both(abs(100, 1000000))}}, // kb_base=1024: MiB is 10^6
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseRandomDistribution("job.fio:3", c.in, KBBase1024)
			if err != nil {
				t.Fatal(err)
			}
			if distString(got) != distString(c.want) || got.Param != c.want.Param || got.HasCenter != c.want.HasCenter || got.Center != c.want.Center {
				t.Errorf("%+v (%s), want %+v (%s)", got, distString(got), c.want, distString(c.want))
			}
			for dir := range 2 {
				if len(got.Zones[dir]) != len(c.want.Zones[dir]) {
					t.Fatalf("zones %v, want %v", got.Zones, c.want.Zones)
				}
				for i := range got.Zones[dir] {
					if got.Zones[dir][i] != c.want.Zones[dir][i] {
						t.Fatalf("zones %v, want %v", got.Zones, c.want.Zones)
					}
				}
			}
		})
	}
}

// TestParseRandomDistributionRefusals: out of fio's ranges, or what clyde
// does not run, refused at the option's place with a reason.
func TestParseRandomDistributionRefusals(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"zipf:1", "theta"},
		{"zipf:1.0", "theta"},
		{"zipf:-1", "theta"},
		{"zipf:", "not a number"},
		{"zipf:x", "not a number"},
		{"zipf:1.2:1.5", "center"},
		{"zipf:1.2:x", "center"},
		{"pareto:0", "0 < h < 1"},
		{"pareto:1", "0 < h < 1"},
		{"normal:100", "0 <= dev < 100"},
		{"normal:-1", "0 <= dev < 100"},
		{"normal:10:-0.1", "center"},
		{"zoned:60/10:30/20", "add up to 90"},
		{"zoned:60/60:40/60", "more than 100"},
		{"zoned:101/10", "percentage"},
		{"zoned:x/10", "percentage"},
		{"zoned:100/x", "not a percentage"},
		{"zoned:100/5x", "not a percentage"},
		{"zoned:", "give the ranges"},
		{"zoned_abs:100/x", "not a size"},
		{"zoned:1,2,3,4", "two commas"},
		{"sequence:1,2,3", "fixed sequence"},
		{"gauss", "give random, zipf"},
		{"random:1", "no parameters"},
	} {
		t.Run(c.in, func(t *testing.T) {
			_, err := ParseRandomDistribution("job.fio:3", c.in, KBBase1024)
			var ue *result.UsageError
			if !errorsAs(err, &ue) || ue.Flag != "job.fio:3" || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want a usage error at job.fio:3 saying %q", err, c.want)
			}
		})
	}
}

// TestZoneOptions: zonemode, zonesize, zonerange, zoneskip compile as fio
// reads them (init.c fixup_options), and the distributions turn fio's
// random map off.
func TestZoneOptions(t *testing.T) {
	compile := func(body string) ([]blockbench.Workload, error) {
		f, err := Parse("job.fio", []byte("[j]\nfilename=f\nsize=16m\nrw=randread\n"+body), Env{})
		if err != nil {
			return nil, err
		}
		p, err := Compile(f, Options{Exists: noFiles})
		if err != nil {
			return nil, err
		}
		return p.Groups[0], nil
	}
	ok := []struct {
		name, body string
		check      func(w blockbench.Workload) bool
	}{
		{"strided", "zonemode=strided\nzonesize=1m\nzonerange=4m\nzoneskip=4m\n", func(w blockbench.Workload) bool {
			return w.Zones == blockbench.StridedZones{Size: 1 << 20, Range: 4 << 20, Skip: 4 << 20} && w.JobOptions.Get("zonemode") == "strided"
		}},
		{"zonerange and zoneskip without zones are ignored, as fio's", "zonerange=4m\nzoneskip=4m\n", func(w blockbench.Workload) bool {
			return w.Zones == blockbench.StridedZones{}
		}},
		{"zipf turns the random map off", "random_distribution=zipf:1.2\n", func(w blockbench.Workload) bool {
			return !w.RandomMap && w.Distribution.Kind == blockbench.DistZipf && w.JobOptions.Get("random_distribution") == "zipf:1.2"
		}},
		{"random keeps it", "random_distribution=random\n", func(w blockbench.Workload) bool { return w.RandomMap }},
		{"zoned in strided zones", "zonemode=strided\nzonesize=1m\nzonerange=4m\nrandom_distribution=zoned:50/10:50/90\n", func(w blockbench.Workload) bool {
			return !w.RandomMap && w.Zones.Range == 4<<20
		}},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			g, err := compile(c.body)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(g[0]) {
				t.Errorf("workload %+v", g[0])
			}
		})
	}
	refused := []struct{ name, body, at, want string }{
		{"zonesize without zonemode", "zonesize=1m\n", "job.fio:5", "without zonemode=strided"},
		{"zonemode=none with zonesize", "zonemode=none\nzonesize=1m\n", "job.fio:6", "without zonemode=strided"},
		{"strided without zonesize", "zonemode=strided\n", "job.fio:5", "needs a zonesize"},
		{"zbd", "zonemode=zbd\n", "job.fio:5", "zoned block devices"},
		{"a zone size that is not a size", "zonemode=strided\nzonesize=1z\n", "job.fio:6", "zonesize"},
		{"zipf in zones", "zonemode=strided\nzonesize=1m\nrandom_distribution=zipf\n", "job.fio:5", "whole file"},
		{"lfsr with zoned", "random_generator=lfsr\nrandom_distribution=zoned:100/50\n", "job.fio:5", "lfsr"},
		{"a bad theta", "\nrandom_distribution=zipf:1\n", "job.fio:6", "theta"},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(c.body)
			var ue *result.UsageError
			if !errorsAs(err, &ue) || ue.Flag != c.at || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want a usage error at %s saying %q", err, c.at, c.want)
			}
		})
	}
}

func FuzzParseRandomDistribution(f *testing.F) {
	for _, s := range []string{"random", "zipf", "zipf:1.2", "zipf:0.8:0.5", "pareto:0.9", "normal:10:0.5",
		"zoned:60/10:30/20:8/30:2/40", "zoned:50/20:50,100/100", "zoned_abs:60/20m:40/80m", "zoned:,100", "zipf:", "zoned:1/2/3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseRandomDistribution("job.fio:1", s, KBBase1024)
		if err != nil {
			var ue *result.UsageError
			if !errorsAs(err, &ue) || ue.Flag != "job.fio:1" {
				t.Fatalf("%q: %v is not a usage error at the option", s, err)
			}
			return
		}
		// What is accepted is what Validate accepts, and reads back the
		// same from its echo.
		w := blockbench.Workload{Distribution: d}
		if err := w.DistributionError(); err != nil {
			t.Fatalf("%q accepted, but %v", s, err)
		}
		again, err := ParseRandomDistribution("job.fio:1", distString(d), KBBase1024)
		if err != nil || distString(again) != distString(d) {
			t.Fatalf("%q echoes as %q, which reads back as %q (%v)", s, distString(d), distString(again), err)
		}
	})
}

// TestFioExampleDistributions: fio's own examples with distributions and
// zones compile to what they say (ioengine=null and a device filename
// left out: clyde has no null engine, and the test touches no device).
func TestFioExampleDistributions(t *testing.T) {
	for _, c := range []struct {
		name, text string
		check      func(w blockbench.Workload) bool
	}{
		{"zipf.fio", "[job]\nfilename=f\nrw=randread\nnorandommap\nsize=1280m\nbs=4k\nrandom_distribution=zipf:0.5\n",
			func(w blockbench.Workload) bool { return w.Distribution.Kind == "zipf" && w.Distribution.Param == 0.5 }},
		{"rand-zones.fio", "[zones]\nfilename=f\nsize=2g\ndirect=1\nbs=4k\nrw=randread\nnorandommap\nrandom_distribution=zoned:50/5:30/15:20/\n",
			func(w blockbench.Workload) bool {
				return distString(w.Distribution) == "zoned:50/5:30/15:20/80" && !w.RandomMap
			}},
		{"disk-zone-profile.fio", "[global]\nbs=64k\ndirect=1\nrw=read\niodepth=2\nzonemode=strided\nzonesize=256m\nzoneskip=2g\n[disk-zone-profile]\nfilename=f\nsize=9g\nwrite_bw_log\nlog_offset=1\n",
			func(w blockbench.Workload) bool {
				return w.Zones == blockbench.StridedZones{Size: 256 << 20, Skip: 2 << 30}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := Parse(c.name, []byte(c.text), Env{})
			if err != nil {
				t.Fatal(err)
			}
			p, err := Compile(f, Options{Exists: noFiles})
			if err != nil {
				t.Fatal(err)
			}
			if w := p.Groups[0][0]; !c.check(w) {
				t.Errorf("workload %+v", w)
			}
		})
	}
}
