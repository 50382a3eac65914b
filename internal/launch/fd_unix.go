//go:build unix

package launch

import (
	"fmt"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// OpenFD is the OpenPMI for a real launcher: the socket the launcher left
// open on fd. It refuses a descriptor that is closed or not a socket.
func OpenFD(fd int) (net.Conn, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("not open: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil, fmt.Errorf("not a socket")
	}
	f := os.NewFile(uintptr(fd), "PMI_FD")
	conn, err := net.FileConn(f)
	f.Close() // FileConn holds its own duplicate
	if err != nil {
		return nil, err
	}
	return conn, nil
}
