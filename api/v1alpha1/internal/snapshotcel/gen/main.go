package main

import (
	"bytes"
	"fmt"
	"os"

	"kollect.dev/kollect/api/v1alpha1/internal/snapshotcel"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "snapshotcel:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: gen FILE.go")
	}
	src, err := os.ReadFile(args[0]) //nolint:gosec // G703: the file go:generate names, in this repository
	if err != nil {
		return err
	}
	out, err := snapshotcel.Rewrite(src)
	if err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	if bytes.Equal(out, src) {
		return nil
	}
	return os.WriteFile(args[0], out, 0o644) //nolint:gosec // G306: a source file, readable like every other
}
