package treetest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/tree"
)

// ReadFile returns one file of a tree: its content, and false when the
// tree does not hold it.
type ReadFile func(path string) ([]byte, bool, error)

// Reader is a sinktest.Reader of a tree sink laid out by Spec.
type Reader struct {
	// Spec is the sink's layout (tree.SpecFor of its spec).
	Spec tree.Spec
	// Open returns the reader of the tree that holds inv's files (the tip
	// of the branch the sink writes inv to).
	Open func(ctx context.Context, cluster string, inv busv1.NamespacedName) (ReadFile, error)
}

// Read implements sinktest.Reader: the rows of the files the inventory's
// state lists (the index of a split layout left out), sorted, with the
// state's revision and checksum; false when the tree holds no state.
func (r Reader) Read(ctx context.Context, cluster string, inv busv1.NamespacedName) (sinktest.Projection, bool, error) {
	read, err := r.Open(ctx, cluster, inv)
	if err != nil {
		return sinktest.Projection{}, false, err
	}
	data, ok, err := read(tree.StatePath(cluster, inv))
	if err != nil || !ok {
		return sinktest.Projection{}, false, err
	}
	st, err := tree.ParseState(data)
	if err == nil {
		st, err = st.WithShardFiles(cluster, inv, read)
	}
	if err != nil {
		return sinktest.Projection{}, false, err
	}
	index, err := tree.Render(r.Spec, busv1.Envelope{Cluster: cluster, Inventory: inv, Generation: st.Generation})
	if err != nil {
		return sinktest.Projection{}, false, err
	}
	p := sinktest.Projection{Revision: st.Revision, Checksum: st.Checksum}
	for _, path := range st.Files {
		if r.Spec.Mode == tree.ModeSplit && path == index[0].Path {
			continue
		}
		content, ok, err := read(path)
		if err != nil || !ok {
			return p, false, fmt.Errorf("the state lists %s, which the tree does not hold (%v)", path, err)
		}
		rows, err := ParseRows(r.Spec, content)
		if err != nil {
			return p, false, fmt.Errorf("parse %s: %w", path, err)
		}
		p.Rows = append(p.Rows, rows...)
	}
	slices.SortFunc(p.Rows, busv1.CompareRows)
	return p, true, nil
}

// ParseRows decodes the rows of one file of content item laid out by s.
func ParseRows(s tree.Spec, data []byte) ([]busv1.Row, error) {
	var rows []busv1.Row
	switch {
	case s.Mode != tree.ModeDocument && s.Format == tree.FormatYAML:
		var row busv1.Row
		err := yaml.Unmarshal(data, &row)
		return []busv1.Row{row}, err
	case s.Mode != tree.ModeDocument:
		var row busv1.Row
		err := json.Unmarshal(data, &row)
		return []busv1.Row{row}, err
	case s.Format == tree.FormatYAML:
		err := yaml.Unmarshal(data, &rows)
		return rows, err
	case s.Format == tree.FormatJSON:
		var env busv1.Envelope
		err := json.Unmarshal(data, &env)
		return env.Items, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var row busv1.Row
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, sc.Err()
}
