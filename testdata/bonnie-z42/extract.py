#!/usr/bin/env python3
"""Turns an strace of real bonnie++ 2.00a into the lists fsbench's -z test compares against.

Made with (Debian 12 bonnie++ 2.00a, glibc 2.36):
  strace -f -o trace.txt -e trace=openat,write,lseek,newfstatat,stat,unlink,unlinkat \
    bonnie++ -d DIR -s 16:8k:64:1 -r 8 -n 1:4096:512:2 -z 42 -u root -q -f
  python3 extract.py trace.txt
Writes seeks.txt (offset and R or W per seek, in ticket order: one seek worker), create.txt (file
name and size in creation order, sequential set then random set), randstat.txt and randdel.txt
(file names in the order the random stat and delete tests visit them). Names are given without
bonnie++'s directory prefix, whose placement clyde fixes.
"""
import re, sys
lines = open(sys.argv[1]).read().splitlines()
main = lines[0].split()[0]
creates = []  # [path, size]; a random name can equal a sequential one, so no dict
seeks, stats, unl = [], [], []
for l in lines:
    pid = l.split()[0]
    m = re.search(r'openat\(AT_FDCWD, "(\d{5}/[^"]+)", O_WRONLY\|O_CREAT', l)
    if m:
        creates.append([m.group(1), 0]); continue
    m = re.search(r'write\(3, .*\) = (\d+)', l)
    if m and creates and pid == main:
        creates[-1][1] += int(m.group(1)); continue
    m = re.search(r'lseek\(\d+, (\d+), SEEK_SET\)', l)
    if m and pid != main:
        off = int(m.group(1))
        if seeks and seeks[-1][0] == off and seeks[-1][1] == 'R':
            seeks[-1] = (off, 'W')
        else:
            seeks.append((off, 'R'))
    m = re.search(r'(?:newfstatat|stat)\((?:AT_FDCWD, )?"(\d{5}/[^"]+)"', l)
    if m: stats.append(m.group(1))
    m = re.search(r'unlink(?:at)?\((?:AT_FDCWD, )?"(\d{5}/[^"]+)"', l)
    if m: unl.append(m.group(1))
base = lambda p: p.split('/', 1)[1]
open('seeks.txt', 'w').write(''.join(f'{o} {k}\n' for o, k in seeks))
open('create.txt', 'w').write(''.join(f'{base(p)} {n}\n' for p, n in creates))
open('randstat.txt', 'w').write(''.join(base(p) + '\n' for p in stats))
open('randdel.txt', 'w').write(''.join(base(p) + '\n' for p in unl))
