package v1alpha1

import (
	"errors"
	"fmt"
)

// ReasonError is an error that carries the reason it is reported with, so
// that whoever reports it reads the reason with errors.As instead of
// searching the message.
//
// +kubebuilder:object:generate=false
type ReasonError struct {
	// Reason is one of Reasons.
	Reason string
	// Err is the error; its message is the condition's message.
	Err error
}

func (e *ReasonError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *ReasonError) Unwrap() error { return e.Err }

// Reasonf returns a *ReasonError with reason and a formatted message.
func Reasonf(reason, format string, args ...any) error {
	return &ReasonError{Reason: reason, Err: fmt.Errorf(format, args...)}
}

// ReasonOf returns the reason of the first *ReasonError in err's chain, ""
// when there is none.
func ReasonOf(err error) string {
	if re, ok := errors.AsType[*ReasonError](err); ok {
		return re.Reason
	}
	return ""
}
