package result

// BlockAccessLine is one line of an Iometer access specification and what a
// job issued from it: Iometer's fields, then the I/Os drawn from the line
// while measuring, how many of them were reads and how many started at a
// random offset (the rest continued from the previous I/O).
type BlockAccessLine struct {
	SizeBytes int64 `json:"size_bytes"`
	Weight    int   `json:"pct_of_access"`
	ReadPct   int   `json:"pct_read"`
	RandomPct int   `json:"pct_random"`
	IOs       int64 `json:"ios"`
	Reads     int64 `json:"reads"`
	Random    int64 `json:"random"`
}

// BlockIometer is an Iometer-style run: its setup, and one result per test
// (an access specification at one step of the cycling) with the figures
// Iometer's results file has.
type BlockIometer struct {
	// Source is the .icf file the setup came from, or the preset's name.
	Source      string `json:"source"`
	Description string `json:"description,omitempty"`
	RunTimeNs   int64  `json:"run_time_ns"`
	RampTimeNs  int64  `json:"ramp_up_time_ns"`
	// Cycling describes the cycling of the test setup ("" for none).
	Cycling string `json:"cycling,omitempty"`
	// Ignored names every section or setting of the file clyde read and did
	// not use, with its line.
	Ignored []string `json:"ignored,omitempty"`
	// CPUScope says what % CPU Utilization covers.
	CPUScope string             `json:"cpu_scope"`
	Tests    []BlockIometerTest `json:"tests"`
}

// BlockIometerTest is one test: every active worker's results summed, as
// Iometer's "ALL" line. Response times are in ms, MBps in MB/s of 10^6
// (Decimal) and 2^20 (Binary) bytes, as Iometer prints them.
type BlockIometerTest struct {
	AccessSpec string `json:"access_specification"`
	Workers    int    `json:"workers"`
	// OutstandingIOs is per worker, as Iometer's "Queue Depth" column.
	OutstandingIOs int `json:"outstanding_ios"`
	// StartingSector and MaximumSize are the first worker's disk region in
	// 512-byte sectors (Iometer's columns); MaximumSize 0 is all of it.
	StartingSector int64 `json:"starting_sector"`
	MaximumSize    int64 `json:"maximum_size"`
	// Jobs indexes Block.Jobs: one per active worker.
	Jobs               []int   `json:"jobs"`
	IOPS               float64 `json:"iops"`
	ReadIOPS           float64 `json:"read_iops"`
	WriteIOPS          float64 `json:"write_iops"`
	MBpsBinary         float64 `json:"mbps_binary"`
	ReadMBpsBinary     float64 `json:"read_mbps_binary"`
	WriteMBpsBinary    float64 `json:"write_mbps_binary"`
	MBpsDecimal        float64 `json:"mbps_decimal"`
	ReadMBpsDecimal    float64 `json:"read_mbps_decimal"`
	WriteMBpsDecimal   float64 `json:"write_mbps_decimal"`
	AvgResponseMs      float64 `json:"avg_response_ms"`
	AvgReadResponseMs  float64 `json:"avg_read_response_ms"`
	AvgWriteResponseMs float64 `json:"avg_write_response_ms"`
	MaxResponseMs      float64 `json:"max_response_ms"`
	MaxReadResponseMs  float64 `json:"max_read_response_ms"`
	MaxWriteResponseMs float64 `json:"max_write_response_ms"`
	// CPUPct is % CPU Utilization; CPUKnown is false where the platform
	// does not report CPU time.
	CPUPct   float64 `json:"cpu_pct"`
	CPUKnown bool    `json:"cpu_known"`
	// CPUUserPct and CPUPrivilegedPct split CPUPct (user and system time).
	CPUUserPct       float64 `json:"cpu_user_pct"`
	CPUPrivilegedPct float64 `json:"cpu_privileged_pct"`
	// Errors counts I/Os that moved fewer bytes than asked for; a failed
	// I/O ends the run (see Block.Error).
	Errors       int64 `json:"errors"`
	ReadIOs      int64 `json:"read_ios"`
	WriteIOs     int64 `json:"write_ios"`
	BytesRead    int64 `json:"bytes_read"`
	BytesWritten int64 `json:"bytes_written"`
	// LatencyBins counts I/Os by total latency in IometerLatencyBins.
	LatencyBins []int64 `json:"latency_bins"`
}

// IometerBin is one of Iometer's latency bins: the I/Os whose response time
// is at least FromNs and below the next bin's FromNs.
type IometerBin struct {
	Label  string
	FromNs int64
}

// IometerLatencyBins are Iometer's 21 bins, labelled as its results file
// heads them (src/GalileoView.cpp). The edges are the labels' values:
// Iometer's own code (src/IOGrunt.cpp) puts the 15 and 30 ms edges at
// timer/67 and timer/33 and the "4.7 s" one at 4 s, and never counts an I/O
// of 10 s or more; clyde counts those in the last bin.
var IometerLatencyBins = []IometerBin{
	{"0 to 50 uS", 0}, {"50 to 100 uS", 50e3}, {"100 to 200 uS", 100e3}, {"200 to 500 uS", 200e3},
	{"0.5 to 1 mS", 500e3}, {"1 to 2 mS", 1e6}, {"2 to 5 mS", 2e6}, {"5 to 10 mS", 5e6}, {"10 to 15 mS", 10e6},
	{"15 to 20 mS", 15e6}, {"20 to 30 mS", 20e6}, {"30 to 50 mS", 30e6}, {"50 to 100 mS", 50e6},
	{"100 to 200 mS", 100e6}, {"200 to 500 mS", 200e6}, {"0.5 to 1 S", 500e6}, {"1 to 2 s", 1e9},
	{"2 to 4.7 s", 2e9}, {"4.7 to 5 s", 4.7e9}, {"5 to 10 s", 5e9}, {">= 10 s", 10e9},
}
