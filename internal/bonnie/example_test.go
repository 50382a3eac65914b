package bonnie_test

import (
	"fmt"
	"os"

	"github.com/clydebench/clyde/fsbench"
	"github.com/clydebench/clyde/internal/bonnie"
	"github.com/clydebench/clyde/result"
)

// exampleRun is a small run: -s 256 -n 16, where rewrite, get_block and
// the seeks finished under 0.5 s.
func exampleRun() (result.FSConfig, result.FSRun) {
	cfg := result.FSConfig{
		MachineName: "testbox", FileSizeMiB: 256, ChunkBytes: 8192, Seeks: 8192, SeekProcs: 5,
		ByteIOMiB: 3, FilesK: 16, Dirs: 1, FileChunk: 8192, Concurrency: 1, Seed: 42,
		CompatVersion: "clyde",
	}
	var run result.FSRun
	set := func(t result.FSTest, bytes, ops, elapsedNs, cpuNs, maxLatNs int64) {
		r := &run.Tests[t]
		r.Test, r.Ran, r.Bytes, r.Ops, r.ElapsedNs = t, true, bytes, ops, elapsedNs
		r.CPUUserNs, r.CPUKnown, r.Latency.MaxNs = cpuNs, true, maxLatNs
		r.Finish()
	}
	set(result.PutChar, 3<<20, 0, 1_432_000_000, 1_045_000_000, 11_334_000)
	set(result.PutBlock, 256<<20, 0, 1_609_000_000, 965_000_000, 6_587_000)
	set(result.Rewrite, 256<<20, 0, 301_000_000, 150_000_000, 1_477_000)
	set(result.GetChar, 3<<20, 0, 1_684_000_000, 993_000_000, 13_581_000)
	set(result.GetBlock, 256<<20, 0, 95_000_000, 60_000_000, 4_064_000)
	set(result.Seeks, 0, 8192, 27_966_000, 30_000_000, 11_710_000)
	for t := result.SeqCreate; t <= result.RandDelete; t++ {
		set(t, 0, 16*1024, 1_500_000_000+int64(t)*100_000_000, 700_000_000, 4_000_000+int64(t)*1_000_000)
	}
	set(result.SeqStat, 0, 16*1024, 65_000_000, 64_000_000, 4_240_000)
	return cfg, run
}

func ExampleWriteText() {
	cfg, run := exampleRun()
	if err := bonnie.WriteText(os.Stdout, cfg, run); err != nil {
		fmt.Println(err)
	}
	// The suggestion comes from fsbench's planner, as clyde fs prints it.
	next, limits := fsbench.Suggest(cfg, run, nil)
	fmt.Println(bonnie.TooShortAdvice(cfg, run, next, limits))
	// Output:
	// Version clyde       ------Sequential Output------ --Sequential Input- --Random-
	//                     -Per Chr- --Block-- -Rewrite- -Per Chr- --Block-- --Seeks--
	// Name:Size etc        /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP
	// testbox        256M 2145k  72  159m  59 +++++ +++ 1824k  58 +++++ +++ +++++ +++
	// Latency             11334us    6587us    1477us   13581us    4064us   11710us
	// Version clyde       ------Sequential Create------ --------Random Create--------
	// testbox             -Create-- --Read--- -Delete-- -Create-- --Read--- -Delete--
	//               files  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP  /sec %CP
	//                  16  7801  33 +++++ +++  7123  30  6826  29  6553  28  6301  26
	// Latency             10000us    4240us   12000us   13000us   14000us   15000us
	// too short to measure (+++++): rewrite, get_block, seeks, seq_stat; try -s 3072:8k:393216 -n 256
}

func ExampleCSVLine() {
	cfg, run := exampleRun()
	fmt.Println(bonnie.CSVHeader())
	fmt.Println(bonnie.CSVLine(cfg, run))
	// Output:
	// format_version,bonnie_version,name,concurrency,seed,file_size,io_chunk_size,num_seeks,seek_proc_count,putc,putc_cpu,put_block,put_block_cpu,rewrite,rewrite_cpu,getc,getc_cpu,get_block,get_block_cpu,seeks,seeks_cpu,num_files,max_size,min_size,num_dirs,file_chunk_size,seq_create,seq_create_cpu,seq_stat,seq_stat_cpu,seq_del,seq_del_cpu,ran_create,ran_create_cpu,ran_stat,ran_stat_cpu,ran_del,ran_del_cpu,putc_latency,put_block_latency,rewrite_latency,getc_latency,get_block_latency,seeks_latency,seq_create_latency,seq_stat_latency,seq_del_latency,ran_create_latency,ran_stat_latency,ran_del_latency
	// 1.98,clyde,testbox,1,42,256M,,8192,5,2145,72,162923,59,+++++,+++,1824,58,+++++,+++,+++++,+++,16,,,,,7801,33,+++++,+++,7123,30,6826,29,6553,28,6301,26,11334us,6587us,1477us,13581us,4064us,11710us,10000us,4240us,12000us,13000us,14000us,15000us
}
