// Package launch finds out which rank of a many-client job this process is,
// from the launcher that started it, without an MPI library: MPICH/Intel MPI
// Hydra's PMI-1 wire protocol and Slurm's PMI-2 on PMI_FD, plain srun's
// SLURM_* variables, Open MPI's OMPI_COMM_WORLD_* and a Kubernetes Indexed
// Job's JOB_COMPLETION_INDEX (the last two with --ranks and --coordinator).
// It answers rank, size, host and how to reach rank 0; internal/coord does
// the rest over TCP.
package launch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Launchers, as Info.Launcher names them.
const (
	Single     = "single"
	Hydra      = "mpich-hydra-pmi1"
	SlurmPMI2  = "slurm-pmi2"
	Slurm      = "slurm"
	OpenMPI    = "openmpi"
	Kubernetes = "kubernetes-indexed-job"
)

// DefaultPort is rank 0's TCP port where the launcher has no key-value
// space to publish a chosen one (plain srun without --coordinator).
const DefaultPort = 7787

// DefaultPorts is how many ports from DefaultPort a plain-srun rank 0 may
// take, and its ranks try: two steps whose first node is the same host (two
// jobs, or two sruns in one allocation) each get one. Every hello names the
// job (SLURM_JOB_ID.SLURM_STEP_ID), so a rank passes over the other job's
// rank 0 to its own.
const DefaultPorts = 32

// Info is this process's place in the job.
type Info struct {
	Launcher string
	Rank     int
	Size     int
	Host     string
	// JobID names the job ("" when the launcher gives none): every hello
	// carries it, and a rank joins only a rank 0 of the same job.
	JobID string
	// Coordinator is rank 0's HOST:PORT when the flags or the launcher name
	// it; "" when rank 0 publishes it through KVS.
	Coordinator string
	// Ports is how many ports from Coordinator's rank 0 may listen on and
	// the ranks try: DefaultPorts for plain srun's default, else 1 (a port
	// the user named is that port).
	Ports int
	// KVS is the launcher's key-value space (PMI); nil without one.
	KVS KVS
}

// KVS is a launcher's key-value space: Put, then Fence (every rank's puts
// are visible to every rank after it), then Get.
type KVS interface {
	Put(key, value string) error
	// Fence waits for every rank, at most timeout (0: no bound) and until
	// ctx ends: a rank that never starts holds up the others no longer
	// (ErrFenceTimeout). After a Fence that failed the session is gone:
	// Close does nothing, and the socket closes when the process exits.
	Fence(ctx context.Context, timeout time.Duration) error
	Get(key string) (string, error)
	// Close ends the PMI session (finalize); the launcher then lets the
	// process exit without calling the job broken.
	Close() error
}

// Flags are the command-line settings that stand in for a launcher or
// complete one: --ranks and --coordinator.
type Flags struct {
	Ranks       int    // 0: not given
	Coordinator string // HOST:PORT, "" not given
}

// Env reads one environment variable (os.Getenv in production, a recorded
// environment in tests).
type Env func(string) string

// Error is a launcher that is only half there: one line naming what is
// missing.
type Error struct {
	Launcher string
	Msg      string
}

func (e *Error) Error() string { return "launch: " + e.Launcher + ": " + e.Msg }

// ErrFenceTimeout is a launcher's barrier that not every rank reached in
// time.
var ErrFenceTimeout = errors.New("not every rank reached the launcher's barrier (PMI fence)")

// fence runs one blocking barrier exchange on conn: call, bounded by
// timeout and cancelled with ctx (which closes conn: the PMI session is
// over either way). broken is set when it fails.
func fence(ctx context.Context, conn net.Conn, timeout time.Duration, broken *bool, call func(time.Duration) error) error {
	if err := ctx.Err(); err != nil {
		*broken = true
		return err
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	err := call(timeout)
	stop()
	if err == nil {
		return nil
	}
	*broken = true
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w within %s (--rank-timeout): a rank is late, hung or never started", ErrFenceTimeout, timeout)
	}
	return err
}

// OpenPMI connects to the PMI server on a descriptor (PMI_FD); tests swap
// it for a transcript.
type OpenPMI func(fd int) (net.Conn, error)

// Detect works out the job from env and flags. Precedence follows the
// launchers' nesting: PMI_FD (Hydra, or srun --mpi=pmi2), then Open MPI, then
// plain srun (whose SLURM_PROCID an mpirun inside an allocation inherits),
// then a Kubernetes Indexed Job, then a single process. host is this
// machine's name.
func Detect(env Env, f Flags, host string, open OpenPMI) (*Info, error) {
	if f.Ranks < 0 {
		return nil, &Error{"flags", fmt.Sprintf("--ranks must be 1 or more, got %d", f.Ranks)}
	}
	if f.Coordinator != "" {
		if _, _, err := splitHostPort(f.Coordinator); err != nil {
			return nil, &Error{"flags", fmt.Sprintf("--coordinator %q: want HOST:PORT, such as clyde-0.clyde:7787", f.Coordinator)}
		}
	}
	switch {
	case env("PMI_FD") != "":
		return detectPMI(env, f, host, open)
	case env("OMPI_COMM_WORLD_RANK") != "":
		return detectOpenMPI(env, f, host)
	case env("SLURM_PROCID") != "" && env("SLURM_STEP_ID") != "":
		return detectSlurm(env, f, host)
	case env("JOB_COMPLETION_INDEX") != "":
		return detectIndexed(env, f, host)
	case f.Ranks > 1:
		return nil, &Error{"flags", "--ranks needs a launcher that gives each process its rank (mpiexec, srun, mpirun, or JOB_COMPLETION_INDEX for an Indexed Job or by hand)"}
	}
	return &Info{Launcher: Single, Rank: 0, Size: 1, Host: host}, nil
}

// number reads a variable that must hold a whole number in [lo, hi).
func number(env Env, launcher, name string, lo, hi int) (int, error) {
	v := env(name)
	if v == "" {
		return 0, &Error{launcher, name + " is not set"}
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n >= hi {
		return 0, &Error{launcher, fmt.Sprintf("%s=%q is not a number from %d to %d", name, v, lo, hi-1)}
	}
	return n, nil
}

// MaxRanks bounds a job's size: far above any node count clyde is meant
// for, low enough that a garbled variable cannot make rank 0 wait forever.
const MaxRanks = 1 << 20

func rankAndSize(env Env, launcher, rankVar, sizeVar string) (rank, size int, err error) {
	if size, err = number(env, launcher, sizeVar, 1, MaxRanks+1); err != nil {
		return 0, 0, err
	}
	if rank, err = number(env, launcher, rankVar, 0, size); err != nil {
		return 0, 0, err
	}
	return rank, size, nil
}

func detectPMI(env Env, f Flags, host string, open OpenPMI) (*Info, error) {
	launcher := Hydra
	if env("PMI_JOBID") != "" || env("SLURM_MPI_TYPE") == "pmi2" {
		launcher = SlurmPMI2
	}
	fd, err := number(env, launcher, "PMI_FD", 0, 1<<20)
	if err != nil {
		return nil, err
	}
	rank, size, err := rankAndSize(env, launcher, "PMI_RANK", "PMI_SIZE")
	if err != nil {
		return nil, err
	}
	if f.Ranks > 0 && f.Ranks != size {
		return nil, &Error{launcher, fmt.Sprintf("--ranks %d but the launcher started %d", f.Ranks, size)}
	}
	conn, err := open(fd)
	if err != nil {
		return nil, &Error{launcher, fmt.Sprintf("PMI_FD=%d: %v (was clyde started by the launcher itself, not by a shell it started?)", fd, err)}
	}
	info := &Info{Launcher: launcher, Rank: rank, Size: size, Host: host, Coordinator: f.Coordinator, Ports: 1}
	if launcher == SlurmPMI2 {
		info.JobID = env("PMI_JOBID")
		info.KVS, err = newPMI2(conn, info.JobID, rank, size)
	} else {
		info.KVS, err = newPMI1(conn)
		if err == nil {
			info.JobID = info.KVS.(*pmi1).kvsname
		}
	}
	if err != nil {
		conn.Close()
		return nil, &Error{launcher, err.Error()}
	}
	return info, nil
}

func detectOpenMPI(env Env, f Flags, host string) (*Info, error) {
	rank, size, err := rankAndSize(env, OpenMPI, "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE")
	if err != nil {
		return nil, err
	}
	if f.Ranks > 0 && f.Ranks != size {
		return nil, &Error{OpenMPI, fmt.Sprintf("--ranks %d but mpirun started %d", f.Ranks, size)}
	}
	if size > 1 && f.Coordinator == "" {
		return nil, &Error{OpenMPI, "needs --coordinator HOST:PORT naming rank 0's host (clyde speaks PMI-1/PMI-2, not Open MPI's PMIx)"}
	}
	return &Info{Launcher: OpenMPI, Rank: rank, Size: size, Host: host, Coordinator: f.Coordinator, Ports: 1, JobID: env("OMPI_MCA_ess_base_jobid")}, nil
}

func detectSlurm(env Env, f Flags, host string) (*Info, error) {
	rank, size, err := rankAndSize(env, Slurm, "SLURM_PROCID", "SLURM_NTASKS")
	if err != nil {
		return nil, err
	}
	if f.Ranks > 0 && f.Ranks != size {
		return nil, &Error{Slurm, fmt.Sprintf("--ranks %d but srun started %d tasks", f.Ranks, size)}
	}
	info := &Info{Launcher: Slurm, Rank: rank, Size: size, Host: host, Coordinator: f.Coordinator, Ports: 1,
		JobID: env("SLURM_JOB_ID") + "." + env("SLURM_STEP_ID")}
	if info.Coordinator == "" && size > 1 {
		list := env("SLURM_STEP_NODELIST")
		if list == "" {
			return nil, &Error{Slurm, "SLURM_STEP_NODELIST is not set, so rank 0's node is unknown; give --coordinator HOST:PORT"}
		}
		nodes, err := ExpandHostlist(list)
		if err != nil {
			return nil, &Error{Slurm, fmt.Sprintf("SLURM_STEP_NODELIST: %v", err)}
		}
		// srun's default block distribution puts task 0 on the step's
		// first node.
		info.Coordinator = net.JoinHostPort(nodes[0], strconv.Itoa(DefaultPort))
		info.Ports = DefaultPorts
	}
	return info, nil
}

func detectIndexed(env Env, f Flags, host string) (*Info, error) {
	if f.Ranks == 0 {
		return nil, &Error{Kubernetes, "JOB_COMPLETION_INDEX is set but --ranks is not: give --ranks N equal to the Job's completions"}
	}
	rank, err := number(env, Kubernetes, "JOB_COMPLETION_INDEX", 0, f.Ranks)
	if err != nil {
		return nil, err
	}
	if f.Ranks > 1 && f.Coordinator == "" {
		return nil, &Error{Kubernetes, "needs --coordinator HOST:PORT naming rank 0 (index 0's pod, e.g. JOB-0.SERVICE:7787)"}
	}
	return &Info{Launcher: Kubernetes, Rank: rank, Size: f.Ranks, Host: host, Coordinator: f.Coordinator, Ports: 1}, nil
}

func splitHostPort(s string) (string, int, error) {
	h, p, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, err
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 0 || n > 65535 || h == "" {
		return "", 0, errors.New("bad port or host")
	}
	return h, n, nil
}

// CoordinatorHost and CoordinatorPorts are where rank 0 listens and the
// ranks dial: Coordinator's host, and its port and the next Ports-1 (that
// stay below 65536). Both are empty where rank 0 publishes its addresses
// through the KVS.
func (i *Info) CoordinatorHost() string {
	h, _, _ := splitHostPort(i.Coordinator)
	return h
}

func (i *Info) CoordinatorPorts() []int {
	if i.Coordinator == "" {
		return nil
	}
	_, p, _ := splitHostPort(i.Coordinator)
	ports := []int{p}
	for k := 1; k < i.Ports && p+k <= 65535 && p != 0; k++ {
		ports = append(ports, p+k)
	}
	return ports
}

// DialAddrs are the HOST:PORTs a rank tries, in order.
func (i *Info) DialAddrs() []string {
	var out []string
	for _, p := range i.CoordinatorPorts() {
		out = append(out, net.JoinHostPort(i.CoordinatorHost(), strconv.Itoa(p)))
	}
	return out
}

// UnderHydra reports whether MPICH's (or Intel MPI's) Hydra started this
// process as one of several ranks (PMI_FD or PMI_PORT, PMI_SIZE above 1,
// and not srun's PMI-2), before any flag is read. mpiexec ORs its ranks'
// exit codes, so such a process exits 1, not 2, for a usage error (see the
// exit codes in cmd/clyde): another rank's 1 (waiting for this one at the
// barrier, say) with this 2 would read as 3, "regression found". srun takes
// the highest code, Open MPI's mpirun the first rank's, and a Kubernetes
// Job keeps each pod's: a 2 stays a 2 there.
func UnderHydra(env Env) bool {
	if env("PMI_FD") == "" && env("PMI_PORT") == "" || env("PMI_JOBID") != "" || env("SLURM_MPI_TYPE") == "pmi2" {
		return false
	}
	n, err := strconv.Atoi(env("PMI_SIZE"))
	return err == nil && n > 1
}

// Close ends the PMI session, if any; a second Close does nothing.
func (i *Info) Close() error {
	if i.KVS == nil {
		return nil
	}
	err := i.KVS.Close()
	i.KVS = nil
	return err
}

// checkValue refuses what neither PMI wire format can carry in a value.
func checkValue(what, v string) error {
	if v == "" || strings.ContainsAny(v, " \t\r\n;=") {
		return fmt.Errorf("PMI %s %q is empty or holds a space, ';' or '='", what, v)
	}
	return nil
}
