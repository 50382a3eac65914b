package fiojob

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
)

// TestDialect: how fio reads each construct, as fio 3.33 ran it (the
// comparison suite, TestAgainstFio, runs the same through fio itself).
func TestDialect(t *testing.T) {
	cases := []struct {
		name  string
		text  string
		check func(t *testing.T, g []blockbench.Workload, notes []string)
	}{
		{"inline comments", "[a] ; the job\nfilename=data ; the test file\ndescription=desc # comment\nsize=1m\nnumjobs=2  ; two\nruntime=3600  # Max runtime\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				// fio: file "data", desc "desc", two entries.
				if len(g) != 2 || g[0].Filename != "data" || g[0].Desc != "desc" || g[0].Runtime.Seconds() != 3600 {
					t.Errorf("%d workloads, file %q, desc %q, runtime %v", len(g), g[0].Filename, g[0].Desc, g[0].Runtime)
				}
			}},
		{"leading zeros", "[a]\nfilename=f\nsize=1m\niodepth=010\nrwmixread=070\nrandseed=010\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				if g[0].IODepth != 10 || g[0].RWMixRead != 70 || g[0].Seed != 10 { // fio: 10 and 70
					t.Errorf("iodepth %d rwmixread %d seed %d; want fio's 10, 70, 10", g[0].IODepth, g[0].RWMixRead, g[0].Seed)
				}
			}},
		{"name in global", "[global]\nname=all\nfilename=f\nsize=1m\n[first]\n[second]\nname=renamed\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				if g[0].Name != "first" || g[1].Name != "renamed" {
					t.Errorf("names %q %q; fio keeps [first] and takes the job's own name=", g[0].Name, g[1].Name)
				}
			}},
		{"kb_base is read first", "[a]\nfilename=f\nsize=1MiB\nkb_base=1000\n[b]\nfilename=f\nsize=1MiB\n[c]\nfilename=f\nsize=0x100000\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				if g[0].Size != 1<<20 || g[1].Size != 1000000 || g[2].Size != 1<<20 {
					t.Errorf("sizes %d %d %d; want 1048576 (kb_base=1000), 1000000 (fio's default), 1048576 (hex)", g[0].Size, g[1].Size, g[2].Size)
				}
			}},
		{"clones and their files", "[global]\nsize=64k\ndirectory=/srv\n[own]\nnumjobs=3\n[fmt]\nfilename_format=$jobname-$jobnum.$filenum\nnumjobs=2\n[shared]\nfilename=s\nnumjobs=2\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				var files []string
				for _, w := range g {
					files = append(files, w.Filename)
					if w.NumJobs != 1 || w.JobOptions.Get("numjobs") == "" {
						t.Errorf("%s: numjobs %d, echoed %q", w.Name, w.NumJobs, w.JobOptions.Get("numjobs"))
					}
				}
				// fio makes the clones last to first: the clone that runs
				// second is subjob 2 (fio --debug=file: own.0.0, own.2.0,
				// own.1.0).
				want := "/srv/own.0.0 /srv/own.2.0 /srv/own.1.0 /srv/fmt-0.0 /srv/fmt-1.0 /srv/s /srv/s"
				if strings.Join(files, " ") != want {
					t.Errorf("files %q, want fio's %q", files, want)
				}
				if g[1].CloneIndex != 1 || g[2].CloneIndex != 2 {
					t.Errorf("clone indexes %d %d, want 1 2", g[1].CloneIndex, g[2].CloneIndex)
				}
			}},
		{"group_reporting, loops, norandommap, escaped colon", "[a]\nfilename=a\\:b\nsize=1m\ngroup_reporting\nloops=3\nnorandommap\n[b]\nfilename=c\nsize=1m\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				if !g[0].GroupReporting || g[0].Loops != 3 || g[0].RandomMap || g[0].Filename != "a:b" {
					t.Errorf("%+v", g[0])
				}
				if g[1].GroupReporting || g[1].Loops != 1 || !g[1].RandomMap {
					t.Errorf("fio's defaults: %+v", g[1])
				}
			}},
		{"random_generator=lfsr visits each block once", "[a]\nfilename=f\nsize=1m\nrw=randwrite\nnorandommap\nrandom_generator=lfsr\n[b]\nfilename=f\nsize=1m\nrandom_generator=tausworthe64\nnorandommap\n",
			func(t *testing.T, g []blockbench.Workload, _ []string) {
				if !g[0].RandomMap || g[1].RandomMap {
					t.Errorf("random map %v, %v; want lfsr's on, tausworthe64 with norandommap off", g[0].RandomMap, g[1].RandomMap)
				}
			}},
		{"unit_base", "[a]\nfilename=f\nsize=1m\nunit_base=8\n",
			func(t *testing.T, _ []blockbench.Workload, notes []string) {
				if len(notes) != 1 || !strings.Contains(notes[0], "bits") {
					t.Errorf("notes %q, want one saying the text report is not in bits", notes)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile(t, c.text, nil, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var all []blockbench.Workload
			for _, g := range p.Groups {
				all = append(all, g...)
			}
			c.check(t, all, p.Notes)
		})
	}
}

// TestDialectRefusals: what fio runs and clyde does not is refused with its
// option's name and line.
func TestDialectRefusals(t *testing.T) {
	cases := []struct{ name, text, pos, want string }{
		{"fraction", "[a]\nfilename=f\nsize=1.5g\n", "job.fio:3", "no fraction"},
		{"keyword outside filename_format", "[a]\nfilename=f.$jobnum\nsize=1m\n", "job.fio:2", "filename_format"},
		{"clientuid", "[a]\nfilename_format=$clientuid\nsize=1m\n", "job.fio:2", "filename_format"},
		{"bad kb_base", "[a]\nfilename=f\nsize=1m\nkb_base=1\n", "job.fio:4", "kb_base"},
		{"bad unit_base", "[a]\nfilename=f\nsize=1m\nunit_base=2\n", "job.fio:4", "unit_base"},
		{"filesize backwards", "[a]\nfilename=f\nfilesize=8k-4k\n", "job.fio:3", "ends before it starts"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, c.text, nil, nil, Options{})
			if err == nil || !strings.HasPrefix(err.Error(), c.pos) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error at %s saying %q", err, c.pos, c.want)
			}
		})
	}
}
