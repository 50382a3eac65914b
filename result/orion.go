package result

// Orion is a clyde orion run: ORION's test as it was mapped, and one matrix
// of data points per small I/O size (one unless -size_small was a list).
type Orion struct {
	// Command is ORION's part of the command line, as given.
	Command  string `json:"command"`
	Run      string `json:"run"`
	TestName string `json:"testname"`
	NumDisks int    `json:"num_disks"`
	// SizeLargeKiB is the large I/O size; each set has its small size.
	SizeLargeKiB int    `json:"size_large_kib"`
	Type         string `json:"type"` // rand or seq
	NumStreamIO  int    `json:"num_stream_io,omitempty"`
	WritePct     int    `json:"write_pct"`
	DurationS    int    `json:"duration_s"`
	Matrix       string `json:"matrix"`
	NumSmall     int    `json:"num_small,omitempty"`
	NumLarge     int    `json:"num_large,omitempty"`
	// CacheSizeMiB is -cache_size; -1 when it was not given.
	CacheSizeMiB int    `json:"cache_size_mib"`
	Simulate     string `json:"simulate"`
	// StripeKiB is -simulate raid0's stripe depth.
	StripeKiB int `json:"stripe_kib,omitempty"`
	// Direct says the LUNs were opened with O_DIRECT, as ORION opens them.
	Direct bool       `json:"direct"`
	LUNs   []OrionLUN `json:"luns"`
	// Started is the yyyymmdd_hhmm ORION puts in its file names.
	Started string     `json:"started"`
	Sets    []OrionSet `json:"sets"`
}

// OrionLUN is one line of the .lun file.
type OrionLUN struct {
	Path      string `json:"path"`
	SizeBytes int64  `json:"size_bytes"`
}

// OrionSet is one matrix: its axes (small loads are the columns, large
// loads the rows), its data points in the order they ran, and the prefix of
// the files written for it.
type OrionSet struct {
	SizeSmallKiB int          `json:"size_small_kib"`
	Prefix       string       `json:"prefix"`
	SmallLoads   []int        `json:"small_loads"`
	LargeLoads   []int        `json:"large_loads"`
	Points       []OrionPoint `json:"points"`
}

// OrionPoint is one data point: Small outstanding small I/Os and Large
// outstanding large I/Os (or sequential streams) at once. ORION's figures
// are small-I/O IOPS and mean latency and large-I/O MB/s; clyde adds both
// kinds' full latency distributions per direction (fio's lat_ns object,
// percentiles included, without the histogram, which the jobs carry).
type OrionPoint struct {
	Small int `json:"small"`
	Large int `json:"large"`
	// Jobs indexes Block.Jobs: the small workload first, then the large
	// one (or each stream).
	Jobs []int `json:"jobs"`
	// SmallIOPS is read and write together; SmallLatUs their mean latency.
	SmallIOPS  float64 `json:"small_iops"`
	SmallLatUs float64 `json:"small_lat_us"`
	// LargeMBPS is MiB/s (2^20 bytes, ORION's MB), read and write together.
	LargeMBPS  float64 `json:"large_mbps"`
	LargeIOPS  float64 `json:"large_iops"`
	SmallRead  *LatNs  `json:"small_read_lat_ns,omitempty"`
	SmallWrite *LatNs  `json:"small_write_lat_ns,omitempty"`
	LargeRead  *LatNs  `json:"large_read_lat_ns,omitempty"`
	LargeWrite *LatNs  `json:"large_write_lat_ns,omitempty"`
	// ElapsedNs is the point's measured time (the longest of its jobs).
	ElapsedNs int64 `json:"elapsed_ns"`
	// Partial marks a point cut short (^C): its figures are over
	// ElapsedNs, less than the -duration asked for. ORION's files mark its
	// cells and leave it out of the maximum and minimum lines.
	Partial bool `json:"partial,omitempty"`
}
