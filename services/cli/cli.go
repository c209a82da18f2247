package cli

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"kollect.dev/kollect/services/cli/climain"
)

// Streams are the command's standard streams.
type Streams struct {
	Out, Err io.Writer
	// In is standard input (a manifest argument "-"); nil is os.Stdin.
	In io.Reader
	// Now is the clock of ages printed (kollect get); nil is time.Now.
	Now func() time.Time
}

func (s Streams) now() time.Time {
	if s.Now == nil {
		return time.Now()
	}
	return s.Now()
}

// NewCommand returns the root `kollect` command.
func NewCommand(s Streams) *cobra.Command {
	root, _ := newRoot(s)
	return root
}

// newRoot returns the root command and its -v flag, which Main resets.
func newRoot(s Streams) (*cobra.Command, *verbosity) {
	v := &verbosity{}
	root := &cobra.Command{
		Use:   "kollect",
		Short: "Collect a declared inventory of Kubernetes objects",
		Long: `kollect runs Kollect's selection and extraction in-process (collect), checks and migrates its
custom resources offline (validate, migrate), shows what an installed Kollect does (get,
snapshots, deadletters) and re-delivers snapshots (replay). Its client flags are kubectl's; as a
krew plugin it runs as kubectl kollect.`,
		Version:       currentBuild().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(*cobra.Command, []string) {
			v.apply(s.Err)
		},
	}
	root.SetVersionTemplate("kollect {{.Version}}\n")
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	kube := newKubeFlags()
	kube.addFlags(root.PersistentFlags())
	v.addFlags(root.PersistentFlags())
	registerKubeCompletions(root, kube)
	root.AddCommand(newCollectCommand(s, kube), newGetCommand(s, kube), newValidateCommand(s), newInitCommand(s, kube), newMigrateCommand(s),
		newSnapshotsCommand(s), newReplayCommand(s, kube), newDeadLettersCommand(s, kube), newDevCommand(s), newChecksumCommand(s),
		newVerifyCommand(s), newHistoryCommand(s, kube), newDiffCommand(s, kube))
	root.AddCommand(newVersionCommand(s))
	return root, v
}

// Main runs the command line with args and returns the process exit status.
func Main(ctx context.Context, args []string, s Streams) int {
	root, v := newRoot(s)
	defer v.reset()
	return climain.Run(ctx, root, args, s.Err, "kollect")
}

// isTerminal reports whether w is a terminal, for progress lines.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
