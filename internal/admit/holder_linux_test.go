//go:build linux

package admit

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/clydebench/clyde/internal/clydetest"

	"golang.org/x/sys/unix"
)

// The holders the kernel tests need are this test binary run again as a
// small program (holderEnv names what it holds, holderArgs its arguments,
// one per line): it sets the hold up, says "ready", and keeps it until its
// standard input closes. One in a mount namespace of its own takes its
// mounts with it when it exits.
const (
	holderEnv  = "CLYDE_ADMIT_HOLDER"
	holderArgs = "CLYDE_ADMIT_HOLDER_ARGS"
)

func TestMain(m *testing.M) {
	if kind := os.Getenv(holderEnv); kind != "" {
		if err := hold(kind, strings.Split(os.Getenv(holderArgs), "\n")); err != nil {
			fmt.Fprintln(os.Stderr, "holder:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// hold sets up one kind of hold, then waits for its standard input to
// close.
func hold(kind string, args []string) error {
	var keep []any
	switch kind {
	case "mount-erofs": // IMAGE DIR: mount(2) the image itself, no loop device
		if err := unix.Mount(args[0], args[1], "erofs", unix.MS_RDONLY, ""); err != nil {
			return fmt.Errorf("mount %s: %w", args[0], err)
		}
	case "open-write": // PATH
		f, err := os.OpenFile(args[0], os.O_RDWR, 0)
		if err != nil {
			return err
		}
		keep = append(keep, f)
	case "map-shared": // PATH: a shared writable map, the descriptor closed
		fd, err := unix.Open(args[0], unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		mem, err := unix.Mmap(fd, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		unix.Close(fd)
		if err != nil {
			return err
		}
		keep = append(keep, mem)
	case "uring-fixed": // PATH: registered in an io_uring, the descriptor closed
		ring, err := ringWithFixedFile(args[0])
		if err != nil {
			return err
		}
		keep = append(keep, ring)
	default:
		return fmt.Errorf("no holder %q", kind)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = keep
	return nil
}

// ringWithFixedFile sets up an io_uring and registers path (opened
// read-write) as its fixed file 0, then closes path's descriptor: only the
// ring holds the file.
func ringWithFixedFile(path string) (int, error) {
	var params [120]byte // struct io_uring_params
	ring, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, 4, uintptr(unsafe.Pointer(&params[0])), 0)
	if errno != 0 {
		return -1, fmt.Errorf("io_uring_setup: %w", errno)
	}
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	const registerFiles = 2 // IORING_REGISTER_FILES
	fds := []int32{int32(fd)}
	_, _, errno = unix.Syscall6(unix.SYS_IO_URING_REGISTER, ring, registerFiles, uintptr(unsafe.Pointer(&fds[0])), 1, 0, 0)
	unix.Close(fd)
	if errno != 0 {
		return -1, fmt.Errorf("io_uring_register files: %w", errno)
	}
	return int(ring), nil
}

// holderOptions: ownMountNS runs the holder in a new mount namespace
// (unshare -m, with / made private as unshare(1) does); dir is its working
// directory.
type holderOptions struct {
	ownMountNS bool
	dir        string
}

// startHolder runs a holder until the test ends and returns its pid. The
// test skips when the holder cannot set up (no erofs file-backed mounts,
// no io_uring): that is the kernel's, not the rule's.
func startHolder(t *testing.T, o holderOptions, kind string, args ...string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+kind, holderArgs+"="+strings.Join(args, "\n"))
	cmd.Dir = o.dir
	if o.ownMountNS {
		cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		stdin.Close()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "ready\n" {
		stdin.Close()
		_ = cmd.Wait()
		close(done)
		clydetest.Skipf(t, "holder %s %v could not set up here: %s", kind, args, strings.TrimSpace(stderr.String()))
	}
	go func() { _ = cmd.Wait(); close(done) }()
	return cmd.Process.Pid
}
