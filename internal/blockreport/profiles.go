package blockreport

import (
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/clydebench/clyde/result"
)

func profileTable(ew *errWriter, res *result.Block) {
	switch res.Profile.Name {
	case "cdm":
		if res.CDM != nil {
			cdmText(ew, res)
			return
		}
		cdmTable(ew, res) // saved by a clyde before CrystalDiskMark's full export
	case "iometer-mix", "iometer":
		if res.Iometer != nil {
			iometerText(ew, res)
			return
		}
		iometerTable(ew, res.Profile) // saved by a clyde before Iometer's full results
	case "orion":
		orionTable(ew, res.Profile)
	default:
		sweepTable(ew, res.Profile)
	}
}

// mbps is decimal MB/s from bytes, as CrystalDiskMark, Iometer's MBps
// (10^6) and ORION print it.
func mbps(bw int64) float64 { return float64(bw) / 1e6 }

// cdmTable follows CrystalDiskMark 8/9's text export: a [Read] and a [Write]
// block, each row "MB/s [IOPS] <us>", then the test size and passes.
func cdmTable(ew *errWriter, res *result.Block) {
	p := res.Profile
	for _, dir := range []string{"Read", "Write"} {
		ew.printf("[%s]\n", dir)
		for _, r := range p.Rows {
			if isWrite(r.RW) != (dir == "Write") {
				continue
			}
			kind, size := "SEQ", iecSize(r.BSBytes)
			if strings.HasPrefix(r.RW, "rand") {
				kind = "RND"
			}
			ew.printf("  %s %7s (Q=%3d, T=%2d): %9.3f MB/s [%9.1f IOPS] <%9.2f us>\n",
				kind, size, r.IODepth, r.NumJobs, mbps(r.BWBytes), r.IOPS, r.MeanLatNs/1e3)
		}
		ew.printf("\n")
	}
	size := res.Target.SizeBytes
	if len(res.Jobs) > 0 {
		size = res.Jobs[0].Config.SizeBytes
	}
	buf := "Random"
	if len(res.Jobs) > 0 && res.Jobs[0].Config.Buffer == "zero" {
		buf = "All 0x00 (0Fill)"
	}
	ew.printf("Profile: Default\n   Test: %s (x%d) [%s]\n   Data: %s\n", humanize.IBytes(uint64(size)), p.Passes, res.Target.ResolvedPath, buf)
	ew.printf("   Note: best of %d passes after one uncounted warm-up pass\n", p.Passes)
}

func isWrite(rw string) bool { return rw == "write" || rw == "randwrite" }

// iometerTable follows Iometer's Results Display: per access specification,
// IOPS, MBps and the average and maximum response time per direction, in ms.
func iometerTable(ew *errWriter, p *result.BlockProfile) {
	ew.printf("%-30s %11s %11s %11s %9s %9s %9s %9s %9s\n", "Access Specification", "Total I/Os", "Read IOPS",
		"Write IOPS", "MBps", "Rd Avg", "Rd Max", "Wr Avg", "Wr Max")
	ew.printf("%-30s %11s %11s %11s %9s %9s %9s %9s %9s\n", "", "per Second", "", "", "(10^6)", "ms", "ms", "ms", "ms")
	for _, r := range p.Rows {
		ew.printf("%-30s %11.2f %11.2f %11.2f %9.2f %9.4f %9.4f %9.4f %9.4f\n", r.Label, r.IOPS, r.ReadIOPS, r.WriteIOPS,
			mbps(r.BWBytes), r.ReadMeanNs/1e6, float64(r.ReadMaxNs)/1e6, r.WriteMeanNs/1e6, float64(r.WriteMaxNs)/1e6)
	}
}

// orionTable lists ORION's data points, small then large, and its summary
// lines; MBPS is ORION's MB, 2^20 bytes, as in clyde orion's files.
func orionTable(ew *errWriter, p *result.BlockProfile) {
	mbps := func(bw int64) float64 { return float64(bw) / (1 << 20) }
	ew.printf("ORION-style run: simple (small: 8 KiB random reads, large: 1024 KiB random reads, write 0%%)\n")
	ew.printf("%5s %6s %6s %12s %10s %14s\n", "Point", "Small", "Large", "IOPS", "MBPS", "Avg lat (us)")
	type best struct {
		v    float64
		load int
		ok   bool
	}
	var maxIOPS, minLat, maxMBPS best
	for i, r := range p.Rows {
		small, large := r.Load, 0
		if r.BSBytes >= 128<<10 {
			small, large = 0, r.Load
		}
		ew.printf("%5d %6d %6d %12.0f %10.2f %14.2f\n", i+1, small, large, r.IOPS, mbps(r.BWBytes), r.MeanLatNs/1e3)
		if large == 0 {
			if !maxIOPS.ok || r.IOPS > maxIOPS.v {
				maxIOPS = best{r.IOPS, small, true}
			}
			if r.MeanLatNs > 0 && (!minLat.ok || r.MeanLatNs < minLat.v) {
				minLat = best{r.MeanLatNs, small, true}
			}
		} else if !maxMBPS.ok || mbps(r.BWBytes) > maxMBPS.v {
			maxMBPS = best{mbps(r.BWBytes), large, true}
		}
	}
	if maxMBPS.ok {
		ew.printf("Maximum Large MBPS=%.2f @ Small=0 and Large=%d\n", maxMBPS.v, maxMBPS.load)
	}
	if maxIOPS.ok {
		ew.printf("Maximum Small IOPS=%.0f @ Small=%d and Large=0\n", maxIOPS.v, maxIOPS.load)
	}
	if minLat.ok {
		ew.printf("Minimum Small Latency=%.2f usecs @ Small=%d and Large=0\n", minLat.v/1e3, minLat.load)
	}
}

// sweepTable is one line per block size.
func sweepTable(ew *errWriter, p *result.BlockProfile) {
	ew.printf("%8s %12s %10s %14s %14s\n", "BS", "IOPS", "MB/s", "Avg lat (us)", "p99 lat (us)")
	for _, r := range p.Rows {
		ew.printf("%8s %12.0f %10.2f %14.2f %14.2f\n", r.Label, r.IOPS, mbps(r.BWBytes), r.MeanLatNs/1e3, float64(r.P99LatNs)/1e3)
	}
}

// iecSize prints a block size as CrystalDiskMark does: 1MiB, 4KiB, 512B.
func iecSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "KiB"
	}
	return strconv.FormatInt(n, 10) + "B"
}
