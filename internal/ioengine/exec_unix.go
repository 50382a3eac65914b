//go:build unix

package ioengine

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/clydebench/clyde/result"
)

// execEngine's driver is fio's exec (engines/exec.c): no file and no I/O;
// the job's first unit starts the one program the job names (program=,
// with arguments= split at blanks after fio's %r, the runtime in seconds,
// and %n, the job's name; looked up in PATH, as execvp does), and every
// later unit waits 50 ms (fio's usleep of the thinktime it sets) and, once
// the job's runtime is over, sends the program SIGTERM and waits
// grace_time seconds; the engine also asks for a 50 ms pause after each
// unit (fio's thinktime=50000). Closing the engine kills the program if it
// still runs (fio's SIGKILL at cleanup) and reaps it. fio counts every
// unit as a read of 0 bytes.
//
// std_redirect=1, fio's default, writes the program's output to
// NAME.stdout and NAME.stderr in the working directory: clyde creates no
// file outside its run directory and named targets, so it is refused;
// with std_redirect=0 the program writes to clyde's standard error (fio's
// to its standard output, which clyde keeps for its report).
var execDriver = &Driver{
	Name:      "exec",
	Flags:     FlagDiskless | FlagNoIO,
	Available: func() error { return nil },
	Options:   []string{"program", "arguments", "grace_time", "std_redirect"},
	Open:      openExec,
	Check: func(j Job) error {
		_, err := execOptions(j.Name, j.Options)
		return err
	},
	Note: func(j Job) string {
		return "job " + j.Name + ": ioengine exec ran the program the job names, `" + strings.TrimSpace(j.Options["program"]+" "+j.Options["arguments"]) + "` (fio's %r: the runtime in seconds, %n: the job's name), its output on clyde's standard error"
	},
}

func init() { Register(execDriver) }

// execConf is a job's exec options.
type execConf struct {
	program, arguments string
	grace              time.Duration
}

// execOptions reads exec's options: program= is required; grace_time is
// seconds (1 by default); std_redirect must be 0 (see execDriver).
func execOptions(job string, opts map[string]string) (execConf, error) {
	c := execConf{program: opts["program"], arguments: opts["arguments"], grace: time.Second}
	if strings.TrimSpace(c.program) == "" {
		return c, result.Usagef("--program", "job %s: ioengine exec needs program=, the program to run", job)
	}
	if v, ok := opts["grace_time"]; ok {
		s, err := strconv.ParseUint(v, 10, 31)
		if err != nil {
			return c, result.Usagef("--grace_time", "job %s: grace_time=%s: give whole seconds", job, v)
		}
		c.grace = time.Duration(s) * time.Second
	}
	switch v := opts["std_redirect"]; v {
	case "0", "false":
	default:
		return c, result.Usagef("--std_redirect", "job %s: std_redirect=%s (fio's default 1) writes %s.stdout and %s.stderr in the working directory, which clyde does not create; give std_redirect=0 and the program writes to clyde's standard error", job, cmpOr(v, "1"), job, job)
	}
	return c, nil
}

func cmpOr(v, d string) string {
	if v == "" {
		return d
	}
	return v
}

// execPoll is fio's thinktime for exec: the wait in each unit and the
// pause after it.
const execPoll = 50 * time.Millisecond

func openExec(c Config) (Engine, error) {
	conf, err := execOptions(c.Name, c.Options)
	if err != nil {
		return nil, err
	}
	// fio's expand_variables, then its split of "program arguments" at
	// blanks.
	args := strings.ReplaceAll(conf.arguments, "%r", strconv.FormatInt(int64(c.Runtime/time.Second), 10))
	args = strings.ReplaceAll(args, "%n", c.Name)
	argv := strings.Fields(conf.program + " " + args)
	return &execUnit{conf: conf, argv: argv, runtime: c.Runtime}, nil
}

// execUnit runs one job's program: cmd once started, start when.
type execUnit struct {
	conf    execConf
	argv    []string
	runtime time.Duration
	cmd     *exec.Cmd
	start   time.Time
	err     error
}

func (e *execUnit) Queue(u *Unit) Status {
	u.N, u.Err = 0, nil
	if u.Op != Read && u.Op != Write {
		return Completed
	}
	if e.cmd == nil {
		// The first unit starts the program (this one allocates).
		e.start = time.Now()
		e.cmd = exec.Command(e.argv[0], e.argv[1:]...)
		e.cmd.Stdout, e.cmd.Stderr = os.Stderr, os.Stderr
		if err := e.cmd.Start(); err != nil {
			e.err = err
			u.Err = errors.Join(errors.New("exec "+e.argv[0]), err)
		}
		return Completed
	}
	if e.err != nil {
		u.Err = e.err
		return Completed
	}
	time.Sleep(execPoll)
	if e.runtime > 0 && time.Since(e.start) > e.runtime {
		_ = e.cmd.Process.Signal(unix.SIGTERM)
		time.Sleep(e.conf.grace)
	}
	return Completed
}

// Think is fio's thinktime for exec, 50 ms.
func (*execUnit) Think() time.Duration { return execPoll }

func (*execUnit) Commit() (int, error)            { return 0, nil }
func (*execUnit) GetEvents(int, int) (int, error) { return 0, nil }
func (*execUnit) Event(int) *Unit                 { return nil }

// Close kills the program if it still runs and reaps it.
func (e *execUnit) Close() error {
	if e.cmd == nil || e.cmd.Process == nil || e.err != nil {
		return nil
	}
	_ = e.cmd.Process.Kill()
	_ = e.cmd.Wait()
	return nil
}
