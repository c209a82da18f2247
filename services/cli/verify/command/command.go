package command

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/cli/internal/verify"
)

// source reads the revisions a sink holds.
type source interface {
	Revisions(ctx context.Context) ([]verify.Revision, error)
}

// Streams are the command's standard streams.
type Streams struct {
	Out, Err io.Writer
	// anchor is the --anchor the command was given (set by NewCommand).
	anchor *anchorFlags
}

// Main runs kollect-verify (or `kollect verify`, which runs this binary)
// with args and returns the exit status: 0 when everything verifies, 1 at
// the first mismatch, 2 on an error.
func Main(ctx context.Context, args []string, s Streams) int {
	return climain.Run(ctx, NewCommand(s), args, s.Err, "kollect verify")
}

// NewCommand returns the kollect-verify command: recompute the checksums
// of the revisions a sink holds and report the first that does not match.
func NewCommand(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:           "kollect-verify",
		SilenceUsage:  true,
		SilenceErrors: true,
		Short:         "Recompute the checksums of the revisions a sink holds and report the first that does not match",
		Long: "Reads every revision of one inventory that a sink keeps, recomputes each checksum from the rows\n" +
			"(docs/contract.md, version 2) and checks each revision's previousChecksum against the revision before.\n" +
			"Exit status 0 when everything verifies, 1 at the first mismatch (printed), 2 on an error.\n\n" +
			"It is its own binary, kollect-verify, because it links the sinks' clients; kollect verify runs it.",
	}
	cmd.CompletionOptions.DisableDefaultCmd = true
	cmd.SetOut(s.Out)
	cmd.SetErr(s.Err)
	s.anchor = &anchorFlags{}
	s.anchor.bind(cmd)
	cmd.AddCommand(newVerifyGitCommand(s), newVerifyPostgresCommand(s), newVerifyS3Command(s), newVerifyGCSCommand(s))
	return cmd
}

func newVerifyGitCommand(s Streams) *cobra.Command {
	var g verify.Git
	cmd := &cobra.Command{
		Use:     "git REPOSITORY --path FILE",
		Short:   "Verify the history of an inventory document in a Git repository (a folder or a URL)",
		Example: "  kollect verify git ./inventory-repo --path inventory/team-a/web.json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			g.Repo = args[0]
			if g.Path == "" {
				return &climain.ExitError{Code: 2, Err: fmt.Errorf("--path is required: the inventory's document in the repository")}
			}
			return runVerify(cmd.Context(), s, g)
		},
	}
	cmd.Flags().StringVar(&g.Path, "path", "", "the inventory's document in the repository (the sink's rendered pathTemplate)")
	cmd.Flags().StringVar(&g.Ref, "ref", "HEAD", "branch, tag or commit to verify from")
	return cmd
}

func newVerifyPostgresCommand(s Streams) *cobra.Command {
	var table, cluster, inventory, dsnEnv string
	cmd := &cobra.Command{
		Use:   "postgres --table [SCHEMA.]TABLE --cluster CLUSTER --inventory [NAMESPACE/]NAME",
		Short: "Verify an inventory in a PostgreSQL sink: its current rows and, in history mode, every revision",
		Example: "  KOLLECT_POSTGRES_DSN=postgres://reader@db/inventory kollect verify postgres \\\n" +
			"    --table public.kollect_rows --cluster prod-eu-1 --inventory team-a/web",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dsn := os.Getenv(dsnEnv)
			if dsn == "" {
				return &climain.ExitError{Code: 2, Err: fmt.Errorf("--dsn-env: environment variable %s holds no connection string", dsnEnv)}
			}
			if table == "" || inventory == "" {
				return &climain.ExitError{Code: 2, Err: fmt.Errorf("--table and --inventory are required")}
			}
			schema, name, ok := strings.Cut(table, ".")
			if !ok {
				schema, name = "public", table
			}
			inv := inventoryName(inventory)
			conn, err := pgx.Connect(cmd.Context(), dsn)
			if err != nil {
				return &climain.ExitError{Code: 2, Err: fmt.Errorf("connect to the database of %s: %w", dsnEnv, err)}
			}
			defer func() { _ = conn.Close(context.Background()) }()
			return runVerify(cmd.Context(), s, verify.Postgres{Conn: conn, Schema: schema, Table: name, Cluster: cluster, Inventory: inv})
		},
	}
	cmd.Flags().StringVar(&table, "table", "", "the sink's rows table, optionally schema-qualified (default schema public)")
	cmd.Flags().StringVar(&cluster, "cluster", "default", "the sink's spec.cluster")
	cmd.Flags().StringVar(&inventory, "inventory", "", "the inventory, NAMESPACE/NAME (a NAME alone for a ClusterInventory)")
	cmd.Flags().StringVar(&dsnEnv, "dsn-env", "KOLLECT_POSTGRES_DSN", "environment variable holding the connection string (kept off the command line)")
	return cmd
}

// inventoryName parses NAMESPACE/NAME, or NAME for a ClusterInventory.
func inventoryName(s string) busv1.NamespacedName {
	if ns, n, ok := strings.Cut(s, "/"); ok {
		return busv1.NamespacedName{Namespace: ns, Name: n}
	}
	return busv1.NamespacedName{Name: s}
}

// runVerify checks what src holds and prints the outcome.
func runVerify(ctx context.Context, s Streams, src source) error {
	revs, err := src.Revisions(ctx)
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	var anchor verify.Anchor
	if s.anchor != nil {
		if anchor, err = s.anchor.load(ctx); err != nil {
			return &climain.ExitError{Code: 2, Err: err}
		}
	}
	res, err := verify.Check(revs)
	if anchor != nil {
		res, err = verify.CheckAnchored(revs, anchor)
	}
	if err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	if res.First != nil {
		fmt.Fprintf(s.Out, "MISMATCH at revision %d (%s): %s\n", res.First.Revision, res.First.Where, res.First.Reason)
		fmt.Fprintf(s.Out, "%d revisions verified before it\n", res.Checked)
		return &climain.ExitError{Code: 1}
	}
	if res.Checked == 0 {
		return &climain.ExitError{Code: 2, Err: fmt.Errorf("no revision found to verify")}
	}
	if anchor != nil {
		_, err = fmt.Fprintf(s.Out, "OK: %d revisions verified, %d previousChecksum links, %d checksums confirmed by the query API\n",
			res.Checked, res.Linked, res.Anchored)
		return err
	}
	_, err = fmt.Fprintf(s.Out, "OK: %d revisions verified, %d previousChecksum links (not anchored: --anchor checks them against the bus)\n",
		res.Checked, res.Linked)
	return err
}
