package result

// FSJob is a clyde fs run across many clients (ranks started by mpiexec,
// srun or a Kubernetes Indexed Job): who ran, and every phase as a whole,
// per rank and per host. The run's Tests hold the aggregate: items summed
// over the ranks, elapsed the slowest rank's ("last done", as mdtest
// computes its rates), latency histograms merged.
type FSJob struct {
	Launcher string `json:"launcher"`
	Ranks    int    `json:"ranks"`
	// CopiesPerRank is -c on every rank; Config.Concurrency is Ranks x it.
	CopiesPerRank int `json:"copies_per_rank"`
	// RankShift is --rank-shift (mdtest's -N): each rank's stat and delete
	// phases used the files rank+RankShift created; 0 is each its own.
	RankShift int `json:"rank_shift,omitempty"`
	// SharedDir is --shared-dir: every rank worked in one tree rank 0
	// made, not in a private directory of its own.
	SharedDir bool         `json:"shared_dir,omitempty"`
	Hosts     []string     `json:"hosts"`
	Phases    []JobPhase   `json:"phases"`
	PerRank   []JobRankRow `json:"per_rank"`
	PerHost   []JobHostRow `json:"per_host"`
}

// JobPhase is one phase of one iteration across every rank. Every rank
// starts it at a common barrier. LastDone is when the slowest rank finished
// (mdtest: items / that time); FirstDone is when the first one did, with
// the items all ranks had done by then (elbencho's "first done"), so the
// gap between the two rates shows stragglers.
type JobPhase struct {
	Iteration      int     `json:"iteration"`
	Test           string  `json:"test"`
	Items          int64   `json:"items"`
	Bytes          int64   `json:"bytes"`
	RateUnit       string  `json:"rate_unit"`
	LastDoneNs     int64   `json:"last_done_ns"`
	LastDoneRate   float64 `json:"last_done_rate_per_sec"`
	FirstRank      int     `json:"first_rank"`
	FirstDoneNs    int64   `json:"first_done_ns"`
	FirstDoneItems int64   `json:"first_done_items"`
	FirstDoneRate  float64 `json:"first_done_rate_per_sec"`
}

// JobRankRow is one rank's part of one phase.
type JobRankRow struct {
	Iteration  int     `json:"iteration"`
	Test       string  `json:"test"`
	Rank       int     `json:"rank"`
	Host       string  `json:"host"`
	PID        int     `json:"pid"`
	Items      int64   `json:"items"`
	Bytes      int64   `json:"bytes"`
	ElapsedNs  int64   `json:"elapsed_ns"`
	RatePerSec float64 `json:"rate_per_sec"`
	FirstDone  bool    `json:"first_done,omitempty"`
	LastDone   bool    `json:"last_done,omitempty"`
	// FilesOfRank is, with a rank shift, the rank whose files this rank's
	// stat or delete phase used.
	FilesOfRank *int `json:"files_of_rank,omitempty"`
}

// JobHostRow is one host's ranks in one phase: items summed, elapsed the
// host's slowest rank's.
type JobHostRow struct {
	Iteration  int     `json:"iteration"`
	Test       string  `json:"test"`
	Host       string  `json:"host"`
	Ranks      int     `json:"ranks"`
	Items      int64   `json:"items"`
	Bytes      int64   `json:"bytes"`
	ElapsedNs  int64   `json:"elapsed_ns"`
	RatePerSec float64 `json:"rate_per_sec"`
}

// RankJob is a clyde block or clyde copy run across many clients: who
// ran, and each step (a block group, a copy set with its method) as a
// whole, per rank and per host. The run's own figures hold the aggregate:
// counts summed over the slowest rank's time (fio's client "All clients",
// mdtest's last done), latency histograms merged. In its rows a phase's
// Iteration is the step (from 0) and Test its name: the group's jobs, or
// the set and method; Items are I/Os (block, RateUnit "IOPS") or files
// (copy, RateUnit "MB/s" of the bytes).
type RankJob struct {
	Launcher string   `json:"launcher"`
	Ranks    int      `json:"ranks"`
	Hosts    []string `json:"hosts"`
	// Files is where each rank worked: "rank" a file of its own
	// (NAME.rankN), "host" its host's block device, "private-dir" a
	// private run directory of its own in the shared directory.
	Files   string       `json:"files"`
	Phases  []JobPhase   `json:"phases"`
	PerRank []JobRankRow `json:"per_rank"`
	PerHost []JobHostRow `json:"per_host"`
}
