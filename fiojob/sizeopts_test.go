package fiojob

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// dirText is one direction's sizes as the tests write them:
// "MIN-MAX@ALIGN [SIZE/PCT ...]" in bytes, with NoPct as "-".
func dirText(d blockbench.DirSizes) string {
	s := fmt.Sprintf("%d-%d@%d", d.Min, d.Max, d.Align)
	for i, e := range d.Split {
		sep := " "
		if i == 0 {
			sep = " ["
		}
		pct := "-"
		if e.Pct != blockbench.NoPct {
			pct = fmt.Sprint(e.Pct)
		}
		s += fmt.Sprintf("%s%d/%s", sep, e.Size, pct)
	}
	if len(d.Split) > 0 {
		s += "]"
	}
	return s
}

func sizesText(w blockbench.Workload) string {
	if w.Sizes == nil {
		return fmt.Sprintf("bs %d", w.BS)
	}
	s := w.Sizes
	out := fmt.Sprintf("R %s; W %s; T %s", dirText(s.Dirs[0]), dirText(s.Dirs[1]), dirText(s.Dirs[2]))
	if s.Unaligned {
		out += "; unaligned"
	}
	if s.SeqRand {
		out += "; seq/rand"
	}
	return out + fmt.Sprintf("; bs %d", w.BS)
}

// TestSizeOptions: fio 3.33's block-size options as its parser reads
// them (each case's per-direction sizes checked against fio's per-I/O log
// with ioengine=null where the reading is not plain): a value per
// direction, a trailing ',' that fills no direction after it, ranges
// swapped, bssplit's lists and its rules, the order bs=, bsrange and
// bssplit take effect in, and sizes that come down to one running as bs.
func TestSizeOptions(t *testing.T) {
	for _, c := range []struct {
		name, opts, want string
	}{
		{"one size", "bs=8k", "bs 8192"},
		{"blocksize alias", "blocksize=16k", "bs 16384"},
		{"reads and writes", "bs=4k,8k", "R 4096-4096@0; W 8192-8192@0; T 8192-8192@0; bs 8192"},
		{"writes only", "bs=,8k", "R 4096-4096@0; W 8192-8192@0; T 8192-8192@0; bs 8192"},
		{"three", "bs=4k,8k,16k", "R 4096-4096@0; W 8192-8192@0; T 16384-16384@0; bs 8192"},
		{"a trailing comma fills nothing after it", "bs=8k,", "R 8192-8192@0; W 4096-4096@0; T 4096-4096@0; bs 8192"},
		{"a trailing comma after two", "bs=8k,16k,", "R 8192-8192@0; W 16384-16384@0; T 4096-4096@0; bs 16384"},
		{"a colon separates too", "bs=4k:8k", "R 4096-4096@0; W 8192-8192@0; T 8192-8192@0; bs 8192"},
		{"so does a dash", "bs=4k-8k", "R 4096-4096@0; W 8192-8192@0; T 8192-8192@0; bs 8192"},
		{"an empty write", "bs=4k,,16k", "R 4096-4096@0; W 4096-4096@0; T 16384-16384@0; bs 4096"},
		{"a fourth value is ignored", "bs=4k,8k,16k,32k", "R 4096-4096@0; W 8192-8192@0; T 16384-16384@0; bs 8192"},
		{"a read job reads its size", "bs=4k,8k\nrw=read", "bs 4096"},
		{"a trim job trims the third", "bs=4k,8k,16k\nrw=trim", "bs 16384"},
		{"range", "bsrange=1k-4k", "R 1024-4096@0; W 1024-4096@0; T 1024-4096@0; bs 4096"},
		{"range alias, swapped", "blocksize_range=4k-1k", "R 1024-4096@0; W 1024-4096@0; T 1024-4096@0; bs 4096"},
		{"range with a colon", "bsrange=512:1M", "R 512-1048576@0; W 512-1048576@0; T 512-1048576@0; bs 1048576"},
		{"range per direction", "bsrange=1k-4k,8k-16k", "R 1024-4096@0; W 8192-16384@0; T 8192-16384@0; bs 16384"},
		{"a range of one size is that size", "bsrange=4k-4k", "bs 4096"},
		{"split", "bssplit=4k/10:64k/50:32k/40",
			"R 4096-65536@0 [4096/10 65536/50 32768/40]; W 4096-65536@0 [4096/10 65536/50 32768/40]; T 4096-65536@0 [4096/10 65536/50 32768/40]; bs 65536"},
		{"split per direction", "bssplit=4k/50:8k/,64k/100",
			"R 4096-8192@0 [4096/50 8192/-]; W 65536-65536@0 [65536/100]; T 65536-65536@0 [65536/100]; bs 65536"},
		{"split for writes only", "bssplit=,64k/100", "R 4096-4096@0; W 65536-65536@0 [65536/100]; T 65536-65536@0 [65536/100]; bs 65536"},
		{"split for three", "bssplit=4k/50:8k/50,16k/100,32k/100",
			"R 4096-8192@0 [4096/50 8192/50]; W 16384-16384@0 [16384/100]; T 32768-32768@0 [32768/100]; bs 16384"},
		{"share 0, none, or past 100", "bssplit=4k/0:8k:16k/:32k/250",
			"R 4096-32768@0 [4096/- 8192/- 16384/- 32768/100]; W 4096-32768@0 [4096/- 8192/- 16384/- 32768/100]; T 4096-32768@0 [4096/- 8192/- 16384/- 32768/100]; bs 32768"},
		{"a negative share is past 100", "bssplit=4k/-5:8k/20",
			"R 4096-8192@0 [4096/100 8192/20]; W 4096-8192@0 [4096/100 8192/20]; T 4096-8192@0 [4096/100 8192/20]; bs 8192"},
		{"split read up to an empty entry", "bssplit=4k/50::8k/50", "bs 4096"},
		{"split under kb_base=1000", "kb_base=1000\nbssplit=4KiB/50:8KB/50",
			"R 4096-8000@0 [4096/50 8000/50]; W 4096-8000@0 [4096/50 8000/50]; T 4096-8000@0 [4096/50 8000/50]; bs 8000"},
		{"split wins over a bs= after it", "bssplit=4k/50:8k/50\nbs=16k",
			"R 4096-8192@0 [4096/50 8192/50]; W 4096-8192@0 [4096/50 8192/50]; T 4096-8192@0 [4096/50 8192/50]; bs 8192"},
		{"a range after a split bounds it", "bssplit=512/50:1M/50\nbsrange=512:64k",
			"R 512-65536@0 [512/50 1048576/50]; W 512-65536@0 [512/50 1048576/50]; T 512-65536@0 [512/50 1048576/50]; bs 65536"},
		{"blockalign", "bsrange=4k-16k\nblockalign=4k", "R 4096-16384@4096; W 4096-16384@4096; T 4096-16384@4096; bs 16384"},
		{"ba per direction", "bs=8k\nba=4k,8k", "R 8192-8192@4096; W 8192-8192@8192; T 8192-8192@8192; bs 8192"},
		{"ba on a sequential job changes nothing", "bs=8k\nba=4k\nrw=read", "bs 8192"},
		{"bs_unaligned", "bsrange=4k-16k\nbs_unaligned", "R 4096-16384@0; W 4096-16384@0; T 4096-16384@0; unaligned; bs 16384"},
		{"blocksize_unaligned=0", "bsrange=4k-16k\nblocksize_unaligned=0", "R 4096-16384@0; W 4096-16384@0; T 4096-16384@0; bs 16384"},
		{"bs_is_seq_rand", "bs=4k,16k\nbs_is_seq_rand=1", "R 4096-4096@0; W 16384-16384@0; T 16384-16384@0; seq/rand; bs 16384"},
	} {
		t.Run(c.name, func(t *testing.T) {
			opts := c.opts
			if !strings.Contains(opts, "rw=") {
				opts = "rw=randrw\n" + opts
			}
			p, err := compile(t, "[a]\nfilename=f\nsize=4m\n"+opts+"\n", nil, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := sizesText(p.Groups[0][0]); got != c.want {
				t.Errorf("%s\nwant %s", got, c.want)
			}
		})
	}
}

// TestSizeOptionRefusals: what fio refuses, and what clyde refuses of
// what fio would take silently (a part that is not a size).
func TestSizeOptionRefusals(t *testing.T) {
	for _, c := range []struct {
		name, opts, want string
	}{
		{"no size", "bs=,", "give a size"},
		{"not a size", "bs=4k,lots", "not a size"},
		{"a size of 0", "ba=0", "1 byte or more"},
		{"range without a dash", "bsrange=4k", "LOW-HIGH"},
		{"range of nothing", "bsrange=,", "LOW-HIGH"},
		{"split size", "bssplit=lots/50", "split conversion failed"},
		{"split shares past 100 with two without", "bssplit=4k/80:8k/30:16k:32k", "more than 100"},
		{"split of a zero size", "bssplit=0/50:4k/50", "1 byte or more"},
		{"lfsr with sizes that vary", "bssplit=4k/50:8k/50\nrandom_generator=lfsr", "lfsr"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, "[a]\nfilename=f\nsize=4m\nrw=randread\n"+c.opts+"\n", nil, nil, Options{})
			var ue *result.UsageError
			if !errorsAs(err, &ue) || !strings.HasPrefix(ue.Flag, "job.fio:") || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want a usage error at a line saying %q", err, c.want)
			}
		})
	}
}

// TestSizesEcho: a workload with sizes that vary, not written in fio's
// language, echoes what ran in fio's options.
func TestSizesEcho(t *testing.T) {
	s := &blockbench.BlockSizes{Dirs: [3]blockbench.DirSizes{
		{Min: 4096, Max: 65536, Align: 4096, Split: []blockbench.SizeShare{{Size: 4096, Pct: 10}, {Size: 65536, Pct: blockbench.NoPct}}},
		{Min: 8192, Max: 8192, Align: 4096},
		{Min: 8192, Max: 8192},
	}, SeqRand: true}
	got := map[string]string{}
	sizesEcho(s, func(k, v string) { got[k] = v })
	want := map[string]string{"bs": "4k,8k,8k", "bsrange": "4k-64k,8k-8k,8k-8k", "bssplit": "4k/10:64k/,,", "ba": "4k,4k,8k", "bs_is_seq_rand": "1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%v\nwant %v", got, want)
	}
	// What a job file reads back from the echo is what ran.
	text := "[a]\nfilename=f\nsize=4m\nrw=randrw\n"
	for _, k := range []string{"bs", "bsrange", "bssplit", "ba", "bs_is_seq_rand"} {
		text += k + "=" + got[k] + "\n"
	}
	p, err := compile(t, text, nil, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if back := p.Groups[0][0].Sizes; back == nil || dirText(back.Dirs[0]) != dirText(s.Dirs[0]) || back.Dirs[1].Align != 4096 || !back.SeqRand {
		t.Errorf("echo %q reads back as %s", text, sizesText(p.Groups[0][0]))
	}
}

// FuzzSizeOptions: any value of the block-size options compiles to sizes
// blockbench takes, or is refused at its line; never a panic.
func FuzzSizeOptions(f *testing.F) {
	for _, s := range []string{"bs=4k,8k", "bs=,8k", "bs=8k,", "bs=4k:8k", "bs=4k-8k", "bsrange=1k-4k,8k:16k", "bssplit=4k/10:64k/50:32k/40",
		"bssplit=4k/50:8k/,64k/100", "bssplit=4k/60:8k/50:16k", "ba=4k", "bs_unaligned=1", "bssplit=,,", "bs=,,,", "bsrange=-", "bssplit=/:/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, opt string) {
		if strings.ContainsAny(opt, "\n\r[;#$\x00") {
			return
		}
		p, err := compile(t, "[a]\nfilename=f\nsize=4m\nrw=randrw\n"+opt+"\n", nil, nil, Options{})
		if err != nil {
			var ue *result.UsageError
			if !errorsAs(err, &ue) {
				t.Fatalf("%q: %v is not a usage error", opt, err)
			}
			return
		}
		w := p.Groups[0][0]
		if w.Sizes == nil {
			if w.BS < 1 {
				t.Fatalf("%q: bs %d", opt, w.BS)
			}
			return
		}
		for d, ds := range w.Sizes.Dirs {
			if ds.Min < 1 || ds.Max < ds.Min || ds.Align < 0 || len(ds.Split) > blockbench.MaxSplit {
				t.Fatalf("%q: direction %d: %s", opt, d, dirText(ds))
			}
			if err := blockbench.SplitError(d, ds.Split); err != nil {
				t.Fatalf("%q: accepted a split blockbench refuses: %v", opt, err)
			}
		}
		if w.BS < w.Sizes.Dirs[0].Max && w.BS < w.Sizes.Dirs[1].Max {
			t.Fatalf("%q: bs %d below the largest size: %s", opt, w.BS, sizesText(w))
		}
	})
}
