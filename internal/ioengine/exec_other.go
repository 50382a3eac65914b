//go:build !unix

package ioengine

// exec is fio's exec engine, built where a program can be stopped with
// SIGTERM as fio stops it (exec_unix.go).
var execDriver = &Driver{
	Name:  "exec",
	Flags: FlagDiskless | FlagNoIO,
	Available: func() error {
		return notSupported("ioengine exec stops its program with SIGTERM, which this platform does not have")
	},
	Options: []string{"program", "arguments", "grace_time", "std_redirect"},
	Open:    func(Config) (Engine, error) { return nil, ErrNotSupported },
}

func init() { Register(execDriver) }
