//go:build windows

package fsbench

import "github.com/clydebench/clyde/result"

// syncAll: Windows flushes a whole volume only with administrator rights, so
// clyde does not pretend to; the create and delete phases run without it.
func syncAll() error { return result.ErrNotSupported }
