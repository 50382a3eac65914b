package fiojob

import (
	"math"
	"strconv"
	"strings"

	"github.com/clydebench/clyde/blockbench"
	"github.com/clydebench/clyde/result"
)

// ParseRandomDistribution reads fio's random_distribution as options.c
// does (str_random_distribution_cb, parse_zoned_distribution): random;
// zipf[:theta[:center]] (theta 1.1 by default, any above 0 but 1);
// pareto[:h[:center]] (h 0.2, 0 < h < 1); normal[:dev[:center]] (dev in
// percent, 0 by default, 0 <= dev < 100); zoned:A/S:A/S... (A percent of
// the I/Os to the next S percent of the region; ranges for reads,writes
// apart with a comma) and zoned_abs:A/SIZE:... (sizes in bytes, read by
// kb). The center is 0..1. pos names the option in a refusal.
func ParseRandomDistribution(pos, value string, kb KBBase) (blockbench.Distribution, error) {
	var d blockbench.Distribution
	v := strings.TrimSpace(value)
	kind, rest, hasRest := strings.Cut(v, ":")
	d.Kind = blockbench.DistKind(kind)
	switch d.Kind {
	case blockbench.DistRandom:
		if hasRest {
			return d, result.Usagef(pos, "random_distribution=%s: random takes no parameters", value)
		}
		return d, nil
	case blockbench.DistZipf:
		d.Param = blockbench.DefaultZipfTheta
	case blockbench.DistPareto:
		d.Param = blockbench.DefaultParetoH
	case blockbench.DistNormal:
	case blockbench.DistZoned, blockbench.DistZonedAbs:
		if err := parseZoneSplits(pos, value, rest, kb, &d); err != nil {
			return d, err
		}
		return d, checkDistribution(pos, value, d)
	case "sequence":
		return d, result.Usagef(pos, "random_distribution=%s: clyde does not replay a fixed sequence of blocks; give random, zipf, pareto, normal, zoned or zoned_abs", value)
	default:
		return d, result.Usagef(pos, "random_distribution=%s: give random, zipf[:theta], pareto[:h], normal[:dev], zoned:A/S:... or zoned_abs:A/SIZE:... (fio's names)", value)
	}
	if hasRest {
		// fio's split_parse_distr: VALUE[:CENTER].
		val, center, hasCenter := strings.Cut(strings.TrimSpace(rest), ":")
		f, ok := parseFloat(val)
		if !ok {
			return d, result.Usagef(pos, "random_distribution=%s: %q is not a number", value, val)
		}
		d.Param = f
		if hasCenter {
			c, ok := parseFloat(center)
			if !ok {
				return d, result.Usagef(pos, "random_distribution=%s: center %q is not a number", value, center)
			}
			d.Center, d.HasCenter = c, true
		}
	}
	return d, checkDistribution(pos, value, d)
}

// checkDistribution refuses what fio's ranges refuse, at the option.
func checkDistribution(pos, value string, d blockbench.Distribution) error {
	w := blockbench.Workload{Distribution: d}
	if err := w.DistributionError(); err != nil {
		return result.Usagef(pos, "random_distribution: %s", err)
	}
	return nil
}

func parseFloat(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// parseZoneSplits is fio's str_split_parse with zone_split_ddir: the
// ranges for reads, then writes after a comma (a third part, trims', is
// read and not used: a clyde trim job draws with the write ranges); with
// no comma the same ranges for both.
func parseZoneSplits(pos, value, rest string, kb KBBase, d *blockbench.Distribution) error {
	abs := d.Kind == blockbench.DistZonedAbs
	parts := strings.Split(rest, ",")
	if len(parts) > 3 {
		return result.Usagef(pos, "random_distribution=%s: give ranges for reads, writes and trims at most (two commas)", value)
	}
	for dir := range 2 {
		p := parts[0]
		if len(parts) > 1 {
			p = parts[min(dir, len(parts)-1)]
		}
		zs, err := parseZoneSplit(strings.TrimSpace(p), abs, kb)
		if err != "" {
			return result.Usagef(pos, "random_distribution: %s", err)
		}
		d.Zones[dir] = zs
	}
	if len(d.Zones[0]) == 0 && len(d.Zones[1]) == 0 {
		return result.Usagef(pos, "random_distribution=%s: give the ranges, as %s:60/10:40/90", value, d.Kind)
	}
	return nil
}

// parseZoneSplit is fio's split_parse_ddir and zone_split_ddir for one
// direction: ACCESS/SIZE entries separated by ':', up to an empty one.
// A zoned size left out (or 0) shares what the others leave of 100; one
// above 100 is 100. A zoned_abs size left out is 0.
func parseZoneSplit(s string, abs bool, kb KBBase) ([]blockbench.DistZone, string) {
	var zs []blockbench.DistZone
	missing, sizeSum := 0, 0
	for _, e := range strings.Split(s, ":") {
		if e == "" {
			break // fio stops at an empty entry
		}
		access, size, hasSize := strings.Cut(e, "/")
		a, err := ParseSize(access, kb)
		if err != nil || a > 100 {
			return nil, "access share " + strconv.Quote(access) + " is not a percentage 0..100"
		}
		z := blockbench.DistZone{AccessPct: int(a)}
		switch {
		case abs && hasSize:
			n, err := ParseSize(size, kb)
			if err != nil {
				return nil, "range size " + strconv.Quote(size) + " is not a size (bytes, or with k, m, g)"
			}
			z.Size = n
		case abs:
		case hasSize:
			// fio's atoi: an empty size ("20/", as fio's
			// examples/rand-zones.fio writes the last range) is 0,
			// left out; clyde refuses other text that is not a number.
			size = strings.TrimSpace(size)
			digits := leadingDigits(size)
			if digits != size {
				return nil, "range size " + strconv.Quote(size) + " is not a percentage"
			}
			n, _ := strconv.Atoi(digits)
			if len(digits) > 3 {
				n = 100
			}
			z.SizePct = min(n, 100)
		}
		if !abs && z.SizePct == 0 {
			z.SizePct = -1
			missing++
		} else {
			sizeSum += z.SizePct
		}
		zs = append(zs, z)
		if len(zs) > 256 {
			return nil, "more than 256 ranges (fio's ZONESPLIT_MAX)"
		}
	}
	if missing > 0 && sizeSum <= 100 {
		for i := range zs {
			if zs[i].SizePct == -1 {
				zs[i].SizePct = (100 - sizeSum) / missing
			}
		}
	}
	return zs, ""
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// randomDistribution is the random_distribution handler.
func (j *job) randomDistribution(o Option) error {
	if err := needValue(o); err != nil {
		return err
	}
	d, err := ParseRandomDistribution(o.Pos, o.Value, j.kb)
	if err != nil {
		return err
	}
	j.w.Distribution = d
	return nil
}

// zoneMode is fio's zonemode: none (fio's default) or strided; zbd drives
// zoned block devices, which clyde does not.
func (j *job) zoneMode(o Option) error {
	switch o.Value {
	case "none", "strided":
		j.zonemode = o
	case "zbd":
		return result.Usagef(o.Pos, "zonemode=zbd: clyde does not drive zoned block devices (write pointers, zone resets); give strided or none")
	default:
		return result.Usagef(o.Pos, "zonemode=%q: give none or strided", o.Value)
	}
	return nil
}

// zoneSize reads zonesize, zonerange and zoneskip: fio's sizes.
func (j *job) zoneSize(o Option, dst *int64) error {
	if err := j.size(o, dst); err != nil {
		return err
	}
	return nil
}

// finishZones holds fio's rules between the zone and distribution options
// (init.c fixup_options): zonemode=none with a zonesize is an error in
// fio, as is strided without one; a zonerange defaults to the zonesize;
// every distribution but random turns the random map off.
func (j *job) finishZones(w *blockbench.Workload) error {
	strided := j.zonemode.Value == "strided"
	size, sized := j.set["zonesize"]
	switch {
	case !strided && sized && w.Zones.Size > 0:
		return result.Usagef(size.Pos, "zonesize=%s without zonemode=strided: fio refuses it (--zonemode=none and --zonesize are not compatible); add zonemode=strided", size.Value)
	case strided && w.Zones.Size == 0:
		return result.Usagef(j.zonemode.Pos, "zonemode=strided needs a zonesize= (fio: --zonesize must be specified when using --zonemode=strided)")
	case !strided:
		w.Zones = blockbench.StridedZones{}
	}
	if w.Distribution.Kind != "" && w.Distribution.Kind != blockbench.DistRandom {
		if j.lfsr && (w.Distribution.Kind == blockbench.DistZoned || w.Distribution.Kind == blockbench.DistZonedAbs) {
			o := j.set["random_generator"]
			return result.Usagef(o.Pos, "random_generator=lfsr with random_distribution=%s: fio's lfsr walks the whole file and ignores the zoned ranges; give tausworthe", w.Distribution.Kind)
		}
		w.RandomMap = false // fio: a non-uniform distribution excludes a random map
	}
	if err := w.DistributionError(); err != nil {
		o := j.set["random_distribution"]
		if strided {
			o = j.zonemode
		}
		return result.Usagef(o.Pos, "%s", err)
	}
	return nil
}

// ParseZoneFlags reads clyde block's --zonemode, --zonesize, --zonerange
// and --zoneskip under fio's rules (init.c fixup_options): strided needs
// a zonesize, none takes none (fio 3.33 refuses zonesize with
// zonemode=none), and zbd is refused.
func ParseZoneFlags(mode, size, rng, skip string, kb KBBase) (blockbench.StridedZones, error) {
	var z blockbench.StridedZones
	switch mode {
	case "", "none":
		if size != "" && size != "0" {
			return z, result.Usagef("--zonesize", "%s without --zonemode strided: fio refuses it (--zonemode=none and --zonesize are not compatible)", size)
		}
		return z, nil
	case "strided":
	case "zbd":
		return z, result.Usagef("--zonemode", "zbd: clyde does not drive zoned block devices; give strided or none")
	default:
		return z, result.Usagef("--zonemode", "%q: give none or strided", mode)
	}
	for _, f := range []struct {
		flag, v string
		dst     *int64
	}{{"--zonesize", size, &z.Size}, {"--zonerange", rng, &z.Range}, {"--zoneskip", skip, &z.Skip}} {
		if f.v == "" {
			continue
		}
		n, err := ParseSizeFlag(f.flag, f.v, kb)
		if err != nil {
			return z, err
		}
		*f.dst = n
	}
	if z.Size == 0 {
		return z, result.Usagef("--zonemode", "strided needs a --zonesize (fio: --zonesize must be specified when using --zonemode=strided)")
	}
	return z, nil
}
