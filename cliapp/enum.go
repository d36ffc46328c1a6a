package cliapp

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// Enum is a cli.Generic that accepts one of a fixed set of words and lists
// them when refusing a value.
type Enum[T ~string] struct {
	what    string
	allowed []T
	value   T
}

// NewEnum accepts allowed, the first one the default; what names the
// value in errors ("output format", "--fail-on value").
func NewEnum[T ~string](what string, allowed ...T) *Enum[T] {
	return &Enum[T]{what: what, allowed: allowed, value: allowed[0]}
}

// Set accepts one of the allowed words.
func (e *Enum[T]) Set(s string) error {
	for _, a := range e.allowed {
		if string(a) == s {
			e.value = a
			return nil
		}
	}
	return fmt.Errorf("unknown %s %q (valid: %s)", e.what, s, strings.Join(e.Choices(), ", "))
}

func (e *Enum[T]) String() string { return string(e.value) }

// Value is the word given, or the default.
func (e *Enum[T]) Value() T { return e.value }

// Allows reports whether v is one of the allowed words.
func (e *Enum[T]) Allows(v T) bool {
	for _, a := range e.allowed {
		if a == v {
			return true
		}
	}
	return false
}

// Choices are the words e accepts, for help and completion.
func (e *Enum[T]) Choices() []string {
	out := make([]string, len(e.allowed))
	for i, a := range e.allowed {
		out[i] = string(a)
	}
	return out
}

// EnumOf is the value of the Enum flag name of c.
func EnumOf[T ~string](c *cli.Context, name string) T { return c.Generic(name).(*Enum[T]).value }

// AddBefore has cmd run check before its own Before.
func AddBefore(cmd *cli.Command, check cli.BeforeFunc) {
	before := cmd.Before
	cmd.Before = func(c *cli.Context) error {
		if err := check(c); err != nil {
			return err
		}
		if before != nil {
			return before(c)
		}
		return nil
	}
}
