package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/internal/coord"
	"github.com/clydebench/clyde/internal/launch"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// blockRanksFlags are the many-client flags clyde block shares with fs.
func blockRanksFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range jobFlags() {
		switch f.Names()[0] {
		case "ranks", "coordinator", "token-file", "per-rank", "rank-timeout":
			out = append(out, f)
		}
	}
	return out
}

// blockRanks is this process's part in a many-client clyde block: every
// group starts on every rank at once (blockbench.GroupPhases), and rank 0
// keeps every rank's jobs of every group to merge.
type blockRanks struct {
	rj *rankJob
	// hostRanks is how many ranks run on this rank's host.
	hostRanks int
	// finished is this rank's I/Os in the current group once it ended
	// here, -1 before: what rank 0 asks for when the first rank is done.
	finished atomic.Int64

	mu     sync.Mutex
	groups []blockGathered // rank 0
}

type blockGathered struct {
	group   int
	ranks   [][]result.BlockJob
	first   int
	atFirst []int64
}

// startBlockRanks joins the job the launcher started, or returns nil for
// a single process. hash is what every rank must run the same.
func startBlockRanks(c *cli.Context, hash string, check func(size int) error) (*blockRanks, error) {
	info, err := launch.Detect(os.Getenv, launch.Flags{Ranks: c.Int("ranks"), Coordinator: c.String("coordinator")}, sysinfo.Hostname(), launch.OpenFD)
	if err != nil {
		return nil, err
	}
	if info.Size == 1 {
		return nil, info.Close()
	}
	if err := check(info.Size); err != nil {
		_ = info.Close()
		return nil, err
	}
	rj, err := joinJob(c, info, hash)
	if err != nil {
		_ = info.Close()
		return nil, err
	}
	br := &blockRanks{rj: rj}
	br.finished.Store(-1)
	hosts, err := rj.job.AllGather(rj.ctx, "hosts", info.Host)
	if err != nil {
		rj.job.Abort(err)
		rj.release()
		return nil, err
	}
	for _, raw := range hosts {
		var h string
		if json.Unmarshal(raw, &h) == nil && h == info.Host {
			br.hostRanks++
		}
	}
	return br, nil
}

// place is this rank in the plan.
func (br *blockRanks) place() *blockbench.Ranks {
	return &blockbench.Ranks{Rank: br.rj.info.Rank, Size: br.rj.info.Size, HostRanks: br.hostRanks, Phases: br}
}

func groupPhase(g int) string { return "group/" + strconv.Itoa(g) }

// Before is the common start of group g.
func (br *blockRanks) Before(ctx context.Context, g int, done func() int64) error {
	br.finished.Store(-1)
	return br.rj.job.Begin(ctx, groupPhase(g), func() int64 {
		if n := br.finished.Load(); n >= 0 {
			return n
		}
		return done()
	})
}

// After sends this rank's jobs of group g to rank 0 and waits for every
// rank.
func (br *blockRanks) After(ctx context.Context, g int, jobs []result.BlockJob) error {
	br.finished.Store(jobIOs(jobs))
	out, err := br.rj.job.End(ctx, groupPhase(g), jobs)
	if err != nil || out == nil {
		return err
	}
	gg := blockGathered{group: g, first: out.First, atFirst: out.AtFirst}
	for r, raw := range out.Data {
		var js []result.BlockJob
		if err := json.Unmarshal(raw, &js); err != nil {
			return fmt.Errorf("rank %d's jobs of group %d: %w", r, g+1, err)
		}
		gg.ranks = append(gg.ranks, js)
	}
	br.mu.Lock()
	br.groups = append(br.groups, gg)
	br.mu.Unlock()
	return nil
}

func jobIOs(jobs []result.BlockJob) int64 {
	var n int64
	for _, j := range jobs {
		n += j.Read.TotalIOs + j.Write.TotalIOs + j.Trim.TotalIOs
	}
	return n
}

func jobBytes(jobs []result.BlockJob) int64 {
	var n int64
	for _, j := range jobs {
		n += j.Read.IOBytes + j.Write.IOBytes + j.Trim.IOBytes
	}
	return n
}

func jobsElapsed(jobs []result.BlockJob) int64 {
	var ns int64
	for _, j := range jobs {
		ns = max(ns, j.ElapsedNs)
	}
	return ns
}

// finish ends this rank's part (rankJob.end); on rank 0 the result
// becomes the job's.
func (br *blockRanks) finish(ctx context.Context, res *result.Block, runErr error) error {
	return br.rj.end(ctx, runErr, func() error {
		if res == nil {
			return nil
		}
		return br.merge(res)
	})
}

// merge turns rank 0's own result into the job's: every job summed over
// the ranks (blockbench.MergeRankGroups), and the job's per-group,
// per-rank and per-host rows.
func (br *blockRanks) merge(res *result.Block) error {
	br.mu.Lock()
	defer br.mu.Unlock()
	peers := br.rj.job.Peers()
	job := &result.BlockRanks{Launcher: br.rj.info.Launcher, Ranks: br.rj.info.Size, Files: "rank"}
	if res.Target.Kind == "block_device" {
		job.Files = "host"
	}
	hostSet := map[string]bool{}
	for _, p := range peers {
		hostSet[p.Host] = true
	}
	for h := range hostSet {
		job.Hosts = append(job.Hosts, h)
	}
	sort.Strings(job.Hosts)
	groups := make([][][]result.BlockJob, len(br.groups))
	for i, g := range br.groups {
		groups[i] = g.ranks
	}
	if err := blockbench.MergeRankGroups(res, groups); err != nil {
		return err
	}
	for _, g := range br.groups {
		job.Phases = append(job.Phases, blockPhase(g))
		job.PerRank = append(job.PerRank, blockRankRows(g, peers)...)
		job.PerHost = append(job.PerHost, blockHostRows(g, peers, job.Hosts)...)
	}
	res.Job = job
	what := "its own file, NAME.rankN"
	if job.Files == "host" {
		what = "its host's block device"
	}
	res.Notes = append(res.Notes, fmt.Sprintf("%d ranks on %d host(s) (%s), each on %s: every job's I/Os and bytes are summed over the ranks and its runtime is the slowest rank's (fio's \"All clients\", mdtest's last done); disk_util is rank 0's host's", job.Ranks, len(job.Hosts), job.Launcher, what))
	return nil
}

func groupLabel(jobs []result.BlockJob) string {
	names := make([]string, len(jobs))
	for i, j := range jobs {
		names[i] = j.JobName
	}
	return strings.Join(names, "+")
}

func iops(ios, ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	return float64(ios) * 1e9 / float64(ns)
}

func blockPhase(g blockGathered) result.JobPhase {
	p := result.JobPhase{Iteration: g.group, Test: groupLabel(g.ranks[0]), RateUnit: "IOPS", FirstRank: g.first}
	p.FirstDoneNs = jobsElapsed(g.ranks[0])
	for r, js := range g.ranks {
		p.Items += jobIOs(js)
		p.Bytes += jobBytes(js)
		ns := jobsElapsed(js)
		p.LastDoneNs = max(p.LastDoneNs, ns)
		if ns < p.FirstDoneNs {
			p.FirstDoneNs, p.FirstRank = ns, r
		}
	}
	for r, js := range g.ranks {
		n := jobIOs(js)
		if r < len(g.atFirst) && jobsElapsed(js) > p.FirstDoneNs {
			n = min(g.atFirst[r], n)
		}
		p.FirstDoneItems += n
	}
	p.LastDoneRate = iops(p.Items, p.LastDoneNs)
	p.FirstDoneRate = iops(p.FirstDoneItems, p.FirstDoneNs)
	return p
}

func blockRankRows(g blockGathered, peers []coord.Peer) []result.JobRankRow {
	var rows []result.JobRankRow
	first, last := jobsElapsed(g.ranks[0]), int64(0)
	for _, js := range g.ranks {
		first, last = min(first, jobsElapsed(js)), max(last, jobsElapsed(js))
	}
	for r, js := range g.ranks {
		ns := jobsElapsed(js)
		row := result.JobRankRow{Iteration: g.group, Test: groupLabel(js), Rank: r, Items: jobIOs(js), Bytes: jobBytes(js),
			ElapsedNs: ns, RatePerSec: iops(jobIOs(js), ns), FirstDone: ns == first, LastDone: ns == last}
		if r < len(peers) {
			row.Host, row.PID = peers[r].Host, peers[r].PID
		}
		rows = append(rows, row)
	}
	return rows
}

func blockHostRows(g blockGathered, peers []coord.Peer, hosts []string) []result.JobHostRow {
	var rows []result.JobHostRow
	for _, h := range hosts {
		row := result.JobHostRow{Iteration: g.group, Test: groupLabel(g.ranks[0]), Host: h}
		for r, js := range g.ranks {
			if r < len(peers) && peers[r].Host == h {
				row.Ranks++
				row.Items += jobIOs(js)
				row.Bytes += jobBytes(js)
				row.ElapsedNs = max(row.ElapsedNs, jobsElapsed(js))
			}
		}
		row.RatePerSec = iops(row.Items, row.ElapsedNs)
		rows = append(rows, row)
	}
	return rows
}

// blockHash names the job every rank must run the same: the plan's
// workloads and rules, without what is each rank's or each host's (where
// the report goes, the progress line, the command line's own words).
func blockHash(p blockbench.Plan) (string, error) {
	p.Warn, p.CommandLine, p.AfterGroup, p.WriteLog, p.Progress, p.Ranks = nil, nil, nil, nil, nil, nil
	b, err := json.Marshal(p)
	if err != nil {
		return "", fmt.Errorf("the job's options for the other ranks: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// blockJobHash is blockHash for a job from flags.
func blockJobHash(j blockbench.Job) (string, error) {
	j.Warn, j.CommandLine, j.WriteLog, j.Progress, j.Ranks = nil, nil, nil, nil, nil
	b, err := json.Marshal(j)
	if err != nil {
		return "", fmt.Errorf("the job's options for the other ranks: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// joinBlockRanks joins a many-rank job when a launcher started this
// process, after refusing what cannot run across ranks.
func joinBlockRanks(c *cli.Context, jobFile bool, plan blockbench.Plan, job blockbench.Job, logNames []string) (*blockRanks, error) {
	var hash string
	var err error
	if jobFile {
		hash, err = blockHash(plan)
	} else {
		hash, err = blockJobHash(job)
	}
	if err != nil {
		return nil, err
	}
	return startBlockRanks(c, hash, func(size int) error {
		switch {
		case !jobFile && job.Profile != blockbench.ProfileNone:
			return result.Usagef("--profile", "%s is one machine's preset; across %d ranks run a job file or fio-style flags", job.Profile, size)
		case len(logNames) > 0:
			return result.Usagef("--write_lat_log", "logs are written by one process; across %d ranks the JSON's per-rank rows and merged histograms hold what they would", size)
		}
		return nil
	})
}

// rankBlockAction is a rank other than 0: it runs its part and prints
// nothing (its own report with --per-rank); rank 0 reports the job.
func rankBlockAction(c *cli.Context, br *blockRanks, jobFile bool, plan blockbench.Plan, job blockbench.Job, formats []string) error {
	var res *result.Block
	var runErr error
	if jobFile {
		plan.Progress = nil
		res, runErr = blockbench.RunPlan(br.rj.ctx, plan)
	} else {
		job.Progress = nil
		res, runErr = blockbench.Run(br.rj.ctx, job)
	}
	runErr = br.finish(c.Context, res, runErr)
	if res != nil && c.Bool("per-rank") && !c.Bool("silent") {
		if err := blockreport.WriteAll(c.App.Writer, formats, res); err != nil && runErr == nil {
			runErr = err
		}
	}
	return runErr
}
