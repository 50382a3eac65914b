package ioengine

// posixaio: POSIX AIO is not Windows'; windowsaio is its queueing engine.
var posixaio = &Driver{
	Name:      "posixaio",
	Flags:     FlagQueues | FlagReapsAll,
	Available: posixAIOAvailable,
	Open:      func(Config) (Engine, error) { return nil, posixAIOAvailable() },
}

func init() { Register(posixaio) }

func posixAIOAvailable() error {
	return notSupported("ioengine posixaio is POSIX AIO, which Windows does not have (give windowsaio)")
}
