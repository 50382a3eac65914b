package blockbench

import "github.com/clydebench/clyde/internal/admit"

// RefusedError is a write the admission rule (internal/admit) stopped
// before anything was written; it unwraps to a usage error (exit code 2).
type RefusedError = admit.RefusedError
