package launch

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recordedEnv reads testdata/NAME.env, recorded with `env` under the real
// launcher (mpiexec -n 2, srun -n 4 --mpi=pmi2, srun -n 3) on this project's
// CI machine.
func recordedEnv(t *testing.T, name string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".env"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, _ := strings.Cut(l, "=")
		m[k] = v
	}
	return m
}

func envOf(m map[string]string) Env { return func(k string) string { return m[k] } }

// replay plays the PMI server's side of a recorded transcript ("> " what the
// client sent, "< " what the server answered) on a pipe, failing the test
// when the client sends anything else.
func replay(t *testing.T, name string) OpenPMI {
	t.Helper()
	return replayLines(t, transcript(t, name), nil)
}

func transcript(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".transcript"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\n"), "\n")
}

// replayLines plays lines; with hold non-nil the server then keeps the
// connection open, answering nothing, until hold is closed (a launcher
// whose barrier waits for a rank that never comes).
func replayLines(t *testing.T, lines []string, hold chan struct{}) OpenPMI {
	return func(int) (net.Conn, error) {
		client, server := net.Pipe()
		go func() {
			defer server.Close()
			if hold != nil {
				defer func() {
					go func() { _, _ = io.Copy(io.Discard, server) }()
					<-hold
				}()
			}
			r := bufio.NewReader(server)
			for _, l := range lines {
				dir, body := l[:2], l[2:]
				wire := body
				if strings.HasPrefix(body, "cmd=") { // PMI-1 style line
					wire += "\n"
				}
				if dir == "< " {
					if _, err := io.WriteString(server, wire); err != nil {
						return
					}
					continue
				}
				got := make([]byte, len(wire))
				if _, err := io.ReadFull(r, got); err != nil {
					return
				}
				if string(got) != wire {
					t.Errorf("client sent %q, the transcript has %q", got, wire)
					return
				}
			}
		}()
		return client, nil
	}
}

func TestPMITranscripts(t *testing.T) {
	cases := []struct {
		name, transcript string
		env              map[string]string
		launcher, jobid  string
	}{
		{"hydra", "hydra-pmi1-rank0", map[string]string{"PMI_FD": "6", "PMI_RANK": "0", "PMI_SIZE": "2"},
			Hydra, "kvs_11051_0_461980553_vm"},
		{"srun-pmi2", "slurm-pmi2-rank0", map[string]string{"PMI_FD": "11", "PMI_JOBID": "3.0", "PMI_RANK": "0", "PMI_SIZE": "2", "SLURM_MPI_TYPE": "pmi2", "SLURM_PROCID": "0", "SLURM_STEP_ID": "0"},
			SlurmPMI2, "3.0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Detect(envOf(tc.env), Flags{}, "vm", replay(t, tc.transcript))
			if err != nil {
				t.Fatal(err)
			}
			if info.Launcher != tc.launcher || info.Rank != 0 || info.Size != 2 || info.JobID != tc.jobid || info.KVS == nil {
				t.Fatalf("got %+v", info)
			}
			if err := info.KVS.Put("clyde-r0", "127.0.0.1:990"); err != nil {
				t.Fatal(err)
			}
			if err := info.KVS.Fence(context.Background(), time.Minute); err != nil {
				t.Fatal(err)
			}
			v, err := info.KVS.Get("clyde-r0")
			if err != nil || v != "127.0.0.1:990" {
				t.Fatalf("get: %q, %v", v, err)
			}
			if _, err := info.KVS.Get("nokey"); err == nil {
				t.Fatal("a missing key was found")
			}
			if err := info.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestFenceBounded: a launcher's barrier that waits for a rank that never
// starts holds this rank for --rank-timeout, not forever, and a ^C ends the
// wait at once; either way the session is over and Close does not wait for
// a finalize.
func TestFenceBounded(t *testing.T) {
	cases := []struct {
		name, transcript, upTo string
		env                    map[string]string
	}{
		{"hydra", "hydra-pmi1-rank0", "> cmd=barrier_in", map[string]string{"PMI_FD": "6", "PMI_RANK": "0", "PMI_SIZE": "2"}},
		{"srun-pmi2", "slurm-pmi2-rank0", "> 14    cmd=kvs-fence;", map[string]string{"PMI_FD": "11", "PMI_JOBID": "3.0", "PMI_RANK": "0", "PMI_SIZE": "2", "SLURM_MPI_TYPE": "pmi2"}},
	}
	for _, tc := range cases {
		lines := transcript(t, tc.transcript)
		for i, l := range lines {
			if l == tc.upTo {
				lines = lines[:i+1]
				break
			}
		}
		for _, how := range []string{"timeout", "interrupt"} {
			t.Run(tc.name+"/"+how, func(t *testing.T) {
				hold := make(chan struct{})
				defer close(hold)
				replay := replayLines(t, lines, hold)
				var closed atomic.Bool
				open := func(fd int) (net.Conn, error) {
					c, err := replay(fd)
					return closeSpy{c, &closed}, err
				}
				info, err := Detect(envOf(tc.env), Flags{}, "vm", open)
				if err != nil {
					t.Fatal(err)
				}
				if err := info.KVS.Put("clyde-r0", "127.0.0.1:990"); err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				timeout := time.Hour
				if how == "timeout" {
					timeout = 50 * time.Millisecond
				} else {
					time.AfterFunc(50*time.Millisecond, cancel)
				}
				defer cancel()
				done := make(chan error, 1)
				go func() { done <- info.KVS.Fence(ctx, timeout) }()
				select {
				case err = <-done:
				case <-time.After(time.Minute):
					t.Fatal("the fence still waits")
				}
				switch how {
				case "timeout":
					if !errors.Is(err, ErrFenceTimeout) || !strings.Contains(err.Error(), "--rank-timeout") {
						t.Fatalf("got %v, want ErrFenceTimeout", err)
					}
				case "interrupt":
					if !errors.Is(err, context.Canceled) {
						t.Fatalf("got %v, want the cancellation", err)
					}
				}
				if err := info.Close(); err != nil {
					t.Fatalf("close after a failed fence: %v", err)
				}
				// Hydra kills every rank when a PMI socket closes
				// unfinalized: after a timeout the socket stays open until
				// the process exits, after its error line.
				if how == "timeout" && closed.Load() {
					t.Error("Close after a fence's timeout closed the PMI socket before the error could be printed")
				}
			})
		}
	}
}

// closeSpy is a connection that records its Close.
type closeSpy struct {
	net.Conn
	closed *atomic.Bool
}

func (c closeSpy) Close() error {
	c.closed.Store(true)
	return c.Conn.Close()
}

func TestCoordinatorPorts(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		f    Flags
		want string
	}{
		{"plain srun", recordedEnv(t, "srun-plain-rank1"), Flags{}, "vm:7787 vm:7788 vm:7818"},
		{"plain srun coordinator", recordedEnv(t, "srun-plain-rank1"), Flags{Coordinator: "10.0.0.1:9000"}, "10.0.0.1:9000"},
		{"indexed job", map[string]string{"JOB_COMPLETION_INDEX": "1"}, Flags{Ranks: 2, Coordinator: "[::1]:65535"}, "[::1]:65535"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Detect(envOf(tc.env), tc.f, "vm", nil)
			if err != nil {
				t.Fatal(err)
			}
			got := info.DialAddrs()
			short := strings.Join(got, " ")
			if len(got) > 2 {
				short = strings.Join([]string{got[0], got[1], got[len(got)-1]}, " ")
			}
			if short != tc.want || (len(got) > 2 && len(got) != DefaultPorts) {
				t.Fatalf("dial %v, want %s", got, tc.want)
			}
		})
	}
	info, _ := Detect(envOf(recordedEnv(t, "srun-plain-rank1")), Flags{}, "vm", nil)
	if info.JobID == "" || info.JobID == "." {
		t.Fatalf("plain srun's job id %q", info.JobID)
	}
}

func TestUnderHydra(t *testing.T) {
	for name, tc := range map[string]struct {
		env  map[string]string
		want bool
	}{
		"hydra":        {recordedEnv(t, "hydra-rank1"), true},
		"srun pmi2":    {recordedEnv(t, "srun-pmi2-rank2"), false},
		"plain srun":   {recordedEnv(t, "srun-plain-rank1"), false},
		"mpiexec -n 1": {map[string]string{"PMI_FD": "6", "PMI_RANK": "0", "PMI_SIZE": "1"}, false},
		"indexed job":  {map[string]string{"JOB_COMPLETION_INDEX": "0"}, false},
		"nothing":      {map[string]string{}, false},
	} {
		if got := UnderHydra(envOf(tc.env)); got != tc.want {
			t.Errorf("%s: UnderHydra %v, want %v", name, got, tc.want)
		}
	}
}

func TestPMIServerGone(t *testing.T) {
	closed := func(int) (net.Conn, error) {
		c, s := net.Pipe()
		s.Close()
		return c, nil
	}
	refused := func(int) (net.Conn, error) { return nil, errors.New("not open: bad file descriptor") }
	env := envOf(map[string]string{"PMI_FD": "6", "PMI_RANK": "1", "PMI_SIZE": "2"})
	for name, open := range map[string]OpenPMI{"closed": closed, "refused": refused} {
		t.Run(name, func(t *testing.T) {
			_, err := Detect(env, Flags{}, "vm", open)
			var le *Error
			if !errors.As(err, &le) || le.Launcher != Hydra || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestDetectEnv(t *testing.T) {
	noPMI := func(int) (net.Conn, error) { t.Fatal("PMI opened"); return nil, nil }
	cases := []struct {
		name      string
		env       map[string]string
		flags     Flags
		launcher  string
		rank, sz  int
		coord     string
		wantError string
	}{
		{name: "nothing", env: map[string]string{}, launcher: Single, sz: 1},
		{name: "plain srun", env: recordedEnv(t, "srun-plain-rank1"), launcher: Slurm, rank: 1, sz: 3, coord: "vm:7787"},
		{name: "plain srun coordinator", env: recordedEnv(t, "srun-plain-rank1"), flags: Flags{Coordinator: "10.0.0.1:9000"}, launcher: Slurm, rank: 1, sz: 3, coord: "10.0.0.1:9000"},
		{name: "srun nodelist", env: map[string]string{"SLURM_PROCID": "5", "SLURM_NTASKS": "8", "SLURM_STEP_ID": "2", "SLURM_STEP_NODELIST": "n[07-09],gpu1"}, launcher: Slurm, rank: 5, sz: 8, coord: "n07:7787"},
		{name: "srun ranks differ", env: recordedEnv(t, "srun-plain-rank1"), flags: Flags{Ranks: 4}, wantError: "--ranks 4 but srun started 3"},
		{name: "srun no nodelist", env: map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "2", "SLURM_STEP_ID": "0"}, wantError: "SLURM_STEP_NODELIST is not set"},
		{name: "batch script", env: map[string]string{"SLURM_PROCID": "0", "SLURM_NTASKS": "4", "SLURM_JOB_ID": "9"}, launcher: Single, sz: 1},
		{name: "openmpi", env: map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4", "SLURM_PROCID": "0", "SLURM_STEP_ID": "0"}, flags: Flags{Coordinator: "h0:7787"}, launcher: OpenMPI, rank: 3, sz: 4, coord: "h0:7787"},
		{name: "openmpi no coordinator", env: map[string]string{"OMPI_COMM_WORLD_RANK": "3", "OMPI_COMM_WORLD_SIZE": "4"}, wantError: "needs --coordinator"},
		{name: "openmpi rank out of range", env: map[string]string{"OMPI_COMM_WORLD_RANK": "4", "OMPI_COMM_WORLD_SIZE": "4"}, flags: Flags{Coordinator: "h0:1"}, wantError: `OMPI_COMM_WORLD_RANK="4" is not a number from 0 to 3`},
		{name: "indexed job", env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, flags: Flags{Ranks: 3, Coordinator: "clyde-0.clyde:7787"}, launcher: Kubernetes, rank: 2, sz: 3, coord: "clyde-0.clyde:7787"},
		{name: "indexed job no ranks", env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, wantError: "--ranks is not"},
		{name: "indexed job index too big", env: map[string]string{"JOB_COMPLETION_INDEX": "3"}, flags: Flags{Ranks: 3, Coordinator: "a:1"}, wantError: "JOB_COMPLETION_INDEX=\"3\""},
		{name: "indexed job no coordinator", env: map[string]string{"JOB_COMPLETION_INDEX": "0"}, flags: Flags{Ranks: 2}, wantError: "needs --coordinator"},
		{name: "ranks alone", env: map[string]string{}, flags: Flags{Ranks: 2}, wantError: "--ranks needs a launcher"},
		{name: "bad coordinator", env: map[string]string{}, flags: Flags{Coordinator: "nohost"}, wantError: "want HOST:PORT"},
		{name: "pmi no rank", env: map[string]string{"PMI_FD": "6", "PMI_SIZE": "2"}, wantError: "mpich-hydra-pmi1: PMI_RANK is not set"},
		{name: "pmi2 bad size", env: map[string]string{"PMI_FD": "6", "PMI_JOBID": "1.0", "PMI_RANK": "0", "PMI_SIZE": "x"}, wantError: "slurm-pmi2: PMI_SIZE=\"x\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			info, err := Detect(envOf(tc.env), tc.flags, "vm", noPMI)
			if tc.wantError != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantError) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("got %v, want an error with %q", err, tc.wantError)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if info.Launcher != tc.launcher || info.Rank != tc.rank || info.Size != tc.sz || info.Coordinator != tc.coord || info.Host != "vm" {
				t.Fatalf("got %+v", info)
			}
		})
	}
}

func TestRecordedPMIEnv(t *testing.T) {
	// The recorded environments pick the right wire protocol; the
	// descriptor itself is long closed, so only the choice is checked.
	for name, want := range map[string]string{"hydra-rank1": Hydra, "srun-pmi2-rank2": SlurmPMI2} {
		t.Run(name, func(t *testing.T) {
			_, err := Detect(envOf(recordedEnv(t, name)), Flags{}, "vm", func(int) (net.Conn, error) { return nil, errors.New("not open") })
			var le *Error
			if !errors.As(err, &le) || le.Launcher != want {
				t.Fatalf("got %v, want a %s error", err, want)
			}
		})
	}
}

func TestExpandHostlist(t *testing.T) {
	cases := []struct {
		in   string
		want string
		bad  bool
	}{
		{in: "vm", want: "vm"},
		{in: "n[01-03,07],gpu[1-2]", want: "n01 n02 n03 n07 gpu1 gpu2"},
		{in: "r[1-2]n[8-9]", want: "r1n8 r1n9 r2n8 r2n9"},
		{in: "a,b,c", want: "a b c"},
		{in: "n[3-1]", bad: true},
		{in: "n[1-", bad: true},
		{in: "n]", bad: true},
		{in: "", bad: true},
		{in: "n[0-99999999]", bad: true},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ExpandHostlist(tc.in)
			if tc.bad {
				if err == nil {
					t.Fatalf("got %v, want an error", got)
				}
				return
			}
			if err != nil || strings.Join(got, " ") != tc.want {
				t.Fatalf("got %v, %v", got, err)
			}
		})
	}
}

func FuzzExpandHostlist(f *testing.F) {
	for _, s := range []string{"vm", "n[01-03,07],gpu[1-2]", "r[1-2]n[8-9]", "a[1-2", "[]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ExpandHostlist(s)
		if err == nil && (len(got) == 0 || len(got) > MaxHosts) {
			t.Fatalf("%q: %d hosts", s, len(got))
		}
	})
}

func FuzzParsePMI2(f *testing.F) {
	f.Add("cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b;")
	f.Fuzz(func(t *testing.T, s string) {
		_ = parsePMI2(s)
		_ = parsePMI1(s)
	})
}
