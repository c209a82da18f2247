package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/nats-io/nats.go/jetstream"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/tree"
)

// truthRow is what the cluster holds for one load object.
type truthRow struct {
	obj Object
	seq string
}

// truth lists the load objects of tier from the API server, by uid.
func truth(ctx context.Context, cs kubernetes.Interface, tier string) (map[string]truthRow, error) {
	out := map[string]truthRow{}
	opts := metav1.ListOptions{LabelSelector: TierLabel + "=" + tier}
	cms, err := cs.CoreV1().ConfigMaps("").List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list configmaps: %w", err)
	}
	for _, o := range cms.Items {
		out[string(o.UID)] = truthRow{obj: Object{Kind: "ConfigMap", Namespace: o.Namespace, Name: o.Name, UID: string(o.UID)},
			seq: o.Annotations[SeqAnnotation]}
	}
	ds, err := cs.AppsV1().Deployments("").List(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("list deployments: %w", err)
	}
	for _, o := range ds.Items {
		out[string(o.UID)] = truthRow{obj: Object{Kind: "Deployment", Namespace: o.Namespace, Name: o.Name, UID: string(o.UID)},
			seq: o.Annotations[SeqAnnotation]}
	}
	return out, nil
}

// diff counts how a sink's rows (uid → seq) differ from the cluster.
type diff struct {
	Missing, Extra, Stale int
	Example               string
}

func (d diff) ok() bool { return d.Missing == 0 && d.Extra == 0 && d.Stale == 0 }

func (d diff) String() string {
	return fmt.Sprintf("%d missing, %d extra, %d stale (e.g. %s)", d.Missing, d.Extra, d.Stale, d.Example)
}

func compare(want map[string]truthRow, got map[string]string) diff {
	var d diff
	note := func(s string) {
		if d.Example == "" {
			d.Example = s
		}
	}
	for uid, t := range want {
		seq, ok := got[uid]
		switch {
		case !ok:
			d.Missing++
			note("missing " + t.obj.Namespace + "/" + t.obj.Name)
		case seq != t.seq:
			d.Stale++
			note(fmt.Sprintf("%s/%s seq %q, want %q", t.obj.Namespace, t.obj.Name, seq, t.seq))
		}
	}
	for uid := range got {
		if _, ok := want[uid]; !ok {
			d.Extra++
			note("extra uid " + uid)
		}
	}
	return d
}

// all returns every row of the inventory in the PostgreSQL table: uid → seq.
func (s *pgSink) all(ctx context.Context) (map[string]string, error) {
	rows, err := s.pool.Query(ctx, `SELECT source_uid, coalesce(attributes->>'seq', '') FROM public.`+Table+`
WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, Cluster, ControlNamespace, InventoryName)
	if err != nil {
		return nil, fmt.Errorf("query rows: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var uid, seq string
		if err := rows.Scan(&uid, &seq); err != nil {
			return nil, err
		}
		out[uid] = seq
	}
	return out, rows.Err()
}

// sinkState is the revision and checksum a sink says it holds.
type sinkState struct {
	Revision uint64
	Checksum string
}

// state returns the inventory's state row.
func (s *pgSink) state(ctx context.Context) (sinkState, error) {
	var st sinkState
	var rev int64
	err := s.pool.QueryRow(ctx, `SELECT revision, checksum FROM public.`+Table+`_state
WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, Cluster, ControlNamespace, InventoryName).Scan(&rev, &st.Checksum)
	if err != nil {
		if strings.Contains(err.Error(), "no rows") || strings.Contains(err.Error(), "does not exist") {
			return st, nil
		}
		return st, err
	}
	st.Revision = uint64(max(rev, 0))
	return st, nil
}

// rows returns the rows the Git head holds: uid → seq, read from each file
// the inventory's State lists (the perResource file names its uid in
// source.uid and the seq attribute).
func (g *gitSink) rows() (map[string]string, sinkState, error) {
	st, err := g.state()
	if err != nil {
		return nil, sinkState{}, err
	}
	out := map[string]string{}
	for _, p := range st.Files {
		body, err := g.file(p)
		if err != nil {
			return nil, sinkState{}, err
		}
		uid, seq := fileRow(body)
		if uid == "" {
			return nil, sinkState{}, fmt.Errorf("file %s names no source uid", p)
		}
		out[uid] = seq
	}
	return out, sinkState{Revision: st.Revision, Checksum: st.Checksum}, nil
}

// fileRow reads the uid and the seq attribute of a perResource YAML file.
func fileRow(body string) (uid, seq string) {
	for line := range strings.SplitSeq(body, "\n") {
		t := strings.TrimSpace(line)
		if v, ok := strings.CutPrefix(t, "uid: "); ok && uid == "" {
			uid = strings.Trim(v, `"'`)
		}
		if v, ok := strings.CutPrefix(t, "seq: "); ok && seq == "" {
			seq = strings.Trim(v, `"'`)
		}
	}
	return uid, seq
}

// history walks the first-parent history of main and returns the
// inventory's State revision at each commit that changed it, oldest first.
func (g *gitSink) history() ([]uint64, error) {
	r, err := git.PlainOpen(g.dir)
	if err != nil {
		return nil, err
	}
	ref, err := r.Reference(plumbing.NewBranchReferenceName("main"), true)
	if err != nil {
		return nil, nil //nolint:nilerr // no branch yet
	}
	inv := busv1.NamespacedName{Namespace: ControlNamespace, Name: InventoryName}
	path := tree.StatePath(Cluster, inv)
	var revs []uint64
	var lastBlob plumbing.Hash
	c, err := r.CommitObject(ref.Hash())
	for err == nil {
		t, terr := c.Tree()
		if terr != nil {
			return nil, terr
		}
		var blob plumbing.Hash
		if f, ferr := t.File(path); ferr == nil {
			blob = f.Hash
			if blob != lastBlob {
				var st tree.State
				body, cerr := f.Contents()
				if cerr != nil {
					return nil, cerr
				}
				if jerr := json.Unmarshal([]byte(body), &st); jerr != nil {
					return nil, fmt.Errorf("commit %s: state: %w", c.Hash, jerr)
				}
				revs = append(revs, st.Revision)
			}
		}
		lastBlob = blob
		if c.NumParents() == 0 {
			break
		}
		c, err = c.Parent(0)
	}
	if err != nil && !errors.Is(err, object.ErrParentNotFound) {
		return nil, err
	}
	for i, j := 0, len(revs)-1; i < j; i, j = i+1, j-1 {
		revs[i], revs[j] = revs[j], revs[i]
	}
	return revs, nil
}

// historyDefects counts, in a Git history of State revisions (oldest
// first), the commits that repeat a revision and those that go backwards.
func historyDefects(revs []uint64) (dup, back int) {
	seen := map[uint64]int{}
	for i, r := range revs {
		seen[r]++
		if i > 0 && r < revs[i-1] {
			back++
		}
	}
	for _, n := range seen {
		if n > 1 {
			dup += n - 1
		}
	}
	return dup, back
}

// exportState returns the export state the exporter recorded for the load
// inventory's binding of the sink name of family f.
func exportState(ctx context.Context, js jetstream.JetStream, f busv1.Family, name string) (sinkState, error) {
	kv, err := js.KeyValue(ctx, bus.BucketExportState)
	if err != nil {
		return sinkState{}, err
	}
	inv := busv1.NamespacedName{Namespace: ControlNamespace, Name: InventoryName}
	e, err := kv.Get(ctx, bus.ExportStateKey(inv, busv1.SinkRef{Family: f, Namespace: ControlNamespace, Name: name}))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return sinkState{}, nil
	}
	if err != nil {
		return sinkState{}, err
	}
	var st busv1.ExportState
	if err := json.Unmarshal(e.Value(), &st); err != nil {
		return sinkState{}, err
	}
	return sinkState{Revision: st.Revision, Checksum: st.Checksum}, nil
}

// deadLetters returns how many dead letters the bus holds.
func deadLetters(ctx context.Context, js jetstream.JetStream) (uint64, error) {
	s, err := js.Stream(ctx, bus.StreamDeadLetters)
	if err != nil {
		return 0, err
	}
	info, err := s.Info(ctx)
	if err != nil {
		return 0, err
	}
	return info.State.Msgs, nil
}
