// Package blockpreset holds clyde block's small presets over blockbench's
// public API: the block-size sweep (bs-sweep: the job once per block size
// from 1 KiB to 1 MiB, one table) and the sustained run (sustained: one
// long mixed job with the steady-state analysis), and that analysis itself
// (SteadyState: a blockbench.Analysis any job may carry, which clyde block's
// --steadystate flags set). CrystalDiskMark, Iometer and ORION have packages
// of their own (cdm, iometer, orion).
package blockpreset
