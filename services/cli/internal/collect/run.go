package collect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/cli/internal/manifests"
	"kollect.dev/kollect/services/cli/internal/restmap"
)

// Exit codes of docs/contract.md.
const (
	ExitOK      = 0 // everything collected
	ExitPartial = 1 // some contexts, kinds or objects failed
	ExitNothing = 2 // nothing collected, or invalid input
)

// Options configure a collection.
type Options struct {
	// Kubeconfig is the kubeconfig path; empty uses the usual loading rules.
	Kubeconfig string
	// Contexts are context names or globs; empty means the current context.
	Contexts []string
	// Namespace is given to namespaced objects of the config folder that
	// have none.
	Namespace string
	// Format is ndjson, json or yaml.
	Format string
	// Output is "-" for standard output or a folder to write files into.
	Output string
	// Layout is the tree layout of the files under Output: document (the
	// default), perResource or split.
	Layout string
	// PageSize is the list page size.
	PageSize int64
	// Extract are operator-level extraction options.
	Extract extract.Options
	// Progress receives a progress line per step when not nil.
	Progress io.Writer
	// Now is the export time; zero means time.Now.
	Now time.Time
	// Kube gives the kubeconfig and each context's client configuration;
	// nil uses Kubeconfig alone.
	Kube Kube
	// Namespaces, when not empty, restrict collection to these namespaces
	// (kubectl -n): namespaced objects elsewhere are not listed and
	// cluster-scoped kinds are not collected.
	Namespaces []string
	// Warnings receives warnings (a context glob matching nothing, a
	// namespace list that is forbidden) when not nil.
	Warnings io.Writer
}

// Run collects from every selected context and writes the records to out
// (or to files under Output). It returns the exit code and the errors that
// explain it.
func Run(ctx context.Context, objs []manifests.Object, opts Options, out io.Writer) (int, error) {
	set, err := manifests.Sort(withNamespace(objs, opts.Namespace))
	if err != nil {
		return ExitNothing, err
	}
	p, err := compile(set, opts.Extract)
	if err != nil {
		return ExitNothing, err
	}
	if len(p.targets) == 0 {
		return ExitNothing, errors.New("the config folder has no KollectTarget or KollectClusterTarget to collect")
	}
	w, err := newWriter(opts.Format, opts.Layout, opts.Output, out)
	if err != nil {
		return ExitNothing, err
	}
	contexts, err := selectContexts(opts.kube(), opts.Contexts, opts.Warnings)
	if err != nil {
		return ExitNothing, err
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	mem := newSoftLimit()
	defer mem.restore()
	results := make([]contextResult, len(contexts))
	var wg sync.WaitGroup
	for i, c := range contexts {
		wg.Go(func() { results[i] = collectContext(ctx, set, p, c, opts, w.ext, mem) })
	}
	wg.Wait()
	var errs []error
	collected := 0
	for _, r := range results {
		errs = append(errs, r.errs...)
		if r.err != nil {
			errs = append(errs, r.err)
			continue
		}
		for _, rec := range r.records {
			if err := w.write(rec); err != nil {
				return ExitPartial, errors.Join(append(errs, err)...)
			}
		}
		collected++
	}
	if err := w.close(); err != nil {
		errs = append(errs, err)
	}
	switch {
	case collected == 0:
		return ExitNothing, errors.Join(errs...)
	case len(errs) > 0:
		return ExitPartial, errors.Join(errs...)
	}
	return ExitOK, nil
}

type contextResult struct {
	records []Record
	errs    []error // partial failures
	err     error   // the context produced nothing
}

func collectContext(ctx context.Context, set *manifests.Set, p *plan, kctx kubeContext, opts Options, ext string, mem *softLimit) contextResult {
	cfg, err := kctx.config()
	if err != nil {
		return contextResult{err: fmt.Errorf("context %s: %w", kctx.name, err)}
	}
	cfg.QPS, cfg.Burst = 100, 200
	l, err := newLister(cfg, opts.PageSize)
	if err != nil {
		return contextResult{err: fmt.Errorf("context %s: %w", kctx.name, err)}
	}
	dyn, err := dynamic.NewForConfig(cfg) // single gets; lists go through l
	if err != nil {
		return contextResult{err: fmt.Errorf("context %s: %w", kctx.name, err)}
	}
	mapper, err := restmap.New(cfg)
	if err != nil {
		return contextResult{err: fmt.Errorf("context %s: discover API resources: %w", kctx.name, err)}
	}
	shown := pageProgress(opts.Progress, kctx.name)
	l.page = func(gvr schema.GroupVersionResource, n int) {
		if shown != nil {
			shown(gvr, n)
		}
		mem.adjust()
	}
	namespaces, p, err := reach(ctx, l, dyn, p, opts, kctx.name)
	if err != nil {
		return contextResult{err: fmt.Errorf("context %s: %w", kctx.name, err)}
	}
	var res contextResult
	var rows []busv1.Row
	var mu sync.Mutex
	var wg sync.WaitGroup
	for gvk, targets := range p.byGVK {
		mapping, err := mapper.RESTMapping(ctx, gvk)
		if err != nil {
			mu.Lock() // the goroutines of kinds already mapped append too
			res.errs = append(res.errs, fmt.Errorf("context %s: %s: %w", kctx.name, gvk, err))
			mu.Unlock()
			continue
		}
		wg.Go(func() {
			r, err := collectGVK(ctx, l, mapping, targets, namespaces)
			mu.Lock()
			defer mu.Unlock()
			rows = append(rows, r.rows...)
			res.errs = append(res.errs, r.failures...)
			if err != nil {
				res.errs = append(res.errs, fmt.Errorf("context %s: %w", kctx.name, err))
			}
			progress(opts.Progress, "%s: %s: %d rows", kctx.name, gvk.Kind, len(r.rows))
		})
	}
	wg.Wait()
	res.records, res.err = buildRecords(set, p, rows, namespaces, kctx.name, kctx.name, ext, opts.Now)
	return res
}

func progress(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, "\r\033[K"+format, args...)
	}
}

// withNamespace gives namespaced kollect objects without a namespace the
// --namespace value, as kubectl -n would.
func withNamespace(objs []manifests.Object, ns string) []manifests.Object {
	if ns == "" {
		return objs
	}
	for _, o := range objs {
		if o.Object.GetNamespace() == "" && !clusterScoped(o.Object.GetKind()) {
			o.Object.SetNamespace(ns)
		}
	}
	return objs
}

func clusterScoped(kind string) bool {
	switch kind {
	case "KollectClusterTarget", "KollectClusterInventory", "KollectClusterScope", "Namespace":
		return true
	}
	return false
}
