// Package archtest holds the tests that enforce the architecture: the pure
// core packages import no cluster client, network or process execution, and
// never read the clock, the environment or the process's standard streams.
package archtest
