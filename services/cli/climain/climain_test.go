package climain

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/spf13/cobra"
)

func TestRunTurnsTheCommandsErrorIntoAnExitStatus(t *testing.T) {
	for name, tc := range map[string]struct {
		err     error
		code    int
		printed string
	}{
		"success":                          {nil, 0, ""},
		"an exit error with a message":     {&ExitError{Code: 1, Err: errors.New("revision 3 does not verify")}, 1, "prog: revision 3 does not verify\n"},
		"an exit error already reported":   {&ExitError{Code: 3}, 3, ""},
		"a wrapped exit error":             {errors.Join(errors.New("context"), &ExitError{Code: 4, Err: errors.New("x")}), 4, "prog: x\n"},
		"any other error is a usage error": {errors.New("unknown flag --nope"), 2, "prog: unknown flag --nope\n"},
	} {
		t.Run(name, func(t *testing.T) {
			var got []string
			cmd := &cobra.Command{Use: "prog", SilenceErrors: true, SilenceUsage: true,
				RunE: func(_ *cobra.Command, args []string) error { got = args; return tc.err }}
			var errOut bytes.Buffer
			code := Run(context.Background(), cmd, []string{"a", "b"}, &errOut, "prog")
			if code != tc.code || errOut.String() != tc.printed || len(got) != 2 {
				t.Fatalf("Run = %d, printed %q, args %v; want %d, %q, [a b]", code, errOut.String(), got, tc.code, tc.printed)
			}
		})
	}
}
