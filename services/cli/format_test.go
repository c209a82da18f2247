package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputTakesFormatsOnly: -o is a format, never a folder. A value that
// is not one is exit status 2 with the valid list, before any request (no
// kubeconfig here), and writes nothing.
func TestOutputTakesFormatsOnly(t *testing.T) {
	t.Chdir(t.TempDir())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "kollect.yaml"), []byte("apiVersion: kollect.dev/v1alpha1\nkind: KollectProfile\nmetadata: {name: p, namespace: a}\nspec: {kind: Deployment, apiVersion: apps/v1}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"collect", "--config", dir, "-o", "yml"},
			`kollect: -o/--output "yml": must be one of ndjson, json, yaml, table, wide, jsonpath=TEMPLATE, jsonpath-file=FILE, custom-columns=SPEC (files go to --output-dir DIR)` + "\n"},
		{[]string{"collect", "--config", dir, "-o", "-"}, `must be one of`},
		{[]string{"get", "inventories", "-o", "yml"},
			`kollect: -o/--output "yml": must be one of ndjson, json, yaml, table, wide, name, jsonpath=TEMPLATE, jsonpath-file=FILE, custom-columns=SPEC` + "\n"},
		{[]string{"get", "inventories", "-o", "jsonpath={.items[*"}, `-o/--output "jsonpath={.items[*": unterminated array`},
		{[]string{"get", "inventories", "-o", "custom-columns=NAME"}, `"NAME": want HEADER:PATH`},
		{[]string{"get", "inventories", "-o", "jsonpath-file=" + filepath.Join(dir, "missing")}, `-o/--output jsonpath-file: open`},
		{[]string{"get", "inventory", "a/b", "--at", "2026-01-05T09:00:00Z", "-o", "name"}, `must be one of ndjson, json, yaml, table, wide` + "\n"},
		{[]string{"history", "a/b", "-o", "name"}, `custom-columns=SPEC` + "\n"},
		{[]string{"diff", "a/b", "-o", "jsonpath={.x}"}, `must be one of ndjson, json, yaml, table, wide` + "\n"},
	} {
		var out, errOut bytes.Buffer
		code := Main(context.Background(), append(tc.args, "--kubeconfig", filepath.Join(dir, "no-kubeconfig")), Streams{Out: &out, Err: &errOut})
		if code != 2 || !strings.Contains(errOut.String(), tc.want) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out.String(), errOut.String(), tc.want)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("-o wrote %v into the working folder", entries)
	}
}

// TestTemplatesAndNoHeaders prints the same objects with jsonpath (one
// object, and a List), custom-columns and --no-headers.
func TestTemplatesAndNoHeaders(t *testing.T) {
	items := []map[string]any{
		{"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"}}, "status": map[string]any{"itemCount": int64(3)}},
		{"metadata": map[string]any{"name": "worker-long-name"}},
	}
	format := func(v string) outputFormat {
		o, err := parseOutput(v, true, true)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	for _, tc := range []struct {
		format    string
		single    bool
		noHeaders bool
		want      string
	}{
		{"jsonpath={.items[*].metadata.name}", false, false, "web worker-long-name"},
		{"jsonpath={.metadata.name}", true, false, "web"},
		{"custom-columns=NAME:.metadata.name,APP:{.metadata.labels.app},ITEMS:status.itemCount", false, false,
			"NAME               APP      ITEMS\nweb                web      3\nworker-long-name   <none>   <none>\n"},
		{"custom-columns=ITEMS:.status.itemCount,NAME:.metadata.name", false, true, "3        web\n<none>   worker-long-name\n"},
	} {
		var out bytes.Buffer
		one := items
		if tc.single {
			one = items[:1]
		}
		if err := printTemplate(&out, format(tc.format), one, tc.single, tc.noHeaders); err != nil || out.String() != tc.want {
			t.Errorf("%s: %q (%v), want %q", tc.format, out.String(), err, tc.want)
		}
	}
	file := filepath.Join(t.TempDir(), "t.jsonpath")
	if err := os.WriteFile(file, []byte(`{range .items[*]}{.metadata.name}{"\n"}{end}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := printTemplate(&out, format("jsonpath-file="+file), items, false, false); err != nil || out.String() != "web\nworker-long-name\n" {
		t.Errorf("jsonpath-file: %q (%v)", out.String(), err)
	}
}

// TestNoHeadersDropsTheHeaderAndItsWidth: the columns fit the rows alone.
func TestNoHeadersDropsTheHeaderAndItsWidth(t *testing.T) {
	var out bytes.Buffer
	w := newTable(&out, true)
	fmt.Fprint(w, "A-VERY-LONG-HEADER\t") // a header written in pieces
	fmt.Fprint(w, "B\nx\ty\n")
	fmt.Fprint(w, "xx\tyy\n")
	if err := w.Flush(); err != nil || out.String() != "x     y\nxx    yy\n" {
		t.Errorf("%q (%v)", out.String(), err)
	}
}

// TestVerbosityIsMinusV: -v LEVEL is kubectl's log verbosity on every
// command; --version stays, and -v alone no longer prints it.
func TestVerbosityIsMinusV(t *testing.T) {
	for _, args := range [][]string{{"version", "-v", "3"}, {"--v=3", "version"}, {"-v3", "version"}} {
		var out, errOut bytes.Buffer
		if code := Main(context.Background(), args, Streams{Out: &out, Err: &errOut}); code != 0 || !strings.HasPrefix(out.String(), "kollect ") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out.String(), errOut.String())
		}
	}
	var out, errOut bytes.Buffer
	if code := Main(context.Background(), []string{"-v"}, Streams{Out: &out, Err: &errOut}); code != 2 || out.Len() != 0 ||
		!strings.Contains(errOut.String(), "flag needs an argument: 'v' in -v") {
		t.Errorf("-v alone: exit %d, stdout %q, stderr %q; want 2, needs a level", code, out.String(), errOut.String())
	}
}
