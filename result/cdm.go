package result

// BlockCDM is a CrystalDiskMark-style run: its settings and one row per
// test, mode and test data, with the figures CrystalDiskMark keeps.
type BlockCDM struct {
	// Preset is clyde's name of the test set (default, nvme, peak, ...);
	// Profile CrystalDiskMark's name of the profile (Default, Peak, Real,
	// Demo) as its text export prints it.
	Preset        string `json:"preset"`
	Profile       string `json:"profile"`
	TestSizeBytes int64  `json:"test_size_bytes"`
	// Passes are the measured passes of every test, after one uncounted
	// warm-up pass.
	Passes     int   `json:"passes"`
	MeasureNs  int64 `json:"measure_ns"`
	IntervalNs int64 `json:"interval_ns"`
	// Aggregate is "best" (CrystalDiskMark: the highest MB/s and the lowest
	// latency over the passes) or "average" (KDiskMark's Default profile).
	Aggregate string `json:"aggregate"`
	// TestData is "random", "zero" (All 0x00, 0Fill) or "both".
	TestData string `json:"test_data"`
	// MixReadPct is the read share of the Mix rows; 0 when there are none.
	MixReadPct int `json:"mix_read_pct,omitempty"`
	// Direct is false when --buffered ran the tests through the page cache.
	Direct bool `json:"direct"`
	// Admin is true when clyde ran as root (CrystalDiskMark's [Admin]).
	Admin bool          `json:"admin"`
	Rows  []BlockCDMRow `json:"rows"`
}

// BlockCDMRow is one test in one mode with one kind of test data.
type BlockCDMRow struct {
	// Test is the row's name ("SEQ1M Q8T1"); Random false is SEQ.
	Test    string `json:"test"`
	Random  bool   `json:"random"`
	BSBytes int64  `json:"bs_bytes"`
	Queues  int    `json:"queues"`
	Threads int    `json:"threads"`
	// Mode is "read", "write" or "mix"; Data "random" or "zero".
	Mode string `json:"mode"`
	Data string `json:"data"`
	// Jobs indexes Block.Jobs for the measured passes, WarmupJob the
	// uncounted first pass (-1 when it did not run).
	Jobs      []int `json:"jobs"`
	WarmupJob int   `json:"warmup_job"`
	// BWBytes is the kept throughput in bytes/s; IOPS is BWBytes over the
	// block size, as CrystalDiskMark derives it; LatencyUs the kept mean
	// latency.
	BWBytes   float64 `json:"bw_bytes"`
	IOPS      float64 `json:"iops"`
	LatencyUs float64 `json:"latency_us"`
}

// BlockSpace is the filesystem under test when the measurements began:
// its size and what was in use (after a fill), as CrystalDiskMark's "Test:"
// line shows it.
type BlockSpace struct {
	// Path is the directory looked at; MountPoint its filesystem's.
	Path       string `json:"path"`
	MountPoint string `json:"mount_point,omitempty"`
	TotalBytes uint64 `json:"total_bytes"`
	UsedBytes  uint64 `json:"used_bytes"`
	AvailBytes uint64 `json:"avail_bytes"`
	// Fill is what clyde wrote to bring the filesystem to a fill level.
	Fill *BlockFill `json:"fill,omitempty"`
}

// BlockFill is a fill of the filesystem under test: incompressible data in
// clyde's private run directory, written before the test and removed after.
type BlockFill struct {
	// Request is the level asked for ("50%", "200g"), TargetUsedBytes what
	// it means on this filesystem.
	Request         string `json:"request"`
	TargetUsedBytes uint64 `json:"target_used_bytes"`
	UsedBeforeBytes uint64 `json:"used_before_bytes"`
	WrittenBytes    int64  `json:"written_bytes"`
	Files           int    `json:"files"`
	FillNs          int64  `json:"fill_ns"`
	// Removed is true once the fill files are gone again.
	Removed bool `json:"removed"`
}
