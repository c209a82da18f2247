package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/util/jsonpath"

	"kollect.dev/kollect/services/cli/climain"
)

// templateFormats are the -o values that print what a template selects,
// as kubectl spells them; name prints TYPE/NAME (get only).
var templateFormats = []string{"jsonpath=TEMPLATE", "jsonpath-file=FILE", "custom-columns=SPEC"}

// outputFormat is a parsed -o value: one of formats, name, or a template
// (jsonpath, custom-columns) already compiled.
type outputFormat struct {
	name     string // a format, "name", "jsonpath" or "custom-columns"
	jsonpath *printers.JSONPathPrinter
	columns  []customColumn
}

func (o outputFormat) template() bool { return o.name == "jsonpath" || o.name == "custom-columns" }

// parseOutput reads an -o value: one of formats, else (when templates) a
// jsonpath or custom-columns template, else (when name) name. Anything
// else is exit status 2 with the list of the valid values.
func parseOutput(value string, templates, name bool) (outputFormat, error) {
	if slices.Contains(formats, value) || (name && value == "name") {
		return outputFormat{name: value}, nil
	}
	kind, arg, _ := strings.Cut(value, "=")
	if templates {
		switch kind {
		case "jsonpath", "jsonpath-file":
			tmpl := arg
			if kind == "jsonpath-file" {
				b, err := os.ReadFile(arg) //nolint:gosec // G304: the file the user names
				if err != nil {
					return outputFormat{}, usageError(fmt.Errorf("-o/--output jsonpath-file: %w", err))
				}
				tmpl = string(b)
			}
			if strings.TrimSpace(tmpl) == "" {
				return outputFormat{}, usageError(fmt.Errorf("-o/--output %s: the template is empty", kind))
			}
			p, err := printers.NewJSONPathPrinter(tmpl)
			if err != nil {
				return outputFormat{}, usageError(fmt.Errorf("-o/--output %q: %w", value, err))
			}
			p.AllowMissingKeys(true)
			return outputFormat{name: "jsonpath", jsonpath: p}, nil
		case "custom-columns":
			cols, err := parseCustomColumns(arg)
			if err != nil {
				return outputFormat{}, usageError(fmt.Errorf("-o/--output %q: %w", value, err))
			}
			return outputFormat{name: "custom-columns", columns: cols}, nil
		}
	}
	return outputFormat{}, usageError(fmt.Errorf("-o/--output %q: must be one of %s", value, validFormats(templates, name)))
}

// validFormats lists the -o values of a command, for its help and errors.
func validFormats(templates, name bool) string {
	l := slices.Clone(formats)
	if name {
		l = append(l, "name")
	}
	if templates {
		l = append(l, templateFormats...)
	}
	return strings.Join(l, ", ")
}

func usageError(err error) error { return &climain.ExitError{Code: 2, Err: err} }

// customColumn is one column of -o custom-columns=HEADER:PATH,...
type customColumn struct {
	header string
	path   *jsonpath.JSONPath
}

var relaxedPath = regexp.MustCompile(`^\{\.?([^{}]+)\}$|^\.?([^{}]+)$`)

// parseCustomColumns reads kubectl's custom-columns spec: comma-separated
// HEADER:PATH, where PATH is .a.b, a.b, {.a.b} or {a.b}. (kubectl's own
// printer lives in k8s.io/kubectl, which links kustomize.)
func parseCustomColumns(spec string) ([]customColumn, error) {
	if spec == "" {
		return nil, fmt.Errorf("custom-columns format specified but no custom columns given")
	}
	var cols []customColumn
	for part := range strings.SplitSeq(spec, ",") {
		header, path, ok := strings.Cut(part, ":")
		if !ok || header == "" {
			return nil, fmt.Errorf("%q: want HEADER:PATH", part)
		}
		m := relaxedPath.FindStringSubmatch(path)
		if m == nil {
			return nil, fmt.Errorf("%q: want a path such as .metadata.name or {.metadata.name}", path)
		}
		expr := "{." + m[1] + m[2] + "}"
		j := jsonpath.New(header).AllowMissingKeys(true)
		if err := j.Parse(expr); err != nil {
			return nil, fmt.Errorf("%q: %w", path, err)
		}
		cols = append(cols, customColumn{header: header, path: j})
	}
	return cols, nil
}

// printTemplate prints items with a jsonpath or custom-columns format.
// jsonpath sees one object when single (get NAME), else a v1 List of
// items, as kubectl's does; custom-columns prints one line per item.
func printTemplate(out io.Writer, o outputFormat, items []map[string]any, single, noHeaders bool) error {
	if o.name == "jsonpath" {
		var obj map[string]any
		if single && len(items) == 1 {
			obj = items[0]
		} else {
			l := make([]any, len(items))
			for i := range items {
				l[i] = items[i]
			}
			obj = map[string]any{"apiVersion": "v1", "kind": "List", "items": l}
		}
		return o.jsonpath.PrintObj(&unstructured.Unstructured{Object: obj}, out)
	}
	w := newTable(out, noHeaders)
	headers := make([]string, len(o.columns))
	for i, c := range o.columns {
		headers[i] = c.header
	}
	fmt.Fprintln(w, strings.Join(headers, "\t"))
	for _, item := range items {
		cells := make([]string, len(o.columns))
		for i, c := range o.columns {
			results, err := c.path.FindResults(item)
			if err != nil {
				return err
			}
			var vals []string
			for _, r := range results {
				for _, v := range r {
					vals = append(vals, printers.EscapeTerminal(fmt.Sprint(v.Interface())))
				}
			}
			cells[i] = orNone(strings.Join(vals, ","), "<none>")
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	return w.Flush()
}

// tableWriter is a tab writer that drops the first line written to it (the
// header) with --no-headers, so that the columns fit the rows alone.
type tableWriter struct {
	w interface {
		io.Writer
		Flush() error
	}
	skip bool
}

// newTable returns the aligned writer of a table: cli-runtime's tab writer
// (kubectl's), without its header line when noHeaders.
func newTable(out io.Writer, noHeaders bool) *tableWriter {
	return &tableWriter{w: printers.GetNewTabWriter(out), skip: noHeaders}
}

func (t *tableWriter) Write(p []byte) (int, error) {
	if !t.skip {
		return t.w.Write(p)
	}
	i := bytes.IndexByte(p, '\n')
	if i < 0 {
		return len(p), nil
	}
	t.skip = false
	n, err := t.w.Write(p[i+1:])
	return i + 1 + n, err
}

// Flush writes the aligned table.
func (t *tableWriter) Flush() error { return t.w.Flush() }

// noHeadersFlag adds --no-headers to cmd.
func noHeadersFlag(cmd *cobra.Command, v *bool) {
	cmd.Flags().BoolVar(v, "no-headers", false, "print tables (and custom-columns) without their header line")
}
