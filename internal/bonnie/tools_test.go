package bonnie

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/clydebench/clyde/internal/clydetest"
	"github.com/clydebench/clyde/result"
)

// toolLines are clyde CSV lines covering the columns bonnie++'s tools read by
// position: chunk, seeks, dirs, file chunk, links, -s 0 and -n 0.
func toolLines() []string {
	var lines []string
	add := func(name string, edit func(*result.FSConfig)) {
		cfg, run := baseConfig(), baseRun()
		cfg.MachineName = name
		edit(&cfg)
		lines = append(lines, CSVLine(cfg, run))
	}
	add("dirs", func(c *result.FSConfig) {
		c.FileSizeMiB, c.ChunkBytes = 256, 16384
		c.MaxFileBytes, c.MinFileBytes, c.Dirs = 4096, 512, 4
	})
	add("fchunk", func(c *result.FSConfig) {
		c.Seeks, c.SeekProcs = 1000, 3
		c.MaxFileBytes, c.MinFileBytes, c.Dirs, c.FileChunk = 4096, 512, 4, 16384
	})
	add("links", func(c *result.FSConfig) { c.LinkMode = "link" })
	add("noio", func(c *result.FSConfig) { c.FileSizeMiB = 0 })
	add("nofiles", func(c *result.FSConfig) { c.FilesK = 0 })
	return lines
}

// runTool pipes input into a bonnie++ tool and returns stdout and stderr.
func runTool(t *testing.T, tool, input string) (stdout, stderr string) {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		clydetest.Skipf(t, "%s is not installed (Debian package bonnie++), so clyde's CSV cannot be checked against it", tool)
	}
	cmd := exec.Command(path)
	cmd.Stdin = strings.NewReader(input)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", tool, err, errOut.String())
	}
	return out.String(), errOut.String()
}

func TestBonCSV2Txt(t *testing.T) {
	input := strings.Join(toolLines(), "\n") + "\n"
	out, errOut := runTool(t, "bon_csv2txt", input)
	for _, complaint := range []string{"Expected", "Can't process"} {
		if strings.Contains(errOut, complaint) {
			t.Errorf("bon_csv2txt complained:\n%s", errOut)
		}
	}
	// bon_csv2txt joins file_size..seek_proc_count and
	// num_files:max:min/num_dirs:file_chunk_size from fixed columns, so
	// these prove the columns line up.
	for _, want := range []string{
		"\ndir 256M:16k:8192:5 2144k  73 ",
		"\nfchunk   2G::1000:3 2144k  73 ",
		"\nnofiles  2G::8192:5 2144k  73 ",
		"\ndirs  16:4096:512/4  5113  80 ",
		"\nf 16:4096:512/4:16k  5113  80 ",
		"\nlinks       16:link  5113  80 ",
		"\nnoio             16  5113  80 ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("bon_csv2txt output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "Latency"); n != 8 {
		t.Errorf("%d Latency rows, want 8 (4 IO, 4 file):\n%s", n, out)
	}
}

func TestBonCSV2TxtRejectsHeader(t *testing.T) {
	// bon_csv2txt refuses bonnie++'s own format_version header too; this
	// documents why callers must leave CSVHeader out when piping to it.
	_, errOut := runTool(t, "bon_csv2txt", CSVHeader()+"\n"+toolLines()[0]+"\n")
	if !strings.Contains(errOut, "Expected 1.98, got format_version") {
		t.Errorf("bon_csv2txt accepted the header; stderr: %q", errOut)
	}
}

func TestBonCSV2HTML(t *testing.T) {
	// bon_csv2html skips the format_version header, so it gets one here.
	input := CSVHeader() + "\n" + strings.Join(toolLines(), "\n") + "\n"
	out, errOut := runTool(t, "bon_csv2html", input)
	if strings.Contains(errOut, "Can't process") || strings.Contains(errOut, "Expected") {
		t.Errorf("bon_csv2html complained:\n%s", errOut)
	}
	for _, want := range []string{">dirs<", ">fchunk<", ">links<", ">noio<", ">nofiles<", ">link<"} {
		if !strings.Contains(out, want) {
			t.Errorf("bon_csv2html output lacks %q", want)
		}
	}
	// Size and IO chunk, then num_files, max, min, num_dirs and file chunk in
	// their own columns.
	for _, re := range []string{
		`>dirs<.*?>256M</td>[^>]*>16k</td>`,
		`>dirs<.*?>16</td>[^>]*>4096</td>[^>]*>512</td>[^>]*>4</td>[^>]*></td>`,
		`>fchunk<.*?>2G</td>[^>]*></td>`,
		`>fchunk<.*?>16</td>[^>]*>4096</td>[^>]*>512</td>[^>]*>4</td>[^>]*>16k</td>`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("bon_csv2html output does not match %s", re)
		}
	}
}
