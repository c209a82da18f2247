package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/services/cli/internal/devbus"
)

// historyAPI reads one inventory's history through the Kubernetes API
// server (query.kollect.dev/v1alpha1, served by the query service), with
// the kubeconfig's credentials. A cluster inventory has no namespace (as
// on the bus) and is read through the cluster-scoped resources.
type historyAPI struct {
	rc  rest.Interface
	inv busv1.NamespacedName
	// cfg is the context's client configuration; dev is true once the
	// client reads from `kollect dev`'s history API instead (devQuery).
	cfg *rest.Config
	dev bool
}

// clusterInventoryFlag is the flag naming a KollectClusterInventory
// instead of the NAMESPACE/NAME argument.
const clusterInventoryFlag = "cluster-inventory"

// historyTarget resolves the inventory a history command reads: the
// KollectClusterInventory cluster when set, else args[0] (NAMESPACE/NAME,
// or NAME in -n's namespace).
func historyTarget(kube *kubeFlags, args []string, cluster string) (busv1.NamespacedName, error) {
	switch {
	case cluster != "" && len(args) > 0:
		return busv1.NamespacedName{}, fmt.Errorf("--%s %q and the inventory %q: name one", clusterInventoryFlag, cluster, args[0])
	case cluster != "":
		if strings.Contains(cluster, "/") {
			return busv1.NamespacedName{}, fmt.Errorf("--%s %q: a cluster inventory's name has no namespace", clusterInventoryFlag, cluster)
		}
		return busv1.NamespacedName{Name: cluster}, nil
	case len(args) == 0:
		return busv1.NamespacedName{}, fmt.Errorf("name an inventory: NAMESPACE/NAME, NAME (in -n's namespace) or --%s NAME", clusterInventoryFlag)
	}
	arg := args[0]
	ns, name, ok := strings.Cut(arg, "/")
	if !ok {
		var err error
		if ns, _, err = kube.namespace(); err != nil {
			return busv1.NamespacedName{}, err
		}
		name = arg
	}
	if ns == "" || name == "" {
		return busv1.NamespacedName{}, fmt.Errorf("inventory %q: want NAMESPACE/NAME or NAME (a cluster inventory: --%s NAME)", arg, clusterInventoryFlag)
	}
	return busv1.NamespacedName{Namespace: ns, Name: name}, nil
}

// newHistoryAPI returns the client of the one context reading inv's history.
func newHistoryAPI(kube *kubeFlags, inv busv1.NamespacedName) (*historyAPI, error) {
	cfg, err := kube.restConfig()
	if err != nil {
		return nil, err
	}
	rc, err := rawClient(cfg)
	if err != nil {
		return nil, err
	}
	return &historyAPI{rc: rc, inv: inv, cfg: cfg}, nil
}

// rawClient returns a client of absolute paths for cfg.
func rawClient(cfg *rest.Config) (rest.Interface, error) {
	// The dynamic client's JSON serializer, not a clientset: the everyday binary links no
	// typed client (TestEverydayCLILinksNoServiceOrSDK).
	c := dynamic.ConfigFor(cfg)
	c.GroupVersion = &schema.GroupVersion{}
	c.APIPath = "/"
	return rest.RESTClientFor(c)
}

// devQuery switches h to the history API that `kollect dev` serves on
// this machine for the context's API server (devbus.Query), when one
// runs: a cluster's API server cannot reach it, so the CLI calls it
// directly, with the context's credentials, trusting only the
// certificate that kollect dev made for its run.
func (h *historyAPI) devQuery() (bool, error) {
	if h.dev || h.cfg == nil {
		return false, nil
	}
	q, ok, err := devbus.ReadQuery(h.cfg.Host)
	if err != nil || !ok {
		return false, err
	}
	c := rest.CopyConfig(h.cfg)
	c.Host = q.URL
	c.TLSClientConfig.CAData, c.TLSClientConfig.CAFile = []byte(q.CA), ""
	c.TLSClientConfig.Insecure, c.TLSClientConfig.ServerName = false, ""
	c.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil } // loopback
	rc, err := rawClient(c)
	if err != nil {
		return false, err
	}
	h.rc, h.dev = rc, true
	return true, nil
}

// what names the inventory for messages.
func (h *historyAPI) what() string {
	if h.inv.Namespace == "" {
		return "cluster inventory " + h.inv.Name
	}
	return h.inv.String()
}

// kind is the inventory's kind, for messages.
func (h *historyAPI) kind() string {
	if h.inv.Namespace == "" {
		return "KollectClusterInventory"
	}
	return "KollectInventory"
}

// path is the API path of a resource (revisions or histories, the
// cluster-scoped ones for a cluster inventory) and what follows it.
func (h *historyAPI) path(resource string, parts ...string) string {
	if h.inv.Namespace == "" {
		r := map[string]string{queryv1.ResourceRevisions: queryv1.ResourceClusterRevisions,
			queryv1.ResourceHistories: queryv1.ResourceClusterHistories}[resource]
		return "/apis/" + queryv1.GroupVersion.String() + "/" + strings.Join(append([]string{r}, parts...), "/")
	}
	return "/apis/" + queryv1.GroupVersion.String() + "/namespaces/" + h.inv.Namespace + "/" +
		strings.Join(append([]string{resource}, parts...), "/")
}

// get decodes the answer of path with q into v.
func (h *historyAPI) get(ctx context.Context, path string, q url.Values, v any) error {
	req := h.rc.Get().AbsPath(path)
	for k, vs := range q {
		for _, s := range vs {
			req = req.Param(k, s)
		}
	}
	res := req.Do(ctx)
	b, err := res.Raw()
	if err != nil && noQueryAPI(res.Error()) {
		if ok, derr := h.devQuery(); derr != nil {
			return fmt.Errorf("history of %s: %w", h.what(), derr)
		} else if ok {
			return h.get(ctx, path, q, v)
		}
	}
	if err != nil {
		return h.explain(res.Error()) // the Status the server sent, when it sent one
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode the answer of %s: %w", path, err)
	}
	return nil
}

// explain turns the API server's answers into what the user can act on.
func (h *historyAPI) explain(err error) error {
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("history of %s: %w (reading it needs get on the %s and on the query.kollect.dev resources)", h.what(), err, h.kind())
	case apierrors.IsServiceUnavailable(err):
		return fmt.Errorf("history of %s: the query service is not available (yet): %w; kubectl get apiservice v1alpha1.query.kollect.dev "+
			"says why, kubectl wait --for=condition=Available apiservice/v1alpha1.query.kollect.dev waits for it", h.what(), err)
	case noQueryAPI(err):
		return fmt.Errorf("history of %s: the cluster serves no query.kollect.dev API: install the chart with query.enabled=true "+
			"(the default), or run kollect dev, which serves it on this machine: %w", h.what(), err)
	}
	return fmt.Errorf("history of %s: %w", h.what(), err)
}

// noQueryAPI reports whether err is the API server's answer for a group it
// does not serve.
func noQueryAPI(err error) bool {
	return apierrors.IsNotFound(err) && strings.Contains(err.Error(), "the server could not find the requested resource")
}

// revisions reads every revision, page by page.
func (h *historyAPI) revisions(ctx context.Context) ([]queryv1.InventoryRevision, error) {
	q := url.Values{"labelSelector": {queryv1.LabelInventory + "=" + h.inv.Name}}
	var out []queryv1.InventoryRevision
	for {
		var l queryv1.InventoryRevisionList
		if err := h.get(ctx, h.path(queryv1.ResourceRevisions), q, &l); err != nil {
			return nil, err
		}
		out = append(out, l.Items...)
		if l.Continue == "" {
			return out, nil
		}
		q.Set("continue", l.Continue)
	}
}

// rows reads the rows of the revision sel picks (see revisionParams),
// page by page.
func (h *historyAPI) rows(ctx context.Context, q url.Values) (*queryv1.Rows, error) {
	var all *queryv1.Rows
	for {
		var page queryv1.Rows
		if err := h.get(ctx, h.path(queryv1.ResourceHistories, h.inv.Name, queryv1.SubresourceRows), q, &page); err != nil {
			return nil, err
		}
		if all == nil {
			all = &page
		} else {
			all.Items = append(all.Items, page.Items...)
		}
		if page.Continue == "" {
			all.ListMeta = page.ListMeta
			return all, nil
		}
		q = url.Values{"continue": {page.Continue}}
	}
}

// diff reads the difference between two revisions, page by page.
func (h *historyAPI) diff(ctx context.Context, q url.Values) (*queryv1.Diff, error) {
	var all *queryv1.Diff
	for {
		var page queryv1.Diff
		if err := h.get(ctx, h.path(queryv1.ResourceHistories, h.inv.Name, queryv1.SubresourceDiff), q, &page); err != nil {
			return nil, err
		}
		if all == nil {
			all = &page
		} else {
			all.Items = append(all.Items, page.Items...)
		}
		if page.Continue == "" {
			all.ListMeta = page.ListMeta
			return all, nil
		}
		q = url.Values{"continue": {page.Continue}}
	}
}

// revisionOrTime checks a REV|TIME argument: a positive revision number
// or an RFC 3339 time; it is passed to the server as it is.
func revisionOrTime(flag, v string) error {
	if n, err := strconv.ParseUint(v, 10, 64); err == nil && n > 0 {
		return nil
	}
	if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
		return fmt.Errorf("%s %q: want a revision (a positive number) or an RFC 3339 time (2026-01-02T15:04:05Z)", flag, v)
	}
	return nil
}

// printDoc prints v as indented JSON or YAML.
func printDoc(out io.Writer, v any, format string) error {
	var b []byte
	var err error
	switch format {
	case "yaml":
		b, err = yaml.Marshal(v)
	case "json":
		b, err = json.MarshalIndent(v, "", "    ")
		b = append(b, '\n')
	default:
		return errors.New("printDoc: " + format)
	}
	if err != nil {
		return err
	}
	_, err = out.Write(b)
	return err
}

// printNDJSON prints each item on a line.
func printNDJSON[T any](out io.Writer, items []T) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for i := range items {
		if err := enc.Encode(&items[i]); err != nil {
			return err
		}
	}
	return nil
}
