package blockbench

import (
	"testing"
	"time"

	"github.com/clydebench/clyde/result"
)

// CompleteLoop counts b.N completions through one worker of a random-read
// workload whose Log is spec, as an engine counts them, without the engine:
// what the record hook costs per I/O (BenchmarkComplete).
func CompleteLoop(b *testing.B, spec RecordSpec) {
	e, _ := engineByName(EnginePsync)
	wl := &workload{Workload: Workload{RW: RandRead, BS: 4096, Size: 1 << 20, IODepth: 1, NumJobs: 1, IOEngine: EnginePsync,
		Seed: 1, Runtime: time.Minute, Buffer: Buffer{Kind: BufferRandom}, Log: spec}, engine: e, depth: 1, firstWorker: 1}
	w := newWorker(wl, 0)
	rec, err := startRecord([]*workload{wl})
	if err != nil {
		b.Fatal(err)
	}
	defer rec.close()
	rec.attach(0, 0, w)
	b.ResetTimer()
	for i := range b.N {
		t := int64(i) * 1000
		w.complete(dirRead, 4096, 4096, int64(i%256)*4096, t, t+100, t+900)
	}
}

// fioShape is fiojob.Shape for this package's own tests whose results
// carry fio's fields (the golden files, the rank merge). Package fiojob
// imports blockbench, so only an external test package may import it:
// fioshape_ext_test.go sets this through SetFioShape in its init, which
// runs before any test.
var fioShape Shaper

// SetFioShape sets fioShape.
func SetFioShape(s Shaper) { fioShape = s }

// mustEngine is the registered engine name.
func mustEngine(name Engine) engine {
	e, ok := engineByName(name)
	if !ok {
		panic("no engine " + name)
	}
	return e
}

// uringAvailable says why io_uring cannot run here.
func uringAvailable() error { return mustEngine(EngineIOUring).available() }

// SyntheticPlanJobs is syntheticPlanJobs for the presets' golden tests
// (presets_golden_ext_test.go, package blockbench_test): perIO sees each
// workload as planned and the depth it runs at.
func SyntheticPlanJobs(p Plan, seconds int, perIO func(w Workload, depth int) (iops int64, meanNs float64)) []result.BlockJob {
	return syntheticPlanJobs(p, seconds, func(w *workload) (int64, float64) { return perIO(w.Workload, w.depth) })
}

// GoldenPlanJobs runs each group's first workload of p on goldenProfile's
// synthetic drive: the jobs of a preset's table golden
// (presets_golden_ext_test.go).
func GoldenPlanJobs(p Plan) []result.BlockJob { return goldenPlanJobs(p) }

// FixtureBlock is fixtureBlock, the result the goldens' jobs go into.
func FixtureBlock() result.Block { return fixtureBlock() }

// CheckGolden is checkGolden: v against testdata/block/name.
func CheckGolden(t *testing.T, name string, v any) { checkGolden(t, name, v) }
