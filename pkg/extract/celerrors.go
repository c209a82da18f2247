package extract

import (
	"errors"
	"fmt"
	"strings"
)

// ErrCELTimeout is wrapped by the evaluation error of a CEL expression that ran out of wall
// time (Options.CELTimeout).
var ErrCELTimeout = errors.New("evaluation interrupted: time limit exceeded")

// celErrorClasses map what cel-go's runtime errors contain to a fixed description. cel-go
// quotes its inputs in many messages (an invalid regular expression, a string that does not
// parse as a number or a timestamp), and those inputs are object values, so the message itself
// is never passed on.
var celErrorClasses = []struct{ contains, class string }{
	{"error parsing regexp", "invalid regular expression"},
	{"type conversion error", "type conversion error"},
	{"actual cost limit exceeded", "cost limit exceeded"},
	{"no such overload", "no matching overload for the argument types"},
	{"no such attribute", "no such attribute"},
	{"division by zero", "division by zero"},
	{"modulus by zero", "modulus by zero"},
	{"overflow", "numeric overflow"},
	{"invalid UTF-8", "invalid UTF-8"},
	{"out of range", "value out of range"},
}

// celEvalError returns the error of a failed evaluation: its class only, never cel-go's text.
func celEvalError(msg string) error {
	if strings.Contains(msg, "operation interrupted") {
		return fmt.Errorf("evaluate CEL: %w", ErrCELTimeout)
	}
	for _, c := range celErrorClasses {
		if strings.Contains(msg, c.contains) {
			return fmt.Errorf("evaluate CEL: %s", c.class)
		}
	}
	return errors.New("evaluate CEL: evaluation failed")
}
