package bonnie

import (
	"strconv"
	"strings"

	"github.com/clydebench/clyde/result"
)

// csvNames98 are the 50 column names of format 1.98: bonnie++ 2.00a's 48
// header names with seeks and seek_proc_count inserted after io_chunk_size,
// where 2.00a's data has them. The seek count is named num_seeks so that no
// two columns share a name (the seek rate, column 19, is "seeks").
var csvNames98 = [...]string{
	"format_version", "bonnie_version", "name", "concurrency", "seed", "file_size", "io_chunk_size",
	"num_seeks", "seek_proc_count",
	"putc", "putc_cpu", "put_block", "put_block_cpu", "rewrite", "rewrite_cpu",
	"getc", "getc_cpu", "get_block", "get_block_cpu", "seeks", "seeks_cpu",
	"num_files", "max_size", "min_size", "num_dirs", "file_chunk_size",
	"seq_create", "seq_create_cpu", "seq_stat", "seq_stat_cpu", "seq_del", "seq_del_cpu",
	"ran_create", "ran_create_cpu", "ran_stat", "ran_stat_cpu", "ran_del", "ran_del_cpu",
	"putc_latency", "put_block_latency", "rewrite_latency", "getc_latency", "get_block_latency", "seeks_latency",
	"seq_create_latency", "seq_stat_latency", "seq_del_latency",
	"ran_create_latency", "ran_stat_latency", "ran_del_latency",
}

// csvNames97 are the 48 column names of formats 1.96 and 1.97 (and of
// bonnie++ 2.00a's own header line): no seek count or thread count.
var csvNames97 = [...]string{
	"format_version", "bonnie_version", "name", "concurrency", "seed", "file_size", "io_chunk_size",
	"putc", "putc_cpu", "put_block", "put_block_cpu", "rewrite", "rewrite_cpu",
	"getc", "getc_cpu", "get_block", "get_block_cpu", "seeks", "seeks_cpu",
	"num_files", "max_size", "min_size", "num_dirs", "file_chunk_size",
	"seq_create", "seq_create_cpu", "seq_stat", "seq_stat_cpu", "seq_del", "seq_del_cpu",
	"ran_create", "ran_create_cpu", "ran_stat", "ran_stat_cpu", "ran_del", "ran_del_cpu",
	"putc_latency", "put_block_latency", "rewrite_latency", "getc_latency", "get_block_latency", "seeks_latency",
	"seq_create_latency", "seq_stat_latency", "seq_del_latency",
	"ran_create_latency", "ran_stat_latency", "ran_del_latency",
}

// layout holds the column indexes that differ between the 48- and 50-field
// formats.
type layout struct {
	fields   int
	seeks    int // -1 when the format has no seek-count column
	procs    int
	ioTests  int // putc
	numFiles int
	fileTest int // seq_create
	latency  int // putc_latency
	names    []string
}

// layout98 is the column layout of format 1.98, which CSVLine writes.
func layout98() layout {
	return layout{fields: 50, seeks: 7, procs: 8, ioTests: 9, numFiles: 21, fileTest: 26, latency: 38, names: csvNames98[:]}
}

// layout97 is the column layout of formats 1.96 and 1.97.
func layout97() layout {
	return layout{fields: 48, seeks: -1, procs: -1, ioTests: 7, numFiles: 19, fileTest: 24, latency: 36, names: csvNames97[:]}
}

// Column indexes shared by every format.
const (
	colFormat      = 0
	colVersion     = 1
	colName        = 2
	colConcurrency = 3
	colSeed        = 4
	colSize        = 5
	colChunk       = 6
)

// CSVHeader returns the 50 column names matching CSVLine, without a
// newline. bonnie++ 2.00a's header has 48 names over 50-field data; this one
// lines up. bon_csv2txt rejects any header line, so leave it out when piping
// lines to it.
func CSVHeader() string { return strings.Join(csvNames98[:], ",") }

// CSVLine returns run as one CSV line of format 1.98 (50 fields, no newline),
// the line bonnie++ 2.00a prints after its tables, with the columns where
// bon_csv2txt and bon_csv2html read them: io_chunk_size (6) holds the chunk
// when it is not 8192, num_dirs (24) the directory count when above 1, and
// file_chunk_size (25) the file chunk when it is not 8192. 2.00a leaves 6 and
// 24 empty and writes num_dirs into 25.
//
// Field 1 is cfg.CompatVersion. The machine name (and a seed file name) has
// each comma replaced by ';' and each control character by a space, because
// bonnie++'s CSV has no quoting. A %CP whose CPU time is unknown is empty.
func CSVLine(cfg result.FSConfig, run result.FSRun) string {
	l := layout98()
	f := make([]string, l.fields)
	f[colFormat] = csvFormat
	f[colVersion] = sanitizeCSV(cfg.CompatVersion)
	f[colName] = sanitizeCSV(cfg.MachineName)
	f[colConcurrency] = strconv.Itoa(concurrency(cfg))
	f[colSeed] = strconv.FormatUint(uint64(cfg.Seed), 10)
	if cfg.SeedFile != "" {
		f[colSeed] = sanitizeCSV(cfg.SeedFile)
	}
	if cfg.FileSizeMiB > 0 {
		f[colSize] = printSize(cfg.FileSizeMiB, "MG")
		if c := chunkBytes(cfg); c != defaultChunkBytes {
			f[colChunk] = printSize(int64(c), " km")
		}
		f[l.seeks] = strconv.Itoa(seeks(cfg))
		f[l.procs] = strconv.Itoa(seekProcs(cfg))
		for t := result.PutChar; t <= result.Seeks; t++ {
			i := l.ioTests + 2*int(t)
			f[i], f[i+1] = csvCells(t, run.Tests[t])
			f[l.latency+int(t)] = latencyText(run.Tests[t])
		}
	}
	if cfg.FilesK > 0 {
		n := l.numFiles
		f[n] = strconv.Itoa(cfg.FilesK)
		f[n+1], f[n+2] = csvMaxMin(cfg)
		if cfg.Dirs > 1 {
			f[n+3] = strconv.Itoa(cfg.Dirs)
		}
		if c := fileChunk(cfg); c != defaultFileChunk {
			f[n+4] = printSize(int64(c), " km")
		}
		for t := result.SeqCreate; t <= result.RandDelete; t++ {
			i := l.fileTest + 2*int(t-result.SeqCreate)
			f[i], f[i+1] = csvCells(t, run.Tests[t])
			f[l.latency+int(t)] = latencyText(run.Tests[t])
		}
	}
	return strings.Join(f, ",")
}

// csvMaxMin are the max_size and min_size cells: "link", "symlink" or the
// byte count, empty when 0; min only beside a byte-count max, as in bonnie++.
func csvMaxMin(cfg result.FSConfig) (maxCell, minCell string) {
	switch m := maxFileBytes(cfg); {
	case m == maxHardLink:
		return "link", ""
	case m == maxSymlink:
		return "symlink", ""
	case m == 0:
		return "", ""
	default:
		maxCell = strconv.FormatInt(m, 10)
	}
	if cfg.MinFileBytes != 0 {
		minCell = strconv.FormatInt(cfg.MinFileBytes, 10)
	}
	return maxCell, minCell
}

// csvCells are test t's rate and %CP cells: empty when it did not run,
// "+++++" and "+++" when too short, else the rate (%d, or for seeks %.0f from
// 1000 up and %.1f below) and the truncated %CP (empty when unknown).
func csvCells(t result.FSTest, r result.FSTestResult) (rate, cpu string) {
	switch {
	case !r.Ran:
		return "", ""
	case r.TooShort:
		return "+++++", "+++"
	}
	if cpuShown(r) {
		cpu = strconv.FormatInt(truncInt(r.CPUPercent), 10)
	}
	switch {
	case t != result.Seeks:
		rate = strconv.FormatInt(truncInt(r.RatePerSec), 10)
	case r.RatePerSec >= 1000:
		rate = strconv.FormatFloat(r.RatePerSec, 'f', 0, 64)
	default:
		rate = strconv.FormatFloat(r.RatePerSec, 'f', 1, 64)
	}
	return rate, cpu
}
