package prom

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/clydebench/clyde/result"
)

// TestEncodeIsWriteToTextfile checks Encode writes exactly what
// client_golang's WriteToTextfile puts in its file, the form node_exporter
// has always read from clyde.
func TestEncodeIsWriteToTextfile(t *testing.T) {
	start := time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)
	fs := &result.FS{Provenance: result.Provenance{StartTime: start}, Config: result.FSConfig{Dir: "/srv/data"}}
	run := result.FSRun{Iteration: 1}
	run.Tests[result.SeqCreate] = result.FSTestResult{Test: result.SeqCreate, Ran: true, RatePerSec: 1800.5,
		RateUnit: "files/s", CPUKnown: true, CPUPercent: 42, Latency: result.LatencySummary{MaxNs: 2_500_000}}
	fs.Runs = []result.FSRun{run}
	block := &result.Block{Provenance: result.Provenance{StartTime: start}, Target: result.BlockTarget{Path: "/dev/sdx"},
		Jobs: []result.BlockJob{{JobName: "randread", Read: result.BlockDir{TotalIOs: 10, IOPS: 1234.5, BWBytes: 5056512}}}}
	for name, reg := range map[string]*prometheus.Registry{"fs": FSRegistry("box", "/srv/data", fs), "block": BlockRegistry("box", "/dev/sdx", block)} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "clyde.prom")
			if err := prometheus.WriteToTextfile(path, reg); err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(path)
			var got bytes.Buffer
			if err := Encode(&got, reg); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) || got.Len() == 0 {
				t.Fatalf("Encode wrote\n%s\nWriteToTextfile wrote\n%s", got.String(), want)
			}
		})
	}
}

// TestShortRateKept: a test under 0.5 s keeps its rate in the textfile,
// flagged low-confidence; a measured one is flagged 0; a test that did not
// run has no series at all.
func TestShortRateKept(t *testing.T) {
	fs := &result.FS{Config: result.FSConfig{Dir: "/srv/data"}}
	run := result.FSRun{Iteration: 1}
	run.Tests[result.SeqCreate] = result.FSTestResult{Test: result.SeqCreate, Ran: true, RatePerSec: 1800.5,
		RateUnit: "files/s", TooShort: true, ElapsedNs: 300_000_000}
	run.Tests[result.SeqStat] = result.FSTestResult{Test: result.SeqStat, Ran: true, RatePerSec: 90000,
		RateUnit: "files/s", ElapsedNs: 2_000_000_000}
	run.Tests[result.GetBlock] = result.FSTestResult{Test: result.GetBlock, Ran: true, RatePerSec: 2048,
		RateUnit: "KiB/s", ElapsedNs: 2_000_000_000}
	fs.Runs = []result.FSRun{run}
	var b bytes.Buffer
	if err := Encode(&b, FSRegistry("box", "/srv/data", fs)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		`clyde_fs_rate{dir="/srv/data",host="box",test="seq_create",unit="files/s"} 1800.5`,
		`clyde_fs_rate_low_confidence{dir="/srv/data",host="box",test="seq_create",unit="files/s"} 1`,
		`clyde_fs_elapsed_seconds{dir="/srv/data",host="box",test="seq_create",unit="seconds"} 0.3`,
		`clyde_fs_rate_low_confidence{dir="/srv/data",host="box",test="seq_stat",unit="files/s"} 0`,
		// Prometheus names carry base units: bonnie++'s KiB/s as bytes/s.
		`clyde_fs_rate{dir="/srv/data",host="box",test="get_block",unit="bytes/s"} 2.097152e+06`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("textfile lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, `test="putc"`) {
		t.Errorf("a test that did not run has a series:\n%s", out)
	}
}

// TestClientRates: a many-client run's textfile has each client host's rate
// per phase, equal to the JSON's per-host rows, and the job's rank count.
func TestClientRates(t *testing.T) {
	b, err := os.ReadFile("../../testdata/html/job-2hosts.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.DecodeFS(b)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Encode(&out, FSRegistry("h1", "/mnt/shared", res)); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, h := range res.Job.PerHost {
		line := `clyde_fs_client_rate{client="` + h.Host + `",dir="/mnt/shared",host="h1",test="` + h.Test + `",unit="files/s"} `
		i := strings.Index(text, line)
		if i < 0 {
			t.Fatalf("no %s in:\n%s", line, text)
		}
		var v float64
		if _, err := fmt.Sscan(text[i+len(line):], &v); err != nil || v != h.RatePerSec {
			t.Errorf("%s%v, want %v", line, v, h.RatePerSec)
		}
	}
	if !strings.Contains(text, `clyde_fs_job_ranks{dir="/mnt/shared",host="h1",launcher="mpich-hydra-pmi1"} 4`) {
		t.Errorf("no rank count in:\n%s", text)
	}
}

// A block run across ranks exports each client host's rate per group,
// and a copy run's per set, in base units.
func TestStepClientRates(t *testing.T) {
	job := &result.RankJob{Launcher: "slurm-pmi2", Ranks: 2, Hosts: []string{"h1", "h2"},
		Phases:  []result.JobPhase{{Iteration: 0, Test: "randread", RateUnit: "IOPS"}},
		PerHost: []result.JobHostRow{{Iteration: 0, Test: "randread", Host: "h1", RatePerSec: 1500}, {Iteration: 0, Test: "randread", Host: "h2", RatePerSec: 1200}}}
	var out bytes.Buffer
	if err := Encode(&out, BlockRegistry("h1", "/mnt/f", &result.Block{Job: job})); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`clyde_block_client_rate{client="h1",device="/mnt/f",host="h1",test="step 1: randread",unit="ops/s"} 1500`,
		`clyde_block_client_rate{client="h2",device="/mnt/f",host="h1",test="step 1: randread",unit="ops/s"} 1200`,
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("no %s in:\n%s", line, out.String())
		}
	}
	job.Phases[0].RateUnit, job.PerHost[0].Test, job.PerHost[1].Test = "MB/s", "4Kx100 readwrite", "4Kx100 readwrite"
	out.Reset()
	if err := Encode(&out, CopyRegistry("h1", &result.Copy{Config: result.CopyConfig{Dir: "/mnt/s"}, Job: job})); err != nil {
		t.Fatal(err)
	}
	if line := `clyde_copy_client_rate{client="h2",dir="/mnt/s",host="h1",test="step 1: 4Kx100 readwrite",unit="bytes/s"} 1.2e+09`; !strings.Contains(out.String(), line+"\n") {
		t.Errorf("no %s in:\n%s", line, out.String())
	}
}

// TestCheckSeries: the regression check's record as series, the verdict's
// sign from the figures (lower -1, higher 1, within the noise 0, none when
// the rule cannot tell) and regressed 1 for the columns that fell.
func TestCheckSeries(t *testing.T) {
	pct := func(v float64) *float64 { return &v }
	rc := &result.RegressionCheck{Fell: []string{"put_block"}, Columns: []result.CheckedColumn{
		{Column: "put_block", Mean: 50, BaselineMean: 100, ChangePct: pct(-50), PValue: pct(0.001), Verdict: "differs"},
		{Column: "seeks", Mean: 150, BaselineMean: 100, ChangePct: pct(50), PValue: pct(0.01), Verdict: "differs"},
		{Column: "getc", Mean: 99, BaselineMean: 100, ChangePct: pct(-1), PValue: pct(0.6), Verdict: "within_noise"},
		{Column: "seq_create", Mean: 99, Verdict: "cannot_tell"},
	}}
	reg := prometheus.NewRegistry()
	AddCheck(reg, "nas", "fs", "/srv/data", rc)
	var b bytes.Buffer
	if err := Encode(&b, reg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`clyde_check_verdict{column="put_block",host="nas",kind="fs",target="/srv/data"} -1`,
		`clyde_check_verdict{column="seeks",host="nas",kind="fs",target="/srv/data"} 1`,
		`clyde_check_verdict{column="getc",host="nas",kind="fs",target="/srv/data"} 0`,
		`clyde_check_regressed{column="put_block",host="nas",kind="fs",target="/srv/data"} 1`,
		`clyde_check_regressed{column="seeks",host="nas",kind="fs",target="/srv/data"} 0`,
		`clyde_check_change_percent{column="put_block",host="nas",kind="fs",target="/srv/data"} -50`,
		`clyde_check_p_value{column="getc",host="nas",kind="fs",target="/srv/data"} 0.6`,
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("textfile lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), `clyde_check_verdict{column="seq_create"`) {
		t.Errorf("a verdict for a column the rule cannot tell:\n%s", b.String())
	}
}
