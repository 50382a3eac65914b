package fiojob

import (
	"encoding/json"
	"testing"
)

// TestEcho checks the job options and global options of compiled job
// files against what fio 3.33 writes for the same files (recorded from
// fio --output-format=json; TestAgainstFio runs fio itself on the first).
func TestEcho(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		global     string   // "" when fio writes no "global options"
		jobs       []string // each job's "job options", "" when fio writes none
	}{
		{"as written, by fio's names, by priority", "[global]\nbs = 4k\nreadwrite=read\nioengine=sync\nsize=64k\n" +
			"[global-two]\nkb_base=1000\nthread\n" +
			"[echo]\nsize=256KiB\nblocksize=8k\niodepth_batch_submit=1\nbs=4k\ndescription=a \"q\" \\ b\nunit_base=1\nfilename_format=echo.$jobnum\ndirectory=.\nnumjobs=2\n" +
			"[bare]\n[filename-last]\nzero_buffers\nfilename=last.dat\nrw=write\n",
			`{"bs":" 4k","rw":"read","ioengine":"sync","size":"64k","kb_base":"1000"}`,
			[]string{
				`{"unit_base":"1","size":"256KiB","bs":"8k","iodepth_batch":"1","bs":"4k","description":"a \"q\" \\ b","directory":".","numjobs":"2","filename_format":"echo.$jobnum"}`,
				`{"unit_base":"1","size":"256KiB","bs":"8k","iodepth_batch":"1","bs":"4k","description":"a \"q\" \\ b","directory":".","numjobs":"2","filename_format":"echo.$jobnum"}`,
				"",
				`{"rw":"write","filename":"last.dat"}`,
			}},
		{"a later kb_base first, filename last", "[j1]\nfilename=a.dat\nsize=1M\nruntime=100ms\nblocksize=1M\niodepth_batch_submit=1\nbs=4k\nkb_base=1024\nunit_base=1\n",
			"", []string{`{"kb_base":"1024","unit_base":"1","size":"1M","runtime":"100ms","bs":"1M","iodepth_batch":"1","bs":"4k","filename":"a.dat"}`}},
		{"null: no filename", "[global]\nsize=1m\nbs=4k\nioengine=null\n[sync]\nrw=randread\n[queued]\nrw=randwrite\niodepth=8\n",
			`{"size":"1m","bs":"4k","ioengine":"null"}`, []string{`{"rw":"randread"}`, `{"rw":"randwrite","iodepth":"8"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := compile(t, tc.text, nil, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := echoJSON(t, p.GlobalOptions); got != tc.global {
				t.Errorf("global options %s, fio's %s", got, tc.global)
			}
			var got []string
			for _, g := range p.Groups {
				for _, w := range g {
					got = append(got, echoJSON(t, w.JobOptions))
				}
			}
			if len(got) != len(tc.jobs) {
				t.Fatalf("%d jobs, fio's %d", len(got), len(tc.jobs))
			}
			for i := range got {
				if got[i] != tc.jobs[i] {
					t.Errorf("job %d options %s, fio's %s", i, got[i], tc.jobs[i])
				}
			}
		})
	}
}

// echoJSON is o as the result's JSON writes it, "" for no options (the
// object is then left out).
func echoJSON(t *testing.T, o interface{ MarshalJSON() ([]byte, error) }) string {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) == "{}" {
		return ""
	}
	return string(b)
}
