// Command clyde is a storage benchmark: the bonnie++ suite (clyde fs) and a raw
// block engine (clyde block).
package main

import "os"

func main() { os.Exit(run(os.Args)) }
