package result

// BlockAccessLine is one line of an Iometer access specification and what a
// job issued from it: Iometer's fields, then the I/Os drawn from the line
// while measuring, how many of them were reads and how many started at a
// random offset (the rest continued from the previous I/O).
type BlockAccessLine struct {
	SizeBytes int64 `json:"size_bytes"`
	Weight    int   `json:"pct_of_access"`
	ReadPct   int   `json:"pct_read"`
	RandomPct int   `json:"pct_random"`
	IOs       int64 `json:"ios"`
	Reads     int64 `json:"reads"`
	Random    int64 `json:"random"`
}
