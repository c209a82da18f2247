package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/jackc/pgx/v5/pgxpool"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/tree"
)

// pgSink reads the PostgreSQL sink's table.
type pgSink struct{ pool *pgxpool.Pool }

func newPGSink(ctx context.Context, dsn string) (*pgSink, error) {
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("connect postgres: %w", err)
	}
	return &pgSink{pool: pool}, nil
}

// count returns the inventory's row count; a missing table counts zero.
func (s *pgSink) count(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM public.`+Table+` WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`,
		Cluster, ControlNamespace, InventoryName).Scan(&n)
	if err != nil && strings.Contains(err.Error(), "does not exist") {
		return 0, nil
	}
	return n, err
}

// counts returns the row count of every inventory in the table (a missing
// table holds none).
func (s *pgSink) counts(ctx context.Context) (map[busv1.NamespacedName]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT inventory_namespace, inventory_name, count(*) FROM public.`+Table+`
WHERE cluster = $1 GROUP BY 1, 2`, Cluster)
	if err != nil {
		if strings.Contains(err.Error(), "does not exist") {
			return nil, nil
		}
		return nil, fmt.Errorf("count rows: %w", err)
	}
	defer rows.Close()
	out := map[busv1.NamespacedName]int{}
	for rows.Next() {
		var inv busv1.NamespacedName
		var n int
		if err := rows.Scan(&inv.Namespace, &inv.Name, &n); err != nil {
			return nil, err
		}
		out[inv] = n
	}
	return out, rows.Err()
}

// seqs returns the exported seq attribute of the given objects in their
// namespaces' inventories, by uid; absent rows are absent from the map.
func (s *pgSink) seqs(ctx context.Context, objs []Object) (map[string]string, error) {
	nss, targets, uids := make([]string, len(objs)), make([]string, len(objs)), make([]string, len(objs))
	for i, o := range objs {
		nss[i], targets[i], uids[i] = o.Namespace, targetOf(o.Kind), o.UID
	}
	rows, err := s.pool.Query(ctx, `SELECT source_uid, coalesce(attributes->>'seq', '') FROM public.`+Table+`
WHERE cluster = $1 AND inventory_name = $2 AND inventory_namespace = target_namespace
AND (inventory_namespace, target_name, source_uid) IN (SELECT * FROM unnest($3::text[], $4::text[], $5::text[]))`,
		Cluster, InventoryName, nss, targets, uids)
	if err != nil {
		return nil, fmt.Errorf("query seqs: %w", err)
	}
	defer rows.Close()
	out := make(map[string]string, len(objs))
	for rows.Next() {
		var uid, seq string
		if err := rows.Scan(&uid, &seq); err != nil {
			return nil, err
		}
		out[uid] = seq
	}
	return out, rows.Err()
}

// present counts the rows of the given objects left in any inventory.
func (s *pgSink) present(ctx context.Context, objs []Object) (int, error) {
	uids := make([]string, len(objs))
	for i, o := range objs {
		uids[i] = o.UID
	}
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM public.`+Table+` WHERE cluster = $1 AND source_uid = ANY($2)`,
		Cluster, uids).Scan(&n)
	return n, err
}

func (s *pgSink) close() { s.pool.Close() }

// targetOf names the Target collecting kind (simResources names the
// simulated source's Pods' and Widgets').
func targetOf(kind string) string {
	switch kind {
	case "ConfigMap":
		return CMTarget
	case "Deployment":
		return DeployTarget
	}
	return strings.ToLower(kind) + "s"
}

// gitSink reads the Git sink's bare repository on disk.
type gitSink struct {
	dir string
	// perNamespace reads each load namespace's inventory from the branch
	// named as the namespace (the system run's sinks, so that a hundred
	// inventories do not race for one ref); else every file is on main.
	perNamespace bool
	heads        map[string]plumbing.Hash
	trees        map[string]*object.Tree
}

// refresh reopens the repository and reports whether any branch moved.
func (g *gitSink) refresh() (bool, error) {
	r, err := git.PlainOpen(g.dir)
	if err != nil {
		return false, fmt.Errorf("open repository: %w", err)
	}
	refs, err := r.Branches()
	if err != nil {
		return false, fmt.Errorf("list branches: %w", err)
	}
	defer refs.Close()
	heads := map[string]plumbing.Hash{}
	err = refs.ForEach(func(ref *plumbing.Reference) error {
		heads[ref.Name().Short()] = ref.Hash()
		return nil
	})
	if err != nil || maps.Equal(heads, g.heads) {
		return false, err
	}
	// Every tree is read again through this opening: the server's
	// git gc --auto may have removed the packs an older one read from.
	trees := make(map[string]*object.Tree, len(heads))
	for name, h := range heads {
		c, err := r.CommitObject(h)
		if err != nil {
			return false, fmt.Errorf("read commit of %s: %w", name, err)
		}
		if trees[name], err = c.Tree(); err != nil {
			return false, fmt.Errorf("read tree of %s: %w", name, err)
		}
	}
	g.heads, g.trees = heads, trees
	return true, nil
}

// branchOf is the branch holding namespace ns's inventory.
func (g *gitSink) branchOf(ns string) string {
	if g.perNamespace && ns != ControlNamespace {
		return ns
	}
	return "main"
}

// file returns the content at path ({cluster}/{namespace}/...) in its
// branch's current head ("" when absent).
func (g *gitSink) file(path string) (string, error) {
	ns := ""
	if parts := strings.SplitN(path, "/", 3); len(parts) == 3 {
		ns = parts[1]
	}
	return g.fileIn(g.branchOf(ns), path)
}

// fileIn returns the content at path in branch's current head.
func (g *gitSink) fileIn(branch, path string) (string, error) {
	t := g.trees[branch]
	if t == nil {
		return "", nil
	}
	f, err := t.File(path)
	if err != nil {
		return "", nil
	}
	rd, err := f.Reader()
	if err != nil {
		return "", err
	}
	defer func() { _ = rd.Close() }()
	b, err := io.ReadAll(rd)
	return string(b), err
}

// state returns the control namespace's inventory's state file at the
// current head.
func (g *gitSink) state() (tree.State, error) {
	return g.stateOf(busv1.NamespacedName{Namespace: ControlNamespace, Name: InventoryName})
}

// stateOf returns inventory inv's state file at the current head.
func (g *gitSink) stateOf(inv busv1.NamespacedName) (tree.State, error) {
	var s tree.State
	branch := g.branchOf(inv.Namespace)
	body, err := g.fileIn(branch, tree.StatePath(Cluster, inv))
	if err != nil || body == "" {
		return s, err
	}
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		return s, err
	}
	return s.WithShardFiles(Cluster, inv, func(p string) ([]byte, bool, error) {
		b, err := g.fileIn(branch, p)
		return []byte(b), err == nil && b != "", err
	})
}

// filePath is where the perResource layout puts o (the default template
// {cluster}/{sourceNamespace}/{kind}/{sourceName}{extension}).
func filePath(o Object) string {
	return Cluster + "/" + o.Namespace + "/" + strings.ToLower(o.Kind) + "/" + o.Name + ".yaml"
}
