package cli

import (
	"fmt"
	"os"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/services/cli/internal/migrate"
)

// Exit statuses of `kollect migrate`.
const (
	migrateClean   = 0 // nothing to rewrite, or --write rewrote everything
	migrateChanges = 1 // a diff was shown, nothing written
	migrateInvalid = 2 // a file could not be read or parsed
)

func newMigrateCommand(s Streams) *cobra.Command {
	var write bool
	cmd := &cobra.Command{
		Use:   "migrate DIR",
		Short: "Rewrite established kollect.dev/v1alpha1 spellings to the canonical ones",
		Long: `migrate finds the spellings of the established operator of the kollect.dev/v1alpha1 API in
every YAML file of DIR (profileRef as a bare string, Scope sinkRefs, ConnectionTest sinkRef as a
bare string, databaseRef with namespace and without key, bigquery.secretRef, a snapshot sink
without type) and rewrites them to Kollect's canonical spellings, keeping comments and key order.
Documents without such spellings are left byte for byte.

By default it prints a unified diff and writes nothing: exit status 0 when nothing would change,
1 when the diff is not empty. With --write it rewrites the files and exits 0. Spellings migrate
cannot rewrite (for example a Secret in another namespace) are warnings on stderr; JSON files
are reported, never rewritten. Exit status 2 when a file cannot be read or parsed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			files, err := migrate.Folder(args[0], os.ReadFile)
			if err != nil {
				return &climain.ExitError{Code: migrateInvalid, Err: err}
			}
			return runMigrate(s, files, write)
		},
	}
	cmd.Flags().BoolVar(&write, "write", false, "rewrite the files instead of printing a diff")
	return cmd
}

func runMigrate(s Streams, files []migrate.File, write bool) error {
	changed := 0
	for _, f := range files {
		for _, l := range f.Findings {
			if l.Kept != "" || f.JSON {
				fmt.Fprintln(s.Err, l)
			}
		}
		if !f.Changed() {
			continue
		}
		changed++
		if write {
			if err := writeFile(f); err != nil {
				return &climain.ExitError{Code: migrateInvalid, Err: err}
			}
			fmt.Fprintf(s.Out, "rewrote %s\n", f.Path)
			continue
		}
		d, err := f.Diff()
		if err != nil {
			return &climain.ExitError{Code: migrateInvalid, Err: fmt.Errorf("diff %s: %w", f.Path, err)}
		}
		fmt.Fprint(s.Out, d)
	}
	switch {
	case changed == 0:
		fmt.Fprintln(s.Err, "nothing to migrate")
		return nil
	case write:
		fmt.Fprintf(s.Err, "%d file(s) rewritten\n", changed)
		return nil
	}
	return &climain.ExitError{Code: migrateChanges, Err: fmt.Errorf("%d file(s) to migrate; run with --write to rewrite them", changed)}
}

func writeFile(f migrate.File) error {
	info, err := os.Stat(f.Path)
	if err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	if err := os.WriteFile(f.Path, f.New, info.Mode().Perm()); err != nil {
		return fmt.Errorf("write %s: %w", f.Path, err)
	}
	return nil
}
