package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/clydebench/clyde/internal/compare"
	"github.com/clydebench/clyde/internal/history"
	"github.com/clydebench/clyde/result"
)

func init() { commandList = append(commandList, compareCommand()) }

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "print runs side by side, per column, with the % change against the first",
		UsageText: "clyde compare A B [C ...]\n\nEach argument is a history id (12 or #12), a clyde JSON result, a bonnie++ CSV file or line,\nor a bonnie++ text report (1.96/1.97 or 2.00a layout). A file with several runs adds them all.",
		Flags:     []cli.Flag{dbFlag()},
		Action:    compareAction,
	}
}

// loadArgs resolves every argument; the history is opened only when an
// argument needs it.
func loadArgs(c *cli.Context, args []string) ([]*compare.Run, error) {
	var store *history.Store
	defer func() {
		if store != nil {
			store.Close()
		}
	}()
	lookup := func(id int64) ([]byte, error) {
		if store == nil {
			s, err := openHistory(c)
			if err != nil {
				return nil, err
			}
			store = s
		}
		e, err := store.Get(context.Background(), id)
		if err != nil {
			return nil, err
		}
		return e.JSON, nil
	}
	var runs []*compare.Run
	for _, a := range args {
		rs, err := compare.Load(a, lookup)
		if err != nil {
			return nil, err
		}
		runs = append(runs, rs...)
	}
	return runs, nil
}

func compareAction(c *cli.Context) error {
	if c.NArg() < 1 {
		return &result.UsageError{Msg: "compare: give at least two runs (history ids, result files or bonnie++ output)"}
	}
	runs, err := loadArgs(c, c.Args().Slice())
	if err != nil {
		return err
	}
	if len(runs) < 2 {
		return &result.UsageError{Msg: fmt.Sprintf("compare: the arguments hold %d run, want at least two", len(runs))}
	}
	t, err := compare.Compare(runs)
	if err != nil {
		return err
	}
	return t.WriteText(c.App.Writer)
}
