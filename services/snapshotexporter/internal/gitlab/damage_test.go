package gitlab

import (
	"context"
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/tree"
)

// stateFiles returns the files the inventory's State lists on its branch.
func (r *reader) stateFiles(cluster string, inv busv1.NamespacedName) ([]string, error) {
	ref := r.branch(cluster, inv)
	data, ok, err := r.gl.ReadFile(r.project, ref, tree.StatePath(cluster, inv))
	if err != nil || !ok {
		return nil, fmt.Errorf("read the state on %s (found %t): %v", ref, ok, err)
	}
	st, err := tree.ParseState(data)
	if err == nil {
		st, err = st.WithShardFiles(cluster, inv, func(p string) ([]byte, bool, error) {
			return r.gl.ReadFile(r.project, ref, p)
		})
	}
	if err != nil {
		return nil, err
	}
	if len(st.Files) == 0 {
		return nil, fmt.Errorf("the state of %s lists no files", inv)
	}
	return st.Files, nil
}

// Damage implements sinktest.Damager: it deletes the last file the
// inventory's State lists, in a commit of its own.
func (r *reader) Damage(_ context.Context, cluster string, inv busv1.NamespacedName) error {
	files, err := r.stateFiles(cluster, inv)
	if err != nil {
		return err
	}
	r.gl.DeleteFile(r.t, r.project, r.branch(cluster, inv), files[len(files)-1])
	return nil
}
