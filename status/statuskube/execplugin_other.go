//go:build !unix

package statuskube

import "os/exec"

// inOwnGroup leaves cmd's default cancellation (kill the plugin) where
// process groups are not Unix ones.
func inOwnGroup(*exec.Cmd) {}

// killOnSignal does nothing where signals are not Unix ones.
func killOnSignal(*exec.Cmd) (stop func()) { return func() {} }
