// Package pagecache is the one place that decides whether a read reaches
// the drive or a page cache, through every layer the data goes through:
// the file's own filesystem, and beneath it the loop devices the admission
// graph follows (internal/admit.LoopsUnder) to the files and devices that
// really hold the data.
//
// Two rules live here. CachedOnly names what serves uncached (O_DIRECT)
// I/O on a path from a page cache anyway (tmpfs, a FUSE daemon, ext4
// data=journal, a loop device without direct I/O), for the notes of clyde
// block --direct and clyde fs -D. Stack, decided once per run, drops the
// host's cache of every level a buffered read goes through after the
// file's own pages are dropped (osio.EvictPageCache): a loop device
// without direct I/O reads its backing file through the host's page cache,
// so a file whose own pages are gone can still be read from memory there.
// A level that cannot be dropped (a backing file on tmpfs, which is RAM)
// makes the read not cold, and Explain says why, for every output.
package pagecache
