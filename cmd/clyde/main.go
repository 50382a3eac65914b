// Command clyde is a storage benchmark: the bonnie++ suite (clyde fs) and a raw
// block engine (clyde block).
package main

import (
	"os"

	_ "github.com/clydebench/clyde/internal/limits/startup" // refuses too few descriptors or too little address space before any init opens a file
	_ "github.com/clydebench/clyde/internal/stopsig"        // catches a stop signal from the start, before the heavier packages' initialisers
)

func main() { os.Exit(run(os.Args)) }
