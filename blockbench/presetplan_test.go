package blockbench

import "path/filepath"

// privatePlan is a plan as a preset that makes its file in a private run
// directory in dir plans it (package cdm's): one read of 1 MiB blocks of a
// new file of size bytes, uncached unless buffered, refusing a target
// that would be cached all the same.
func privatePlan(dir string, size int64, buffered bool) Plan {
	p := uncachedPlan(filepath.Join(dir, "clyde-cdm.tmp"), size, false)
	p.PrivateDir, p.DestroyData = true, false
	p.Groups[0][0].Direct, p.RequireUncached = !buffered, !buffered
	return p
}

// uncachedPlan is one direct read of 1 MiB blocks of target's first size
// bytes, in a plan that refuses a target whose uncached I/O a page cache
// would serve (CrystalDiskMark's) unless allowCached.
func uncachedPlan(target string, size int64, allowCached bool) Plan {
	w := Workload{Name: "SEQ1M Q1T1 read", Filename: target, RW: Read, BS: 1 << 20, Size: size, IODepth: 1, NumJobs: 1,
		IOEngine: EngineAuto, Direct: true, Buffer: Buffer{Kind: BufferRandom}, Seed: DefaultSeed}
	return Plan{Groups: []Group{{w}}, RequireUncached: true, AllowCached: allowCached, DestroyData: true}
}
