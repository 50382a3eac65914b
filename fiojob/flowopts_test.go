package fiojob

import (
	"strings"
	"testing"
	"time"

	"github.com/clydebench/clyde/blockbench"
)

// TestFlowOptions reads flow, flow_id, flow_sleep, wait_for, exitall and
// exit_what into the workloads as fio 3.33 reads them.
func TestFlowOptions(t *testing.T) {
	const job = "filename=f\nsize=1m\n"
	cases := []struct {
		name, text string
		check      func(t *testing.T, g []blockbench.Workload)
	}{
		{"flow weights, one id from [global], a sleep", "[global]\nflow_id=7\nflow_sleep=1000\n[a]\n" + job + "flow=1\n[b]\n" + job + "flow=8\n",
			func(t *testing.T, g []blockbench.Workload) {
				want := blockbench.Flow{ID: 7, Weight: 1, Sleep: time.Millisecond}
				if g[0].Flow != want || g[1].Flow.Weight != 8 || g[1].Flow.ID != 7 {
					t.Errorf("flows %+v %+v", g[0].Flow, g[1].Flow)
				}
			}},
		{"no flow by default", "[a]\n" + job,
			func(t *testing.T, g []blockbench.Workload) {
				if g[0].Flow != (blockbench.Flow{}) || g[0].Exit != blockbench.ExitNone || g[0].WaitFor != "" {
					t.Errorf("%+v %v %q", g[0].Flow, g[0].Exit, g[0].WaitFor)
				}
			}},
		{"wait_for a job before, by its name=", "[w]\nname=writers\n" + job + "numjobs=2\n[r]\n" + job + "wait_for=writers\n",
			func(t *testing.T, g []blockbench.Workload) {
				if g[2].WaitFor != "writers" || g[2].JobOptions.Get("wait_for") != "writers" {
					t.Errorf("%q %v", g[2].WaitFor, g[2].JobOptions)
				}
			}},
		{"exitall in one job is every job's, group by default", "[a]\n" + job + "[b]\n" + job + "exitall\n[c]\n" + job + "exit_what=stonewall\n[d]\n" + job + "exit_what=all\n",
			func(t *testing.T, g []blockbench.Workload) {
				want := []blockbench.ExitWhat{blockbench.ExitGroup, blockbench.ExitGroup, blockbench.ExitStonewall, blockbench.ExitAll}
				for i, w := range want {
					if g[i].Exit != w {
						t.Errorf("job %d: exit %v, want %v", i, g[i].Exit, w)
					}
				}
			}},
		{"number_ios; a trim rate in a job that trims nothing", "[a]\n" + job + "number_ios=1k\nrate=300,300,300\n",
			func(t *testing.T, g []blockbench.Workload) {
				if g[0].NumberIOs != 1024 || g[0].Rate != [2]int64{300, 300} {
					t.Errorf("number_ios %d, rate %v", g[0].NumberIOs, g[0].Rate)
				}
			}},
		{"exit_what without exitall stops nothing", "[a]\n" + job + "exit_what=all\n",
			func(t *testing.T, g []blockbench.Workload) {
				if g[0].Exit != blockbench.ExitNone {
					t.Errorf("exit %v", g[0].Exit)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := compile(t, c.text, nil, nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			var all []blockbench.Workload
			for _, g := range p.Groups {
				all = append(all, g...)
			}
			c.check(t, all)
		})
	}
}

// TestFlowOptionRefusals: values and waits fio would not take, each
// named with its value.
func TestFlowOptionRefusals(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"weight above fio's maximum", "[a]\nfilename=f\nsize=1m\nflow=1001\n", `flow="1001": give a whole number from 0 to 1000`},
		{"negative weight", "[a]\nfilename=f\nsize=1m\nflow=-1\n", `flow="-1"`},
		{"flow_id not a number", "[a]\nfilename=f\nsize=1m\nflow_id=x\n", `flow_id="x"`},
		{"flow_sleep not a number", "[a]\nfilename=f\nsize=1m\nflow_sleep=1s\n", `flow_sleep="1s"`},
		{"exit_what", "[a]\nfilename=f\nsize=1m\nexit_what=some\n", `exit_what="some": give group, stonewall or all`},
		{"exitall bad bool", "[a]\nfilename=f\nsize=1m\nexitall=yes\n", "give 0 or 1"},
		{"number_ios not a number", "[a]\nfilename=f\nsize=1m\nnumber_ios=many\n", `number_ios="many" is not a size`},
		{"a trim rate in a job that trims", "[a]\nfilename=f\nsize=1m\nrw=randtrim\nrate=1m,1m,1m\n", "rate=1m,1m,1m: clyde caps reads and writes, not trims"},
		{"four rates", "[a]\nfilename=f\nsize=1m\nrate_iops=1,2,3,4\n", "rate_iops=1,2,3,4: give one rate, or READ,WRITE,TRIM"},
		{"wait_for without a name", "[a]\nfilename=f\nsize=1m\nwait_for\n", "wait_for needs a value"},
		{"wait_for itself", "[a]\nfilename=f\nsize=1m\nwait_for=a\n", "wait_for=a: job a cannot wait for itself"},
		{"wait_for a later job", "[a]\nfilename=f\nsize=1m\nwait_for=b\n[b]\nfilename=f\nsize=1m\n", "wait_for=b: no job of that name before job a"},
		{"wait_for a name two jobs have", "[x]\nfilename=f\nsize=1m\n[y]\nname=x\nfilename=f\nsize=1m\n[z]\nfilename=f\nsize=1m\nwait_for=x\n", "wait_for=x: 2 jobs have that name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := compile(t, c.text, nil, nil, Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "job.fio:") {
				t.Errorf("got %v, want an error at job.fio:N saying %q", err, c.want)
			}
		})
	}
}
