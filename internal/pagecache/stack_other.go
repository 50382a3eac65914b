//go:build !linux

package pagecache

import "github.com/clydebench/clyde/result"

// Stack is what a directory's files are read through beneath their own
// page cache; only Linux has loop devices to follow, so here it is empty.
type Stack struct{}

// StackOf finds nothing beneath dir here.
func StackOf(string, result.Filesystem) *Stack { return &Stack{} }

// Drop has nothing to drop here.
func (*Stack) Drop(int64) Dropped { return Dropped{Cold: true} }

// InMemory is not known here.
func (*Stack) InMemory() string { return "" }

// Close closes nothing.
func (*Stack) Close() {}

// Device is the block device beneath a FUSE filesystem: none here.
func (*Stack) Device() string { return "" }
