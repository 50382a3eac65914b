package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/fiojob"
	"github.com/clydebench/clyde/internal/blockreport"
	"github.com/clydebench/clyde/internal/coord"
	"github.com/clydebench/clyde/internal/launch"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// rankFlags are the many-client flags of clyde fs that clyde block and
// copy take too.
func rankFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range jobFlags() {
		switch f.Names()[0] {
		case "ranks", "coordinator", "token-file", "per-rank", "rank-timeout":
			out = append(out, f)
		}
	}
	return out
}

// stepRanks is this process's part in a many-client block or copy run:
// every step (a block group, a copy set) starts on every rank at once, and
// rank 0 keeps every rank's part T of every step to merge.
type stepRanks[T any] struct {
	rj *rankJob
	// finished is this rank's count in the current step once it ended
	// here, -1 before: what rank 0 asks for when the first rank is done.
	finished atomic.Int64

	mu    sync.Mutex
	steps []gatheredStep[T] // rank 0
}

type gatheredStep[T any] struct {
	step    int
	ranks   []T
	first   int
	atFirst []int64
}

func newStepRanks[T any](rj *rankJob) *stepRanks[T] {
	s := &stepRanks[T]{rj: rj}
	s.finished.Store(-1)
	return s
}

func stepPhase(step int) string { return "step/" + strconv.Itoa(step) }

// before is the common start of a step.
func (s *stepRanks[T]) before(ctx context.Context, step int, done func() int64) error {
	s.finished.Store(-1)
	return s.rj.job.Begin(ctx, stepPhase(step), func() int64 {
		if n := s.finished.Load(); n >= 0 {
			return n
		}
		return done()
	})
}

// after sends this rank's part of a step (count items) to rank 0 and waits
// for every rank.
func (s *stepRanks[T]) after(ctx context.Context, step int, mine T, count int64) error {
	s.finished.Store(count)
	out, err := s.rj.job.End(ctx, stepPhase(step), mine)
	if err != nil || out == nil {
		return err
	}
	g := gatheredStep[T]{step: step, first: out.First, atFirst: out.AtFirst}
	for r, raw := range out.Data {
		var v T
		if err := json.Unmarshal(raw, &v); err != nil {
			return fmt.Errorf("rank %d's step %d: %w", r, step+1, err)
		}
		g.ranks = append(g.ranks, v)
	}
	s.mu.Lock()
	s.steps = append(s.steps, g)
	s.mu.Unlock()
	return nil
}

// gathered is rank 0's steps, in order.
func (s *stepRanks[T]) gathered() []gatheredStep[T] {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.steps)
}

// jobOf is the job section of rank 0's result: who ran where.
func (s *stepRanks[T]) jobOf(files string) *result.RankJob {
	job := &result.RankJob{Launcher: s.rj.info.Launcher, Ranks: s.rj.info.Size, Files: files}
	hostSet := map[string]bool{}
	for _, p := range s.rj.job.Peers() {
		hostSet[p.Host] = true
	}
	for h := range hostSet {
		job.Hosts = append(job.Hosts, h)
	}
	sort.Strings(job.Hosts)
	return job
}

// rankPart is one rank's figures in one step, for the rows.
type rankPart struct {
	items, bytes, ns int64
}

// addRows adds one step's phase, rank and host rows to job; rate is the
// step's unit over a count, its bytes and a time.
func addRows[T any](job *result.RankJob, peers []coord.Peer, g gatheredStep[T], label, unit string, part func(T) rankPart, rate func(items, bytes, ns int64) float64) {
	parts := make([]rankPart, len(g.ranks))
	for r, v := range g.ranks {
		parts[r] = part(v)
	}
	p := result.JobPhase{Iteration: g.step, Test: label, RateUnit: unit, FirstRank: g.first}
	p.FirstDoneNs = parts[0].ns
	for r, x := range parts {
		p.Items += x.items
		p.Bytes += x.bytes
		p.LastDoneNs = max(p.LastDoneNs, x.ns)
		if x.ns < p.FirstDoneNs {
			p.FirstDoneNs, p.FirstRank = x.ns, r
		}
	}
	var bytesAtFirst int64
	for r, x := range parts {
		n := x.items
		if r < len(g.atFirst) && x.ns > p.FirstDoneNs {
			n = min(g.atFirst[r], n)
		}
		p.FirstDoneItems += n
		if x.items > 0 {
			bytesAtFirst += x.bytes * n / x.items
		}
	}
	p.LastDoneRate = rate(p.Items, p.Bytes, p.LastDoneNs)
	p.FirstDoneRate = rate(p.FirstDoneItems, bytesAtFirst, p.FirstDoneNs)
	job.Phases = append(job.Phases, p)
	hosts := map[string]*result.JobHostRow{}
	for _, h := range job.Hosts {
		hosts[h] = &result.JobHostRow{Iteration: g.step, Test: label, Host: h}
	}
	for r, x := range parts {
		row := result.JobRankRow{Iteration: g.step, Test: label, Rank: r, Items: x.items, Bytes: x.bytes, ElapsedNs: x.ns,
			RatePerSec: rate(x.items, x.bytes, x.ns), FirstDone: x.ns == p.FirstDoneNs, LastDone: x.ns == p.LastDoneNs}
		if r < len(peers) {
			row.Host, row.PID = peers[r].Host, peers[r].PID
		}
		if h := hosts[row.Host]; h != nil {
			h.Ranks++
			h.Items += x.items
			h.Bytes += x.bytes
			h.ElapsedNs = max(h.ElapsedNs, x.ns)
		}
		job.PerRank = append(job.PerRank, row)
	}
	for _, h := range job.Hosts {
		row := hosts[h]
		row.RatePerSec = rate(row.Items, row.Bytes, row.ElapsedNs)
		job.PerHost = append(job.PerHost, *row)
	}
}

// blockRanks is stepRanks for clyde block: a step is a group, a rank's
// part its jobs (blockbench.GroupPhases).
type blockRanks struct {
	*stepRanks[[]result.BlockJob]
	// hostRanks is how many ranks run on this rank's host.
	hostRanks int
}

// startBlockRanks joins the job the launcher started, or returns nil for
// a single process. hash is what every rank must run the same; check
// refuses what cannot run across the launcher's ranks before any hello.
func startBlockRanks(c *cli.Context, hash string, check func(size int) error) (*blockRanks, error) {
	rj, err := startStepJob(c, hash, check)
	if rj == nil || err != nil {
		return nil, err
	}
	br := &blockRanks{stepRanks: newStepRanks[[]result.BlockJob](rj)}
	hosts, err := rj.job.AllGather(rj.ctx, "hosts", rj.info.Host)
	if err != nil {
		rj.job.Abort(err)
		rj.release()
		return nil, err
	}
	for _, raw := range hosts {
		var h string
		if json.Unmarshal(raw, &h) == nil && h == rj.info.Host {
			br.hostRanks++
		}
	}
	return br, nil
}

// startStepJob detects the launcher and joins its job; nil for a single
// process.
func startStepJob(c *cli.Context, hash string, check func(size int) error) (*rankJob, error) {
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
	return rj, nil
}

// place is this rank in the plan.
func (br *blockRanks) place() *blockbench.Ranks {
	return &blockbench.Ranks{Rank: br.rj.info.Rank, Size: br.rj.info.Size, HostRanks: br.hostRanks, Phases: br}
}

// Before is the common start of group g.
func (br *blockRanks) Before(ctx context.Context, g int, done func() int64) error {
	return br.before(ctx, g, done)
}

// After sends this rank's jobs of group g to rank 0 and waits for every
// rank.
func (br *blockRanks) After(ctx context.Context, g int, jobs []result.BlockJob) error {
	return br.after(ctx, g, jobs, jobIOs(jobs))
}

func jobIOs(jobs []result.BlockJob) int64 {
	var n int64
	for _, j := range jobs {
		n += j.Read.TotalIOs + j.Write.TotalIOs + j.Trim.TotalIOs
	}
	return n
}

func blockPart(jobs []result.BlockJob) rankPart {
	p := rankPart{items: jobIOs(jobs)}
	for _, j := range jobs {
		p.bytes += j.Read.IOBytes + j.Write.IOBytes + j.Trim.IOBytes
		p.ns = max(p.ns, j.ElapsedNs)
	}
	return p
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
	files, what := "rank", "its own file, NAME.rankN"
	if res.Target.Kind == "block_device" {
		files, what = "host", "its host's block device"
	}
	job := br.jobOf(files)
	steps := br.gathered()
	groups := make([][][]result.BlockJob, len(steps))
	for i, g := range steps {
		groups[i] = g.ranks
	}
	if err := blockbench.MergeRankGroups(res, groups, fiojob.Shape); err != nil {
		return err
	}
	for _, g := range steps {
		addRows(job, br.rj.job.Peers(), g, groupLabel(g.ranks[0]), "IOPS", blockPart, func(items, _, ns int64) float64 { return perSec(float64(items), ns) })
	}
	res.Job = job
	if files == "rank" {
		// The target is the file the user named, each rank's copy of it
		// NAME.rankN: the history knows the job by that name.
		suffix := blockbench.RankFileName("", br.rj.info.Rank)
		res.Target.Path = strings.TrimSuffix(res.Target.Path, suffix)
		res.Target.ResolvedPath = strings.TrimSuffix(res.Target.ResolvedPath, suffix)
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

// perSec is v per second over ns.
func perSec(v float64, ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	return v * 1e9 / float64(ns)
}

// blockHash names the job every rank must run the same: the plan's
// workloads and rules, without what is each rank's or each host's (the
// target's path, where the report goes, the progress line, the command
// line's own words).
func blockHash(p blockbench.Plan) (string, error) {
	p.Warn, p.CommandLine, p.AfterGroup, p.WriteLog, p.Progress, p.Ranks = nil, nil, nil, nil, nil, nil
	// The file's name may differ from host to host (a shared filesystem
	// mounted elsewhere), as fs's -d may.
	groups := make([]blockbench.Group, len(p.Groups))
	for i, g := range p.Groups {
		groups[i] = slices.Clone(g)
		for k := range groups[i] {
			groups[i][k].Filename = ""
			if fs := groups[i][k].Files; fs != nil {
				c := *fs
				c.Names = nil // a file set's names, as the one file's
				groups[i][k].Files = &c
			}
		}
	}
	p.Groups = groups
	return hashOf(p)
}

// blockJobHash is blockHash for a job from flags.
func blockJobHash(j blockbench.Job) (string, error) {
	j.Warn, j.CommandLine, j.WriteLog, j.Progress, j.Ranks = nil, nil, nil, nil, nil
	j.Filename = "" // may differ from host to host, as fs's -d may
	return hashOf(j)
}

// hashOf is the SHA-256 of v's JSON, the options hash a rank's hello
// carries.
func hashOf(v any) (string, error) {
	b, err := json.Marshal(v)
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
		case !jobFile && c.String("profile") != "":
			return result.Usagef("--profile", "%s is one machine's preset; across %d ranks run a job file or fio-style flags", c.String("profile"), size)
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
	if res != nil && !jobAborted(runErr) && c.Bool("per-rank") && !c.Bool("silent") {
		if err := blockreport.WriteAll(c.App.Writer, formats, res); err != nil && runErr == nil {
			runErr = err
		}
	}
	return runErr
}
