package check

import "os"

// longTests reports whether the long tests run in full: exhaustive sweeps, soaks
// and timing-bound tests, with RPCID_LONG=1 in the environment (as .ci/run
// does). Without it each runs a quick representative subset.
func longTests() bool { return os.Getenv("RPCID_LONG") == "1" }
