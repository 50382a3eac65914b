package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/fsbench"
	"github.com/clydebench/clyde/internal/buildinfo"
	"github.com/clydebench/clyde/internal/coord"
	"github.com/clydebench/clyde/internal/fsreport"
	"github.com/clydebench/clyde/internal/input"
	"github.com/clydebench/clyde/internal/latency"
	"github.com/clydebench/clyde/internal/launch"
	"github.com/clydebench/clyde/internal/rundir"
	"github.com/clydebench/clyde/internal/sysinfo"
	"github.com/clydebench/clyde/result"
)

// jobFlags are the many-client flags of clyde fs.
func jobFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "ranks", Usage: "the job's number of ranks where the launcher does not say (a Kubernetes Indexed Job: its completions); checked against the launcher's where it does"},
		&cli.StringFlag{Name: "coordinator", Usage: "rank 0's `HOST:PORT` (Open MPI, an Indexed Job: JOB-0.SERVICE:PORT, plain srun: default the step's first node, port 7787); under mpiexec or srun --mpi=pmi2 rank 0 publishes it itself"},
		&cli.StringFlag{Name: "token-file", Usage: "`FILE` holding the job's secret, the same on every rank (a Kubernetes Secret); under PMI rank 0 makes one and shares it"},
		&cli.BoolFlag{Name: "per-rank", Usage: "many ranks: every rank also prints its own tables and CSV (rank 0 prints the job's)"},
		&cli.DurationFlag{Name: "rank-timeout", Value: coord.DefaultHelloTimeout, Usage: "many ranks: how long every rank waits at the launcher's barrier (mpiexec, srun --mpi=pmi2) and rank 0 for every rank to connect"},
		&cli.BoolFlag{Name: "shared-dir", Usage: "many ranks (mdtest without -u): every rank creates its small files in one tree that rank 0 makes, each name prefixed with its rank and copy, instead of a private directory each"},
		&cli.IntFlag{Name: "rank-shift", Usage: "many ranks (mdtest's -N): each rank stats and deletes the small files of the rank `N` places on, so the client that created them is not the one whose cache answers; every rank's -d must show one shared directory"},
	}
}

// pmiKey is where rank 0 publishes its token and addresses in the PMI KVS.
const pmiKey = "clyde-coordinator"

// maxTokenFile bounds --token-file.
const maxTokenFile = 4096

// rankJob is this process's part in a many-client clyde fs: it holds each
// phase until every rank is ready (fsbench.Phases) and, on rank 0, keeps
// every rank's result of every phase.
type rankJob struct {
	info *launch.Info
	job  *coord.Job
	ctx  context.Context
	// finished is this rank's final operation count of the current
	// phase once it ended here, -1 before: the count rank 0 asks for
	// when the first rank is done.
	finished atomic.Int64
	// parents are the directories the job's ranks share, locked by
	// rank 0 for them.
	parents []*rundir.Parent

	// shift is --rank-shift; seed, when shift is set and no seed was
	// given, is the job's (from its token), the same on every rank, so
	// that a rank's names are its peer's.
	shift  int
	seed   uint32
	token  []byte
	shared bool

	mu     sync.Mutex
	phases []gathered // rank 0
}

type gathered struct {
	iteration int
	test      result.FSTest
	ranks     []result.FSTestResult
	first     int
	atFirst   []int64
}

// startRanks joins the job the launcher started, or returns nil for a
// single process. Nothing is written before every rank said hello with the
// same options.
func startRanks(c *cli.Context, o fsbench.Options) (*rankJob, error) {
	info, err := launch.Detect(os.Getenv, launch.Flags{Ranks: c.Int("ranks"), Coordinator: c.String("coordinator")}, sysinfo.Hostname(), launch.OpenFD)
	if err != nil {
		return nil, err
	}
	if info.Size == 1 {
		return nil, info.Close()
	}
	rj, err := joinRanks(c, o, info)
	if err != nil {
		_ = info.Close()
		return nil, err
	}
	return rj, nil
}

func joinRanks(c *cli.Context, o fsbench.Options, info *launch.Info) (*rankJob, error) {
	if c.IsSet("auto") {
		return nil, result.Usagef("--auto", "picks sizes from one machine's speed; with %d ranks give -s and -n", info.Size)
	}
	if n := o.RankShift; n > 0 && n%info.Size == 0 {
		return nil, result.Usagef("--rank-shift", "a shift of %d among %d ranks lands every rank on its own files; give 1 to %d", n, info.Size, info.Size-1)
	}
	rj, err := joinJob(c, info, optionsHash(o))
	if err != nil {
		return nil, err
	}
	rj.shift, rj.shared = o.RankShift, o.SharedDir
	if sum := sha256.Sum256(rj.token); rj.shift > 0 {
		rj.seed = binary.BigEndian.Uint32(sum[:4])
	}
	if info.Rank == 0 {
		// One job at a time on -d, and no plain run beside it: rank 0
		// holds the run lock the ranks' fsbench.Run leave to it.
		if err := rj.lockDir(o.Dir); err != nil {
			rj.job.Abort(err)
			return nil, err
		}
	}
	return rj, nil
}

// joinJob joins the job the launcher started: rank 0 listens and publishes
// its address and a token through PMI (or is given them), every rank says
// hello with hash, the options it must share with every other, and
// nothing is written before every rank did.
func joinJob(c *cli.Context, info *launch.Info, hash string) (*rankJob, error) {
	token, exposed, err := jobToken(c, info)
	if err != nil {
		return nil, err
	}
	timeout := c.Duration("rank-timeout")
	cfg := coord.Config{Rank: info.Rank, Size: info.Size, Host: info.Host, Version: buildinfo.Version(),
		OptionsHash: hash, HelloTimeout: timeout, Job: info.JobID, TokenExposed: exposed}
	rj := &rankJob{info: info}
	rj.finished.Store(-1)
	if info.Rank == 0 {
		ln, err := rankZeroListener(c, info, &token)
		if err != nil {
			return nil, err
		}
		cfg.Token = []byte(token)
		job, err := coord.Lead(c.Context, ln, cfg)
		if err != nil {
			return nil, err
		}
		rj.job = job
		warnExposedToken(c, job.Peers())
	} else {
		addrs := info.DialAddrs()
		if info.KVS != nil {
			if err := info.KVS.Fence(c.Context, timeout); err != nil {
				return nil, fmt.Errorf("rank %d: %w", info.Rank, err)
			}
			v, err := info.KVS.Get(pmiKey)
			if err != nil {
				return nil, fmt.Errorf("rank %d: rank 0's address: %w", info.Rank, err)
			}
			parts := strings.Split(v, ",")
			token, addrs = parts[0], parts[1:]
		}
		cfg.Token = []byte(token)
		job, err := coord.Join(c.Context, addrs, cfg)
		if err != nil {
			return nil, err
		}
		rj.job = job
	}
	rj.ctx = rj.job.Context()
	rj.token = cfg.Token
	// PMI's work is done: finalize now, so that the launcher sees a rank
	// that dies later as a process that exited, not a broken PMI client
	// (Hydra then kills every rank at once, before they can clean up).
	if err := info.Close(); err != nil {
		rj.job.Abort(err)
		return nil, fmt.Errorf("rank %d: PMI finalize: %w", info.Rank, err)
	}
	return rj, nil
}

func (rj *rankJob) lockDir(dir string) error {
	p, err := rundir.OpenParent("-d", dir, true)
	if err != nil {
		return err
	}
	rj.parents = append(rj.parents, p)
	return nil
}

// rankZeroListener opens rank 0's listener on the addresses the ranks dial
// (coord.ListenFor, coord.ListenPublished). Under PMI it also makes the
// job's token, publishes it with those addresses, and waits at the
// launcher's barrier for every rank, at most --rank-timeout.
func rankZeroListener(c *cli.Context, info *launch.Info, token *string) (net.Listener, error) {
	if info.KVS == nil {
		ln, note, err := coord.ListenFor(c.Context, info.CoordinatorHost(), info.CoordinatorPorts())
		if err != nil {
			return nil, fmt.Errorf("rank 0: listen for the other ranks on %s: %w", info.Coordinator, err)
		}
		if note != "" {
			fmt.Fprintln(c.App.ErrWriter, "clyde: note: "+note)
		}
		return ln, nil
	}
	ln, addrs, err := coord.ListenPublished()
	if err != nil {
		return nil, fmt.Errorf("rank 0: listen for the other ranks: %w", err)
	}
	*token = coord.NewToken()
	if err := info.KVS.Put(pmiKey, *token+","+strings.Join(addrs, ",")); err != nil {
		ln.Close()
		return nil, fmt.Errorf("rank 0: publish the coordinator: %w", err)
	}
	if err := info.KVS.Fence(c.Context, c.Duration("rank-timeout")); err != nil {
		ln.Close()
		return nil, fmt.Errorf("rank 0: %w", err)
	}
	return ln, nil
}

// jobToken is --token-file's secret, and whether other users can read or
// write the file; under PMI rank 0 makes one instead.
func jobToken(c *cli.Context, info *launch.Info) (string, bool, error) {
	path := c.String("token-file")
	if path == "" {
		if info.KVS != nil {
			return "", false, nil
		}
		return "", false, result.Usagef("--token-file", "rank %d of %d under %s: give --token-file FILE, the same secret on every rank (a Kubernetes Secret mounted as a file); without PMI the ranks cannot share one", info.Rank, info.Size, info.Launcher)
	}
	// The one reader of named inputs: a regular file (a Secret's symlinks
	// are followed), read without blocking, at most maxTokenFile+1 bytes.
	b, err := input.ReadFile(c.Context, path, maxTokenFile+1)
	if err != nil {
		return "", false, result.Usagef("--token-file", "%v", err)
	}
	tok := strings.TrimSpace(string(b))
	if len(tok) < 16 || len(b) > maxTokenFile {
		return "", false, result.Usagef("--token-file", "%s holds %d characters; want a secret of 16 or more, such as `head -c 32 /dev/urandom | base64`", path, len(tok))
	}
	return tok, tokenExposed(path), nil
}

// tokenExposed reports whether users other than the file's owner may read
// or write the token file (group or other bits; Windows has none).
func tokenExposed(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o066 != 0
}

// warnExposedToken is rank 0's one line naming the ranks whose token file
// others can read: anyone who reads it can join the job or pose as its
// rank 0.
func warnExposedToken(c *cli.Context, peers []coord.Peer) {
	var where []string
	for _, p := range peers {
		if p.TokenExposed {
			where = append(where, fmt.Sprintf("%d (%s)", p.Rank, p.Host))
		}
	}
	if len(where) == 0 {
		return
	}
	if len(where) > 8 {
		where = append(where[:8], fmt.Sprintf("and %d more", len(where)-8))
	}
	fmt.Fprintf(c.App.ErrWriter, "clyde: warning: the --token-file of rank %s can be read or written by other users: anyone who reads it can join this job or pose as its rank 0; chmod 600 it (a Kubernetes Secret: defaultMode 0400)\n", strings.Join(where, ", "))
}

// optionsHash names the benchmark every rank must run the same: the
// resolved options without what may differ from host to host (the mount
// path, the machine name, RAM, a seed nobody chose).
func optionsHash(o fsbench.Options) string {
	o.Dir, o.MachineName, o.RAMMiB, o.Progress, o.Live, o.CommandLine, o.Phases, o.Auto = "", "", 0, nil, false, nil, nil, nil
	if !o.SeedSet {
		o.Seed = 0
	}
	b, _ := json.Marshal(o)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func phaseName(iteration int, test result.FSTest) string {
	return strconv.Itoa(iteration) + "/" + test.Name()
}

// jobSeed gives o the job's seed for --rank-shift when none was given:
// every rank's names must be the ones its peer created.
func (rj *rankJob) jobSeed(o *fsbench.Options) {
	if rj.shift > 0 && !o.SeedSet && len(o.SeedNumbers) == 0 {
		o.Seed, o.SeedSet = rj.seed, true
	}
}

// PeerDirs is --rank-shift's exchange: every rank's private and test
// directory names to every rank, and the ones rank+shift made back.
func (rj *rankJob) PeerDirs(ctx context.Context, private, testDir string) (string, string, error) {
	all, err := rj.job.AllGather(ctx, "rank-shift", [2]string{private, testDir})
	if err != nil {
		return "", "", err
	}
	peer := (rj.info.Rank + rj.shift) % rj.info.Size
	var dirs [2]string
	if err := json.Unmarshal(all[peer], &dirs); err != nil {
		return "", "", fmt.Errorf("rank %d's directories: %w", peer, err)
	}
	return dirs[0], dirs[1], nil
}

// Wall is closed when the first rank reaches the phase's stonewall.
func (rj *rankJob) Wall(iteration int, test result.FSTest) <-chan struct{} {
	return rj.job.FirstArrived("wall/" + phaseName(iteration, test))
}

// AgreeStonewall combines every rank's counts at the phase's stonewall.
func (rj *rankJob) AgreeStonewall(ctx context.Context, iteration int, test result.FSTest, mine fsbench.StonewallCounts) (fsbench.StonewallCounts, error) {
	all, err := rj.job.AllGather(ctx, "wall/"+phaseName(iteration, test), mine)
	if err != nil {
		return mine, err
	}
	var job fsbench.StonewallCounts
	for r, raw := range all {
		var c fsbench.StonewallCounts
		if err := json.Unmarshal(raw, &c); err != nil {
			return mine, fmt.Errorf("rank %d's stonewall: %w", r, err)
		}
		if r == 0 {
			job = c
		} else {
			job = job.Combine(c)
		}
	}
	return job, nil
}

// SharedRank and SharedSize are this rank's place (fsbench.Sharer).
func (rj *rankJob) SharedRank() int { return rj.info.Rank }
func (rj *rankJob) SharedSize() int { return rj.info.Size }

// TokenHash names the job in a shared tree's marker without giving the
// token away.
func (rj *rankJob) TokenHash() string {
	sum := sha256.Sum256(append([]byte("clyde shared tree\x00"), rj.token...))
	return hex.EncodeToString(sum[:16])
}

// Hosts are every rank's host and pid, by rank, as rank 0 heard them.
func (rj *rankJob) Hosts() ([]string, []int) {
	var hosts []string
	var pids []int
	for _, p := range rj.job.Peers() {
		hosts, pids = append(hosts, p.Host), append(pids, p.PID)
	}
	return hosts, pids
}

// Tree gives every rank rank 0's shared tree.
func (rj *rankJob) Tree(ctx context.Context, private, testDir string) (string, string, error) {
	if rj.info.Rank != 0 {
		private, testDir = "", ""
	}
	all, err := rj.job.AllGather(ctx, "tree", [2]string{private, testDir})
	if err != nil {
		return "", "", err
	}
	var dirs [2]string
	if err := json.Unmarshal(all[0], &dirs); err != nil {
		return "", "", fmt.Errorf("rank 0's tree: %w", err)
	}
	return dirs[0], dirs[1], nil
}

// Quiesce waits, on rank 0, until every other rank is done with the tree.
func (rj *rankJob) Quiesce() { rj.job.WaitRan(coord.DefaultStopWait) }

// Before is the common start of a phase.
func (rj *rankJob) Before(ctx context.Context, iteration int, test result.FSTest, done func() int64) error {
	rj.finished.Store(-1)
	return rj.job.Begin(ctx, phaseName(iteration, test), func() int64 {
		if n := rj.finished.Load(); n >= 0 {
			return n
		}
		return done()
	})
}

// After sends this rank's result to rank 0 and waits for every rank.
func (rj *rankJob) After(ctx context.Context, iteration int, test result.FSTest, tr *result.FSTestResult) error {
	rj.finished.Store(tr.Ops)
	out, err := rj.job.End(ctx, phaseName(iteration, test), tr)
	if err != nil || out == nil {
		return err
	}
	g := gathered{iteration: iteration, test: test, first: out.First, atFirst: out.AtFirst}
	for r, raw := range out.Data {
		var t result.FSTestResult
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("rank %d's result: %w", r, err)
		}
		t.Test = test
		g.ranks = append(g.ranks, t)
	}
	rj.mu.Lock()
	rj.phases = append(rj.phases, g)
	rj.mu.Unlock()
	return nil
}

// finish ends this rank's part: a failed or interrupted rank tells the
// others; a rank stopped by another's failure says which. Either way it
// leaves with Stop, once every rank has cleaned up, so that no rank's exit
// reads as a lost rank to one still removing its files (Hydra would sum
// 130 and 1 into 131). On rank 0 a finished job's result becomes the
// job's: every rank merged.
func (rj *rankJob) finish(ctx context.Context, res *result.FS, runErr error) error {
	return rj.end(ctx, runErr, func() error {
		if res == nil {
			return nil
		}
		return rj.merge(res)
	})
}

// end is finish for any engine: merge, on rank 0 of a job that went well,
// makes its result the job's. A job that did not finish ends every rank
// with an *abortedJob: the same exit code on all (the job's verdict), and
// no result printed.
func (rj *rankJob) end(ctx context.Context, runErr error, merge func() error) error {
	defer rj.release()
	rj.job.Ran() // done with anything the ranks share: rank 0 may remove it
	if runErr == nil {
		if err := rj.job.Close(ctx); err != nil {
			runErr = err
		} else if rj.info.Rank == 0 {
			if err := merge(); err != nil {
				return &abortedJob{err: err}
			}
			return nil
		} else {
			return nil
		}
	}
	var ae *coord.AbortError
	if abort := rj.job.Err(); errors.As(abort, &ae) && ae.Rank != rj.info.Rank {
		runErr = fmt.Errorf("job aborted: %w", ae)
	}
	rj.job.Stop(runErr, coord.DefaultStopWait)
	return rj.aborted(runErr)
}

// aborted is this rank's error in a job that did not finish: its own line,
// or the job's abort when another rank ended it, and the exit code of the
// job's verdict (rank 0's, told to every rank), so that every rank exits
// alike (see abortedJob).
func (rj *rankJob) aborted(runErr error) error {
	interrupted := errors.Is(runErr, context.Canceled) || errors.Is(runErr, errInterrupted)
	if v := rj.job.Verdict(); v != nil {
		interrupted = v.Interrupted
		if v.Rank != rj.info.Rank {
			runErr = fmt.Errorf("job aborted: %w", v)
		}
	}
	return &abortedJob{err: runErr, interrupted: interrupted}
}

// abortedJob is a rank's end in a many-client job that did not finish: its
// message is the rank's line, and its exit code is the job's, the same on
// every rank: 130 when the job was interrupted, else 1, whatever this rank's
// own error was (a usage error found on one rank is 1 here). Hydra ORs the
// ranks' codes, so a 2 beside a 1 would read as 3, "regression found"; srun
// takes the highest. No result is printed for such a job (jobAborted).
type abortedJob struct {
	err         error
	interrupted bool
}

func (e *abortedJob) Error() string { return e.err.Error() }

// Unwrap is context.Canceled for an interrupted job (exit 130), nothing
// otherwise: the rank's own error's kind (usage, say) no longer decides.
func (e *abortedJob) Unwrap() error {
	if e.interrupted {
		return context.Canceled
	}
	return nil
}

// jobAborted reports whether err ends a many-client job that did not
// finish: its ranks print no result, not even rank 0's own part (a CSV
// line that `tail -1` would collect as the job's).
func jobAborted(err error) bool {
	var aj *abortedJob
	return errors.As(err, &aj)
}

func (rj *rankJob) release() {
	for _, p := range rj.parents {
		_ = p.Close()
	}
	rj.parents = nil
	_ = rj.info.Close()
}

// merge turns rank 0's own result into the job's: each test summed over the
// ranks with the slowest rank's time, histograms merged, and the job's
// per-phase, per-rank and per-host rows.
func (rj *rankJob) merge(res *result.FS) error {
	peers := rj.job.Peers()
	job := &result.FSJob{Launcher: rj.info.Launcher, Ranks: rj.info.Size, CopiesPerRank: res.Config.Concurrency, RankShift: rj.shift, SharedDir: rj.shared}
	hostSet := map[string]bool{}
	for _, p := range peers {
		hostSet[p.Host] = true
	}
	for h := range hostSet {
		job.Hosts = append(job.Hosts, h)
	}
	sort.Strings(job.Hosts)
	res.Config.Concurrency *= rj.info.Size
	for _, g := range rj.phases {
		run := findRun(res, g.iteration)
		if run == nil {
			continue
		}
		merged, err := mergeTest(g)
		if err != nil {
			return err
		}
		// rank 0's stonewall is already the job's (AgreeStonewall)
		merged.Flush, merged.Cache, merged.Notes, merged.Stonewall = run.Tests[g.test].Flush, run.Tests[g.test].Cache, run.Tests[g.test].Notes, run.Tests[g.test].Stonewall // FlushNs: the longest rank's (mergeTest)
		run.Tests[g.test] = merged
		job.Phases = append(job.Phases, jobPhase(g, merged))
		job.PerRank = append(job.PerRank, rankRows(g, peers, merged.ElapsedNs, rj.shift)...)
		job.PerHost = append(job.PerHost, hostRows(g, peers, job.Hosts)...)
	}
	res.Job = job
	return nil
}

func findRun(res *result.FS, iteration int) *result.FSRun {
	for i := range res.Runs {
		if res.Runs[i].Iteration == iteration {
			return &res.Runs[i]
		}
	}
	return nil
}

func mergeTest(g gathered) (result.FSTestResult, error) {
	m := result.FSTestResult{Test: g.test, Ran: true, CPUKnown: true, Direct: g.ranks[0].Direct}
	lat := latency.New()
	for r, t := range g.ranks {
		m.Ops += t.Ops
		m.Bytes += t.Bytes
		m.ElapsedNs = max(m.ElapsedNs, t.ElapsedNs)
		m.FlushNs = max(m.FlushNs, t.FlushNs)
		m.CPUUserNs += t.CPUUserNs
		m.CPUSysNs += t.CPUSysNs
		m.CPUKnown = m.CPUKnown && t.CPUKnown
		m.Ran = m.Ran && t.Ran
		rec, err := latency.FromSummary(t.Latency)
		if err != nil {
			return m, fmt.Errorf("rank %d's %s latency: %w", r, g.test.Name(), err)
		}
		lat.Merge(rec)
	}
	m.Latency = lat.Summary()
	m.Finish()
	return m, nil
}

// rate is items (or KiB for the data tests) per second, as the test's
// result counts it.
func rate(test result.FSTest, ops, bytes, ns int64) (float64, string) {
	t := result.FSTestResult{Test: test, Ran: true, Ops: ops, Bytes: bytes, ElapsedNs: ns}
	t.Finish()
	return t.RatePerSec, t.RateUnit
}

func jobPhase(g gathered, merged result.FSTestResult) result.JobPhase {
	p := result.JobPhase{Iteration: g.iteration, Test: g.test.Name(), Items: merged.Ops, Bytes: merged.Bytes,
		RateUnit: merged.RateUnit, LastDoneNs: merged.ElapsedNs, LastDoneRate: merged.RatePerSec, FirstRank: g.first}
	p.FirstDoneNs = g.ranks[0].ElapsedNs
	for r, t := range g.ranks {
		if t.ElapsedNs < p.FirstDoneNs {
			p.FirstDoneNs, p.FirstRank = t.ElapsedNs, r
		}
	}
	var bytesAtFirst int64
	for r, t := range g.ranks {
		n := t.Ops
		if r < len(g.atFirst) && t.ElapsedNs > p.FirstDoneNs {
			n = min(g.atFirst[r], t.Ops)
		}
		p.FirstDoneItems += n
		if t.Ops > 0 {
			bytesAtFirst += t.Bytes * n / t.Ops
		}
	}
	p.FirstDoneRate, _ = rate(g.test, p.FirstDoneItems, bytesAtFirst, p.FirstDoneNs)
	return p
}

func rankRows(g gathered, peers []coord.Peer, lastNs int64, shift int) []result.JobRankRow {
	var rows []result.JobRankRow
	first := g.ranks[0].ElapsedNs
	for _, t := range g.ranks {
		first = min(first, t.ElapsedNs)
	}
	for r, t := range g.ranks {
		row := result.JobRankRow{Iteration: g.iteration, Test: g.test.Name(), Rank: r, Items: t.Ops, Bytes: t.Bytes,
			ElapsedNs: t.ElapsedNs, FirstDone: t.ElapsedNs == first, LastDone: t.ElapsedNs == lastNs}
		if r < len(peers) {
			row.Host, row.PID = peers[r].Host, peers[r].PID
		}
		row.RatePerSec, _ = rate(g.test, t.Ops, t.Bytes, t.ElapsedNs)
		if shift > 0 && !g.test.IsIO() && g.test != result.SeqCreate && g.test != result.RandCreate {
			of := (r + shift) % len(g.ranks)
			row.FilesOfRank = &of
		}
		rows = append(rows, row)
	}
	return rows
}

func hostRows(g gathered, peers []coord.Peer, hosts []string) []result.JobHostRow {
	var rows []result.JobHostRow
	for _, h := range hosts {
		row := result.JobHostRow{Iteration: g.iteration, Test: g.test.Name(), Host: h}
		for r, t := range g.ranks {
			if r < len(peers) && peers[r].Host == h {
				row.Ranks++
				row.Items += t.Ops
				row.Bytes += t.Bytes
				row.ElapsedNs = max(row.ElapsedNs, t.ElapsedNs)
			}
		}
		row.RatePerSec, _ = rate(g.test, row.Items, row.Bytes, row.ElapsedNs)
		rows = append(rows, row)
	}
	return rows
}

// rankAction is a rank other than 0: it runs its part and prints nothing
// (its tables with --per-rank); rank 0 reports the job.
func rankAction(c *cli.Context, rj *rankJob, o fsbench.Options) error {
	o.Progress, o.Live = nil, false
	res, runErr := fsbench.Run(rj.ctx, o)
	runErr = rj.finish(c.Context, res, runErr)
	if res != nil && !jobAborted(runErr) && c.Bool("per-rank") && !c.Bool("silent") {
		if err := fsreport.Write(c.App.Writer, c.App.Writer, res, fsreport.Options{CSVOnly: c.IsSet("iterations"), Percentiles: c.Bool("percentiles")}); err != nil && runErr == nil {
			runErr = err
		}
	}
	return runErr
}
