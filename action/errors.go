package action

import (
	"fmt"
	"strings"
)

// BadRequestError refuses a request as its flags made it: flags that do
// not go together, or a value the action cannot use. Its message names
// the flags; the command line shows it as a usage error of the command
// run (exit 1).
type BadRequestError struct{ Msg string }

func (e *BadRequestError) Error() string { return e.Msg }

// BadRequest marks the error as the request's (cliapp.BadRequest).
func (e *BadRequestError) BadRequest() bool { return true }

func badRequest(format string, a ...any) error {
	return &BadRequestError{Msg: fmt.Sprintf(format, a...)}
}

// MissingFlagError is a required flag the command was not given: Flag
// ("--from"), what may stand in for it (Alternatives, "" for none) and
// the flags of a command line that gives it (Example, "--from 1.4 --to
// 1.6"). An action knows no command: the command line names the one run
// in the example (UsageMessage) and adds the help to read.
type MissingFlagError struct {
	Flag, Alternatives, Example string
}

func (e *MissingFlagError) Error() string { return e.UsageMessage("") }

// UsageMessage is the error's line with command, the command run as the
// user types it ("sylva-planner values generate"), before the example's
// flags.
func (e *MissingFlagError) UsageMessage(command string) string {
	msg := e.Flag + " is required"
	if e.Alternatives != "" {
		msg += " (or " + e.Alternatives + ")"
	}
	return msg + ", for example: " + strings.TrimSpace(command+" "+e.Example)
}
