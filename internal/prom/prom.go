// Package prom writes a run's figures for node_exporter's textfile
// collector, so a cron job's results land in Prometheus next to the
// machine's other metrics. Encode writes the text format; the caller
// (internal/outfile) replaces the file atomically, so the collector never
// reads half, and writes a device or FIFO in place.
package prom

import (
	"fmt"
	"io"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/result"
)

// Metric names. Every metric carries host and test labels, plus dir (fs) or
// device (block), and unit where the figure has one.
const (
	FSRate       = "clyde_fs_rate"
	FSCPU        = "clyde_fs_cpu_percent"
	FSMaxLatency = "clyde_fs_max_latency_seconds"
	FSElapsed    = "clyde_fs_elapsed_seconds"
	FSLowConf    = "clyde_fs_rate_low_confidence"
	FSClientRate = "clyde_fs_client_rate"
	FSJobRanks   = "clyde_fs_job_ranks"
	BlockIOPS    = "clyde_block_iops"
	BlockBW      = "clyde_block_bandwidth_bytes_per_second"
	BlockP99     = "clyde_block_p99_latency_seconds"
	// BlockClientRate and CopyClientRate are clyde_fs_client_rate for
	// block and copy runs across ranks: one client host's rate in one step.
	BlockClientRate = "clyde_block_client_rate"
	CopyClientRate  = "clyde_copy_client_rate"
	LastRun         = "clyde_last_run_timestamp_seconds"
	fsTargetLabel   = "dir"
	blkTargetLbl    = "device"
)

// Registry holds a run's figures, whatever its kind.
func Registry(run *compare.Run) *prometheus.Registry {
	switch {
	case run.Block != nil:
		return BlockRegistry(run.Host(), run.Target(), run.Block)
	case run.Copy != nil:
		return CopyRegistry(run.Host(), run.Copy)
	}
	return FSRegistry(run.Host(), run.Target(), run.FS)
}

// FSRegistry holds an fs result's figures: the mean over -x iterations of
// every test that produced a number. A test under 0.5 s (bonnie++'s +++++)
// keeps its measured rate, with clyde_fs_rate_low_confidence 1 beside it
// and its clyde_fs_elapsed_seconds, so a dashboard sees the number and
// can tell an alert to ignore it; skipped tests are left out rather than
// reported as 0. dir is the directory as the history names it (compare.Run.Target), the
// same label from run to run however -d was typed.
func FSRegistry(host, dir string, res *result.FS) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	labels := []string{"host", fsTargetLabel, "test", "unit"}
	rate := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: FSRate, Help: "bonnie++-style rate of one clyde fs test, in the unit label's unit."}, labels)
	cpu := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: FSCPU, Help: "CPU used during one clyde fs test, percent of one CPU."}, labels)
	lat := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: FSMaxLatency, Help: "Longest single operation of one clyde fs test."}, labels)
	elapsed := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: FSElapsed, Help: "Measured time of one clyde fs test."}, labels)
	low := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: FSLowConf, Help: "1 when the test ran under 0.5 s (bonnie++ prints +++++): its rate is measured but of low confidence."}, labels)
	last := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: LastRun, Help: "Start time of the last clyde run."}, []string{"host", fsTargetLabel, "test", "unit"})
	reg.MustRegister(rate, cpu, lat, elapsed, low, last)
	for t := result.FSTest(0); t < result.FSTestCount; t++ {
		var rs, cs, ls, es []float64
		unit, short := "", false
		for _, run := range res.Runs {
			tr := run.Tests[t]
			unit = tr.RateUnit
			if !tr.Ran || tr.Interrupted {
				continue
			}
			if tr.RatePerSec > 0 {
				rs = append(rs, tr.RatePerSec)
				es = append(es, float64(tr.ElapsedNs)/1e9)
				short = short || tr.TooShort
			}
			if tr.CPUKnown {
				cs = append(cs, tr.CPUPercent)
			}
			if tr.Latency.MaxNs > 0 {
				ls = append(ls, float64(tr.Latency.MaxNs)/1e9)
			}
		}
		if len(rs) > 0 {
			unit, scale := baseUnit(unit)
			rate.WithLabelValues(host, dir, t.Name(), unit).Set(mean(rs) * scale)
			elapsed.WithLabelValues(host, dir, t.Name(), "seconds").Set(mean(es))
			flag := 0.0
			if short {
				flag = 1
			}
			low.WithLabelValues(host, dir, t.Name(), unit).Set(flag)
		}
		if len(cs) > 0 {
			cpu.WithLabelValues(host, dir, t.Name(), "percent").Set(mean(cs))
		}
		if len(ls) > 0 {
			lat.WithLabelValues(host, dir, t.Name(), "seconds").Set(mean(ls))
		}
	}
	last.WithLabelValues(host, dir, "fs", "seconds").Set(float64(res.Provenance.StartTime.UnixNano()) / 1e9)
	if res.Job != nil {
		jobSeries(reg, host, dir, res.Job)
	}
	return reg
}

// jobSeries are a many-client run's clients: each client host's rate per
// phase (its ranks' items over its slowest rank's time, the first
// iteration's, as the page's Hosts bars), labelled client="h2" beside the
// run's host (rank 0's) and dir, and the job's rank count. The run's own
// clyde_fs_rate above is the whole job's.
func jobSeries(reg *prometheus.Registry, host, dir string, j *result.FSJob) {
	client := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: FSClientRate, Help: "One client host's rate in one phase of a many-client clyde fs run, in the unit label's unit."},
		[]string{"host", fsTargetLabel, "client", "test", "unit"})
	ranks := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: FSJobRanks, Help: "Ranks (client processes) of a many-client clyde fs run."}, []string{"host", fsTargetLabel, "launcher"})
	reg.MustRegister(client, ranks)
	units := map[string]string{}
	for _, ph := range j.Phases {
		units[ph.Test] = ph.RateUnit
	}
	for _, h := range j.PerHost {
		if len(j.PerHost) > 0 && h.Iteration != j.PerHost[0].Iteration {
			continue
		}
		unit, scale := baseUnit(units[h.Test])
		client.WithLabelValues(host, dir, h.Host, h.Test, unit).Set(h.RatePerSec * scale)
	}
	ranks.WithLabelValues(host, dir, j.Launcher).Set(float64(j.Ranks))
}

// cdmSeries are a CrystalDiskMark run's rows as its window shows them, the
// kept figure of each (best pass or average), test="SEQ1M Q8T1 Read": the
// number its text, compare and the history show. The passes' jobs would be
// one series written once per pass, the last one winning.
func cdmSeries(c *result.BlockCDM, host, dev string, iops, bw *prometheus.GaugeVec) {
	for _, row := range c.Rows {
		if len(row.Jobs) == 0 || row.BWBytes <= 0 {
			continue
		}
		test := compare.CDMRowKey(row)
		iops.WithLabelValues(host, dev, test, "ops/s").Set(row.IOPS)
		bw.WithLabelValues(host, dev, test, "bytes/s").Set(row.BWBytes)
	}
}

// baseUnit is the Prometheus base unit of a rate unit and the factor to
// it: bonnie++'s KiB/s columns and copy's MB/s are bytes/s in a textfile,
// as Prometheus names carry base units; files/s and seeks/s are already.
func baseUnit(unit string) (string, float64) {
	switch unit {
	case "KiB/s":
		return "bytes/s", 1024
	case "MB/s": // clyde copy's, 10^6 bytes
		return "bytes/s", 1e6
	case "IOPS":
		return "ops/s", 1
	}
	return unit, 1
}

// BlockRegistry holds a block result's figures, one series per job and
// direction; test is "<job name> <read|write>". dev is the target as the
// history names it (compare.Run.Target): a cdm run's directory, not the file
// it made in a new private directory.
func BlockRegistry(host, dev string, res *result.Block) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	labels := []string{"host", blkTargetLbl, "test", "unit"}
	iops := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: BlockIOPS, Help: "I/O operations per second of one clyde block job and direction."}, labels)
	bw := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: BlockBW, Help: "Bandwidth of one clyde block job and direction."}, labels)
	p99 := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: BlockP99, Help: "99th percentile completion latency of one clyde block job and direction."}, labels)
	last := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: LastRun, Help: "Start time of the last clyde run."}, labels)
	reg.MustRegister(iops, bw, p99, last)
	if res.CDM != nil {
		cdmSeries(res.CDM, host, dev, iops, bw)
		last.WithLabelValues(host, dev, "block", "seconds").Set(float64(res.Provenance.StartTime.UnixNano()) / 1e9)
		return reg
	}
	for _, j := range res.Jobs {
		if j.Warmup {
			continue
		}
		for _, d := range []struct {
			name string
			dir  result.BlockDir
		}{{"read", j.Read}, {"write", j.Write}} {
			if d.dir.TotalIOs == 0 {
				continue
			}
			test := j.JobName + " " + d.name
			iops.WithLabelValues(host, dev, test, "ops/s").Set(d.dir.IOPS)
			bw.WithLabelValues(host, dev, test, "bytes/s").Set(float64(d.dir.BWBytes))
			if v, ok := d.dir.LatPercentile(99); ok {
				p99.WithLabelValues(host, dev, test, "seconds").Set(float64(v) / 1e9)
			}
		}
	}
	last.WithLabelValues(host, dev, "block", "seconds").Set(float64(res.Provenance.StartTime.UnixNano()) / 1e9)
	if res.Job != nil {
		stepSeries(reg, BlockClientRate, "block", blkTargetLbl, host, dev, res.Job)
	}
	return reg
}

// stepSeries are a block or copy run's client hosts across ranks: each
// host's rate in each step (its ranks' count over its slowest rank's
// time), test="step 1: randread", client="h2" beside the run's host (rank
// 0's). The run's own series are the whole job's.
func stepSeries(reg *prometheus.Registry, name, kind, targetLabel, host, target string, j *result.RankJob) {
	client := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: "One client host's rate in one step of a clyde " + kind + " run across ranks, in the unit label's unit."},
		[]string{"host", targetLabel, "client", "test", "unit"})
	reg.MustRegister(client)
	units := map[int]string{}
	for _, ph := range j.Phases {
		units[ph.Iteration] = ph.RateUnit
	}
	for _, h := range j.PerHost {
		unit, scale := baseUnit(units[h.Iteration])
		client.WithLabelValues(host, target, h.Host, fmt.Sprintf("step %d: %s", h.Iteration+1, h.Test), unit).Set(h.RatePerSec * scale)
	}
}

// Encode writes reg's metrics in the text exposition format, the one
// node_exporter's textfile collector reads (what client_golang's
// WriteToTextfile writes, without its temporary-file-and-rename, which
// would replace a device node or cannot write /dev/stdout).
func Encode(w io.Writer, reg *prometheus.Registry) error {
	families, err := reg.Gather()
	if err != nil {
		return fmt.Errorf("gather metrics: %w", err)
	}
	for _, mf := range families {
		if _, err := expfmt.MetricFamilyToText(w, mf); err != nil {
			return err
		}
	}
	return nil
}

func mean(vs []float64) float64 {
	var s float64
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}
