package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"
	"sigs.k8s.io/yaml"
)

// column is one column of `kollect get`: a header and how to read a cell.
type column struct {
	header string
	value  func(u *unstructured.Unstructured, now time.Time) string
}

func condition(u *unstructured.Unstructured, field string) string {
	return conditionOf(u, "Ready", field)
}

// conditionOf reads a field of the condition of type typ.
func conditionOf(u *unstructured.Unstructured, typ, field string) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == typ {
			s, _ := m[field].(string)
			return s
		}
	}
	return ""
}

var readyColumn = column{"READY", func(u *unstructured.Unstructured, _ time.Time) string {
	return orNone(condition(u, "status"), "Unknown")
}}

var syncedColumn = column{"SYNCED", func(u *unstructured.Unstructured, _ time.Time) string {
	return orNone(conditionOf(u, "Synced", "status"), "Unknown")
}}

var reasonColumn = column{"REASON", func(u *unstructured.Unstructured, _ time.Time) string {
	return orNone(condition(u, "reason"), "<none>")
}}

var messageColumn = column{"MESSAGE", func(u *unstructured.Unstructured, _ time.Time) string {
	return orNone(condition(u, "message"), "<none>")
}}

var profileColumn = column{"PROFILE", func(u *unstructured.Unstructured, _ time.Time) string {
	ns, _, _ := unstructured.NestedString(u.Object, "spec", "profileRef", "namespace")
	name, _, _ := unstructured.NestedString(u.Object, "spec", "profileRef", "name")
	if name == "" { // the established spelling: profileRef: NAME
		name, _, _ = unstructured.NestedString(u.Object, "spec", "profileRef")
	}
	if ns != "" {
		return ns + "/" + name
	}
	return name
}}

// sinkTypeColumn names the family and the backend (snapshot/git).
var sinkTypeColumn = column{"TYPE", func(u *unstructured.Unstructured, _ time.Time) string {
	family := strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(u.GetKind()), "kollect"), "sink")
	if t, _, _ := unstructured.NestedString(u.Object, "spec", "type"); t != "" {
		return family + "/" + t
	}
	return family
}}

func intColumn(header string, path ...string) column {
	return column{header, func(u *unstructured.Unstructured, _ time.Time) string {
		n, ok, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
		if !ok {
			return "0"
		}
		return fmt.Sprint(n)
	}}
}

// bytesColumn reads a byte count and prints it in binary units (5.1Mi).
func bytesColumn(header string, path ...string) column {
	return column{header, func(u *unstructured.Unstructured, _ time.Time) string {
		n, _, _ := unstructured.NestedInt64(u.Object, path...)
		return humanBytes(n)
	}}
}

// humanBytes prints n bytes in the largest binary unit it reaches, with one
// decimal unless whole: 512, 12.3Ki, 256Mi, 1.5Gi.
func humanBytes(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return strconv.FormatInt(n, 10)
	}
	v, i := float64(n)/1024, 0
	for v >= 1024 && i < len(units)-1 {
		v, i = v/1024, i+1
	}
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0") + string(units[i]) + "i"
}

func ageColumn(header string, path ...string) column {
	return column{header, func(u *unstructured.Unstructured, now time.Time) string {
		s, _, _ := unstructured.NestedString(u.Object, path...)
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return "<none>"
		}
		return duration.HumanDuration(now.Sub(t))
	}}
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// printObjects prints items as kubectl get does: NAMESPACE (with -A), NAME,
// the kind's columns, and MESSAGE with wide.
func printObjects(out io.Writer, items []unstructured.Unstructured, cols []column, all, wide, noHeaders bool, now time.Time) error {
	if wide {
		cols = append(cols[:len(cols):len(cols)], messageColumn)
	}
	w := newTable(out, noHeaders)
	var header []string
	if all {
		header = append(header, "NAMESPACE")
	}
	header = append(header, "NAME")
	for _, c := range cols {
		header = append(header, c.header)
	}
	fmt.Fprintln(w, strings.Join(header, "\t"))
	for i := range items {
		u := &items[i]
		var cells []string
		if all {
			cells = append(cells, u.GetNamespace())
		}
		cells = append(cells, u.GetName())
		for _, c := range cols {
			cells = append(cells, c.value(u, now))
		}
		fmt.Fprintln(w, strings.Join(cells, "\t"))
	}
	return w.Flush()
}

// printList prints items as a v1 List (json, yaml) or one object per line
// (ndjson).
func printList(out io.Writer, items []unstructured.Unstructured, format string) error {
	if format == "ndjson" {
		enc := json.NewEncoder(out)
		for i := range items {
			if err := enc.Encode(items[i].Object); err != nil {
				return err
			}
		}
		return nil
	}
	objs := make([]any, len(items))
	for i := range items {
		objs[i] = items[i].Object
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{"resourceVersion": ""}, "items": objs}
	var b []byte
	var err error
	if format == "yaml" {
		b, err = yaml.Marshal(list)
	} else {
		b, err = json.MarshalIndent(list, "", "    ")
		b = append(b, '\n')
	}
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}
