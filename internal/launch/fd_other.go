//go:build !unix

package launch

import (
	"net"

	"github.com/clydebench/clyde/result"
)

// OpenFD is not available: PMI launchers pass a Unix socket descriptor.
func OpenFD(int) (net.Conn, error) { return nil, result.ErrNotSupported }
