package fiojob

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
)

// TestRegionOptions reads size=, offset=, offset_increment and io_size as
// fio 3.33's callbacks store them (options.c str_size_cb and the rest).
func TestRegionOptions(t *testing.T) {
	exists := func(string) bool { return true }
	cases := []struct {
		name, opts string
		check      func(g []blockbench.Workload) bool
	}{
		{"size in percent", "size=50%", func(g []blockbench.Workload) bool { return g[0].Size == 0 && g[0].Region.SizePercent == 50 }},
		{"size=100% is the rest", "size=100%", func(g []blockbench.Workload) bool { return g[0].Size == 0 && g[0].Region.SizePercent == 0 }},
		{"a later size in bytes wins", "size=50%\nsize=1m", func(g []blockbench.Workload) bool { return g[0].Size == 1<<20 && g[0].Region.SizePercent == 0 }},
		{"offset in percent", "offset=10%", func(g []blockbench.Workload) bool { return g[0].Offset == 0 && g[0].Region.OffsetPercent == 10 }},
		{"fileoffset alias", "fileoffset=64k", func(g []blockbench.Workload) bool { return g[0].Offset == 64<<10 }},
		{"io_size", "io_size=160k", func(g []blockbench.Workload) bool { return g[0].Region.IOSize == 160<<10 }},
		{"io_limit alias echoes as io_size", "io_limit=1m", func(g []blockbench.Workload) bool {
			return g[0].Region.IOSize == 1<<20 && g[0].JobOptions.Get("io_size") == "1m"
		}},
		{"io_size in percent", "io_size=50%", func(g []blockbench.Workload) bool { return g[0].Region.IOSizePercent == 50 }},
		{"io_size=100% is one pass", "io_size=100%", func(g []blockbench.Workload) bool { return g[0].Region.IOSizePercent == 0 && g[0].Region.IOSize == 0 }},
		{"offset_increment per clone, fio's subjob numbers", "numjobs=3\noffset_increment=100k", func(g []blockbench.Workload) bool {
			// fio makes the clones last to first: the second runs subjob 2.
			return len(g) == 3 && g[0].Region.Increments == 0 && g[1].Region.Increments == 2 && g[2].Region.Increments == 1 &&
				g[1].Region.Increment == 100<<10
		}},
		{"offset_increment in percent", "numjobs=2\noffset_increment=10%", func(g []blockbench.Workload) bool {
			return g[1].Region.IncrementPercent == 10 && g[1].Region.Increments == 1
		}},
		{"kb_base applies", "kb_base=1000\noffset_increment=1k", func(g []blockbench.Workload) bool { return g[0].Region.Increment == 1000 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile(t, "[a]\nfilename=f\n"+c.opts+"\n", nil, nil, Options{Exists: exists})
			if err != nil {
				t.Fatal(err)
			}
			if g := p.Groups[0]; !c.check(g) {
				t.Errorf("%+v", g[0])
			}
		})
	}
}

func TestRegionOptionRefusals(t *testing.T) {
	for _, c := range []struct{ name, opt, want string }{
		{"size over 100%", "size=101%", "percentage from 0 to 100"},
		{"fraction of a percent", "offset=1.5%", "percentage"},
		{"io_size over 100%", "io_size=150%", "percentage from 0 to 100"},
		{"zones", "size=4z", "zoned block devices"},
		{"not a size", "offset_increment=far", "not a size"},
		{"empty", "io_size=", "needs a value"},
		{"negative percent", "size=-5%", "percentage"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, "[a]\nfilename=f\nsize=1m\n"+c.opt+"\n", nil, nil, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "job.fio:4") {
				t.Errorf("got %v, want an error at job.fio:4 saying %q", err, c.want)
			}
		})
	}
}
