//go:build !windows

package blockbench

// profileDirectDefault: elsewhere the presets use the page cache unless
// --direct is given (O_DIRECT fails on tmpfs, where the tests run).
const profileDirectDefault = false
