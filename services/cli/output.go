package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/cli/internal/collect"
	"kollect.dev/kollect/services/cli/internal/manifests"
)

// formats are the values of -o, as kubectl spells them.
var formats = []string{"ndjson", "json", "yaml", "table", "wide"}

var formatList = strings.Join(formats, ", ")

// collectTo runs collect.Run and writes its records in format: the records
// themselves for ndjson, json and yaml, a table of rows for table and wide,
// what a jsonpath or custom-columns template selects of the records (a List
// of them). cols are the attribute columns of an ad-hoc collection (nil for
// a folder).
func collectTo(cmd *cobra.Command, s Streams, objs []manifests.Object, opts collect.Options, format outputFormat, cols []string, noHeaders bool) (int, error) {
	if format.name != "table" && format.name != "wide" && !format.template() {
		return collect.Run(cmd.Context(), objs, opts, s.Out)
	}
	pr, pw := io.Pipe()
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := collect.Run(cmd.Context(), objs, opts, pw)
		_ = pw.Close() // a pipe's close never fails
		done <- result{code, err}
	}()
	var recs []collect.Record
	dec := json.NewDecoder(pr)
	for {
		var r collect.Record
		if err := dec.Decode(&r); err == io.EOF {
			break
		} else if err != nil {
			pr.CloseWithError(err)
			<-done
			return collect.ExitNothing, fmt.Errorf("read records: %w", err)
		}
		recs = append(recs, r)
	}
	res := <-done
	if err := printRecords(s.Out, recs, cols, format, noHeaders); err != nil {
		return collect.ExitPartial, err
	}
	return res.code, res.err
}

// printRecords prints records read back from collect.Run as a table of
// rows or with a template.
func printRecords(out io.Writer, recs []collect.Record, cols []string, format outputFormat, noHeaders bool) error {
	if !format.template() {
		return printRows(out, recs, cols, format.name == "wide", noHeaders)
	}
	items, err := asMaps(recs)
	if err != nil {
		return err
	}
	return printTemplate(out, format, items, false, noHeaders)
}

// asMaps turns values into their JSON objects, for templates.
func asMaps[T any](values []T) ([]map[string]any, error) {
	out := make([]map[string]any, len(values))
	for i := range values {
		b, err := json.Marshal(values[i])
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// printRows prints the rows of recs as kubectl prints a list: a header and
// one aligned line per row. CONTEXT appears when rows come from more than
// one context (always with wide), NAMESPACE unless every row is
// cluster-scoped.
func printRows(out io.Writer, recs []collect.Record, cols []string, wide, noHeaders bool) error {
	contexts := map[string]bool{}
	namespaced := false
	for _, r := range recs {
		contexts[r.Context] = true
		for _, row := range r.Envelope.Items {
			namespaced = namespaced || row.Namespace != ""
		}
	}
	withContext := wide || len(contexts) > 1
	var header []string
	if withContext {
		header = append(header, "CONTEXT")
	}
	if cols == nil {
		header = append(header, "INVENTORY")
	}
	if namespaced {
		header = append(header, "NAMESPACE")
	}
	if cols == nil {
		header = append(header, "KIND")
	}
	header = append(header, "NAME")
	for _, c := range cols {
		header = append(header, strings.ToUpper(c))
	}
	if cols == nil && wide {
		header = append(header, "ATTRIBUTES")
	}
	w := newTable(out, noHeaders)
	fmt.Fprintln(w, strings.Join(header, "\t"))
	for _, r := range recs {
		for _, row := range r.Envelope.Items {
			fmt.Fprintln(w, strings.Join(rowCells(r, row, cols, withContext, namespaced, wide), "\t"))
		}
	}
	return w.Flush()
}

func rowCells(r collect.Record, row busv1.Row, cols []string, withContext, namespaced, wide bool) []string {
	var cells []string
	if withContext {
		cells = append(cells, r.Context)
	}
	if cols == nil {
		cells = append(cells, r.Inventory)
	}
	if namespaced {
		cells = append(cells, row.Namespace)
	}
	if cols == nil {
		cells = append(cells, row.Kind)
	}
	cells = append(cells, row.Name)
	for _, c := range cols {
		cells = append(cells, cell(row.Attributes[c], row.Attributes != nil && hasKey(row.Attributes, c)))
	}
	if cols == nil && wide {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(row.Attributes)) {
			kv = append(kv, k+"="+cell(row.Attributes[k], true))
		}
		cells = append(cells, strings.Join(kv, ","))
	}
	return cells
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }

// cell prints one attribute value: strings as they are, anything else as
// compact JSON, and <none> for an attribute the row does not have.
func cell(v any, present bool) string {
	if !present || v == nil {
		return "<none>"
	}
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
