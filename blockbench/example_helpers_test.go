package blockbench

import (
	"fmt"
	"os"
)

func dirForExample() string { return os.TempDir() }

func fmtPrintln(a ...any) { fmt.Println(a...) }
