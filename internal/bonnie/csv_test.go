package bonnie

import (
	"strings"
	"testing"

	"github.com/clydebench/clyde/result"
)

func TestCSVGolden(t *testing.T) {
	for _, c := range renderCases() {
		t.Run(c.name, func(t *testing.T) {
			line := CSVLine(c.cfg, c.run)
			if n := strings.Count(line, ",") + 1; n != 50 {
				t.Fatalf("%d fields, want 50: %s", n, line)
			}
			if strings.ContainsAny(line, "\r\n") {
				t.Fatalf("line holds a line break: %q", line)
			}
			golden(t, c.name+".csv", CSVHeader()+"\n"+line+"\n")
		})
	}
}

func TestCSVHeader(t *testing.T) {
	h := strings.Split(CSVHeader(), ",")
	if len(h) != 50 {
		t.Fatalf("%d names, want 50", len(h))
	}
	// bonnie++ 2.00a's 48 names, as its binary prints them.
	const bonnie = "format_version,bonnie_version,name,concurrency,seed,file_size,io_chunk_size,putc,putc_cpu,put_block,put_block_cpu,rewrite,rewrite_cpu,getc,getc_cpu,get_block,get_block_cpu,seeks,seeks_cpu" +
		",num_files,max_size,min_size,num_dirs,file_chunk_size,seq_create,seq_create_cpu,seq_stat,seq_stat_cpu,seq_del,seq_del_cpu,ran_create,ran_create_cpu,ran_stat,ran_stat_cpu,ran_del,ran_del_cpu" +
		",putc_latency,put_block_latency,rewrite_latency,getc_latency,get_block_latency,seeks_latency,seq_create_latency,seq_stat_latency,seq_del_latency,ran_create_latency,ran_stat_latency,ran_del_latency"
	withSeeks := strings.Replace(bonnie, "io_chunk_size,", "io_chunk_size,num_seeks,seek_proc_count,", 1)
	if CSVHeader() != withSeeks {
		t.Errorf("header\n%s\nwant\n%s", CSVHeader(), withSeeks)
	}
	if strings.Join(csvNames97[:], ",") != bonnie {
		t.Errorf("48-field names differ from bonnie++'s header")
	}
	// The names must sit over the columns CSVLine fills.
	for i, want := range map[int]string{6: "io_chunk_size", 7: "num_seeks", 8: "seek_proc_count", 9: "putc", 19: "seeks", 21: "num_files", 24: "num_dirs", 25: "file_chunk_size", 26: "seq_create", 38: "putc_latency", 49: "ran_del_latency"} {
		if h[i] != want {
			t.Errorf("column %d is %q, want %q", i, h[i], want)
		}
	}
}

func TestCSVLineFields(t *testing.T) {
	tests := []struct {
		name string
		edit func(*result.FSConfig, *result.FSRun)
		want map[int]string // field index → value
	}{
		{"defaults", func(*result.FSConfig, *result.FSRun) {}, map[int]string{
			0: "1.98", 1: "clyde", 2: "testbox", 3: "1", 4: "1795979251", 5: "2G", 6: "", 7: "8192", 8: "5",
			21: "16", 22: "", 23: "", 24: "", 25: "",
		}},
		{"chunk at 6", func(c *result.FSConfig, _ *result.FSRun) { c.ChunkBytes = 16384 }, map[int]string{5: "2G", 6: "16k"}},
		{"size in MiB", func(c *result.FSConfig, _ *result.FSRun) { c.FileSizeMiB = 1536 }, map[int]string{5: "1536M"}},
		{"dirs at 24, file chunk at 25", func(c *result.FSConfig, _ *result.FSRun) {
			c.MaxFileBytes, c.MinFileBytes, c.Dirs, c.FileChunk = 4096, 512, 4, 4096
		}, map[int]string{21: "16", 22: "4096", 23: "512", 24: "4", 25: "4k"}},
		{"max only", func(c *result.FSConfig, _ *result.FSRun) { c.MaxFileBytes = 4096 }, map[int]string{22: "4096", 23: ""}},
		{"link", func(c *result.FSConfig, _ *result.FSRun) { c.LinkMode = "link" }, map[int]string{22: "link", 23: ""}},
		{"link by max -1", func(c *result.FSConfig, _ *result.FSRun) { c.MaxFileBytes = -1 }, map[int]string{22: "link"}},
		{"symlink", func(c *result.FSConfig, _ *result.FSRun) { c.LinkMode = "symlink" }, map[int]string{22: "symlink"}},
		{"seed file", func(c *result.FSConfig, _ *result.FSRun) { c.SeedFile = "rand.dat" }, map[int]string{4: "rand.dat"}},
		{"concurrency", func(c *result.FSConfig, _ *result.FSRun) { c.Concurrency = 2 }, map[int]string{3: "2"}},
		{"comma in name", func(c *result.FSConfig, _ *result.FSRun) { c.MachineName = "a,b\nc" }, map[int]string{2: "a;b c", 3: "1"}},
		{"-s 0 empties 5-20", func(c *result.FSConfig, _ *result.FSRun) { c.FileSizeMiB = 0 }, emptyFields(5, 20, 38, 43)},
		{"-n 0 empties 21-37", func(c *result.FSConfig, _ *result.FSRun) { c.FilesK = 0 }, emptyFields(21, 37, 44, 49)},
		{"rates", func(_ *result.FSConfig, r *result.FSRun) {
			r.Tests[result.PutChar].RatePerSec, r.Tests[result.PutChar].CPUPercent = 2144.99, 73.9
			r.Tests[result.Seeks].RatePerSec = 523.44
			r.Tests[result.SeqCreate].RatePerSec = 1079.9
			r.Tests[result.SeqStat].CPUKnown = false
		}, map[int]string{9: "2144", 10: "73", 19: "523.4", 26: "1079", 29: ""}},
		{"seeks just under 1000 print 1000.0, as in bonnie++", func(_ *result.FSConfig, r *result.FSRun) { r.Tests[result.Seeks].RatePerSec = 999.96 }, map[int]string{19: "1000.0"}},
		{"seeks from 1000 up", func(_ *result.FSConfig, r *result.FSRun) { r.Tests[result.Seeks].RatePerSec = 292918.4 }, map[int]string{19: "292918"}},
		{"too short", func(_ *result.FSConfig, r *result.FSRun) { r.Tests[result.Rewrite].TooShort = true }, map[int]string{13: "+++++", 14: "+++", 40: "1803us"}},
		{"not run", func(_ *result.FSConfig, r *result.FSRun) { r.Tests[result.GetChar] = notRun(result.GetChar) }, map[int]string{15: "", 16: "", 41: ""}},
		{"latency", func(*result.FSConfig, *result.FSRun) {}, map[int]string{38: "11334us", 43: "5774us", 44: "4004us", 49: "89805us"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, run := baseConfig(), baseRun()
			tt.edit(&cfg, &run)
			f := strings.Split(CSVLine(cfg, run), ",")
			if len(f) != 50 {
				t.Fatalf("%d fields, want 50", len(f))
			}
			for i, want := range tt.want {
				if f[i] != want {
					t.Errorf("field %d (%s) = %q, want %q", i, csvNames98[i], f[i], want)
				}
			}
		})
	}
}

// emptyFields expects the fields in [from, to] and [latFrom, latTo] empty.
func emptyFields(from, to, latFrom, latTo int) map[int]string {
	m := map[int]string{}
	for i := from; i <= to; i++ {
		m[i] = ""
	}
	for i := latFrom; i <= latTo; i++ {
		m[i] = ""
	}
	return m
}

// TestCSVLineReference rewrites every real bonnie++ 2.00a line from its
// parsed figures: the result must be bonnie++'s line byte for byte, except
// that the directory count moves from column 25 to column 24 where the
// readers look for it.
func TestCSVLineReference(t *testing.T) {
	for i, line := range referenceLines(t) {
		t.Run(strings.Split(line, ",")[2], func(t *testing.T) {
			l, err := ParseCSVLine(line)
			if err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
			f := strings.Split(line, ",")
			if f[24] == "" && f[25] != "" {
				f[24], f[25] = f[25], ""
			}
			want := strings.Join(f, ",")
			if got := CSVLine(l.Result()); got != want {
				t.Errorf("\ngot  %s\nwant %s", got, want)
			}
		})
	}
}

// referenceLines are the lines of the copied bonnie-2.00a-lines.csv.
func referenceLines(t testing.TB) []string {
	t.Helper()
	return strings.Split(strings.TrimSuffix(readReference(t, "bonnie-2.00a-lines.csv"), "\n"), "\n")
}
