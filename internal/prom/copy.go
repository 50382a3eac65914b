package prom

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/clydebench/clyde/result"
)

// clyde copy's metric names. Every series carries host, dir (-d), to (the
// --to directory, "" within one directory), test ("<method> <set>",
// "readwrite 100Mx1") and unit.
const (
	CopyBandwidth = "clyde_copy_bandwidth_bytes_per_second"
	CopyFiles     = "clyde_copy_files_per_second"
	CopyP99       = "clyde_copy_p99_latency_seconds"
	CopyCloneTime = "clyde_copy_clone_seconds"
)

// CopyRegistry holds a copy result's figures: bandwidth, files/s and p99
// per-file latency of every set copied with a real copy, and the time of
// clones, which copy no data and have no bandwidth.
func CopyRegistry(host string, res *result.Copy) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	labels := []string{"host", fsTargetLabel, "to", "test", "unit"}
	bw := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: CopyBandwidth, Help: "Bytes copied per second by one clyde copy set and method, fsync included unless --no-fsync."}, labels)
	files := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: CopyFiles, Help: "Files copied per second by one clyde copy set and method."}, labels)
	p99 := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: CopyP99, Help: "99th percentile per-file copy latency of one clyde copy set and method."}, labels)
	clone := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: CopyCloneTime, Help: "Time to clone one clyde copy set (no data is copied)."}, labels)
	last := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: LastRun, Help: "Start time of the last clyde run."}, []string{"host", fsTargetLabel, "test", "unit"})
	reg.MustRegister(bw, files, p99, clone, last)
	dir, to := res.Config.Dir, res.Config.To
	for _, f := range res.Results {
		if !f.Ran || f.Interrupted {
			continue
		}
		test := f.Method + " " + f.Set
		if f.NotDataCopy {
			clone.WithLabelValues(host, dir, to, test, "seconds").Set(float64(f.ElapsedNs) / 1e9)
			continue
		}
		bw.WithLabelValues(host, dir, to, test, "bytes/s").Set(f.MBPerSec * 1e6)
		files.WithLabelValues(host, dir, to, test, "files/s").Set(f.FilesPerSec)
		p99.WithLabelValues(host, dir, to, test, "seconds").Set(float64(f.Latency.P99Ns) / 1e9)
	}
	last.WithLabelValues(host, dir, "copy", "seconds").Set(float64(res.Provenance.StartTime.UnixNano()) / 1e9)
	if res.Job != nil {
		stepSeries(reg, CopyClientRate, "copy", fsTargetLabel, host, dir, res.Job)
	}
	return reg
}
