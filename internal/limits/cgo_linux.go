//go:build linux && cgo

package limits

// cgoThreads: threads are glibc's (pthread_create), each with a stack of
// RLIMIT_STACK and, while there are fewer than MALLOC_ARENA_MAX, a malloc
// arena of its own.
const cgoThreads = true
