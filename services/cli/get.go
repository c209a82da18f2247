package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/dynamic"

	"kollect.dev/kollect/api/v1alpha1"
)

// getKind is one thing `kollect get` lists: its resources (the cluster-scoped
// ones only with -A) and its columns.
type getKind struct {
	names      []string // accepted spellings, the first is canonical
	namespaced []string // resources listed in a namespace
	cluster    []string // cluster-scoped resources, listed with -A
	columns    []column
}

var getKinds = []getKind{
	{names: []string{"inventories", "inventory", "inv", "kinv"},
		namespaced: []string{"kollectinventories"}, cluster: []string{"kollectclusterinventories"},
		columns: []column{readyColumn, syncedColumn, reasonColumn, intColumn("ITEMS", "status", "itemCount"),
			intColumn("REVISIONS", "status", "history", "revisions"), bytesColumn("BUS BYTES", "status", "history", "bytes"),
			ageColumn("LAST EXPORT", "status", "lastExportTime"), ageColumn("AGE", "metadata", "creationTimestamp")}},
	{names: []string{"sinks", "sink"},
		namespaced: []string{"kollectsnapshotsinks", "kollectdatabasesinks", "kollecteventsinks"},
		columns:    []column{sinkTypeColumn, readyColumn, reasonColumn, ageColumn("AGE", "metadata", "creationTimestamp")}},
	{names: []string{"targets", "target", "tgt", "ktgt"},
		namespaced: []string{"kollecttargets"}, cluster: []string{"kollectclustertargets"},
		columns: []column{profileColumn, readyColumn, reasonColumn, intColumn("COLLECTED", "status", "collectedCount"), ageColumn("AGE", "metadata", "creationTimestamp")}},
}

func findGetKind(name string) (getKind, bool) {
	for _, k := range getKinds {
		if slices.Contains(k.names, strings.ToLower(name)) {
			return k, true
		}
	}
	return getKind{}, false
}

type getFlags struct {
	output        string
	allNamespaces bool
	noHeaders     bool
	selector      string
	// at and revision read an inventory's rows from its history (at a
	// time, or a revision) instead of listing objects.
	at, revision string
	// cluster names the KollectClusterInventory whose rows at and revision
	// read.
	cluster string
}

func newGetCommand(s Streams, kube *kubeFlags) *cobra.Command {
	var f getFlags
	cmd := &cobra.Command{
		Use:   "get (inventories | sinks | targets) [NAME | NAMESPACE/NAME] [-n NAMESPACE | -A] [-l SELECTOR] [-o FORMAT] [--at TIME | --revision N] [--cluster-inventory NAME]",
		Short: "List Kollect inventories, sinks or targets with their status, as kubectl get does",
		Long: `get lists the inventories, sinks (snapshot, database and event) or targets of a namespace
(-n, default the context's) or of every namespace (-A, which adds the cluster inventories and
cluster targets), with the Ready condition's status and reason; inventories also show what they
keep on the bus (REVISIONS retained and BUS BYTES, from status.history, as of the aggregator's
last trim: what counts against the namespace's quotas). -o wide adds its message;
-o json and -o yaml print the objects as a List, -o ndjson one object per line, -o name
TYPE/NAME, -o jsonpath=TEMPLATE what the template selects (from the one object named, else from
the List) and -o custom-columns=HEADER:PATH,... one line per object, as kubectl does.

An object is named NAME (in -n's namespace), NAMESPACE/NAME, or TYPE/NAME (inventory/workloads).
-l selects objects by label, as kubectl get -l does.

With --at TIME (RFC 3339) or --revision N, get inventory NAMESPACE/NAME prints the inventory's
rows as they were then, from the history the cluster keeps (query.kollect.dev, through the API
server with your credentials: you need get on the KollectInventory). get inventory
--cluster-inventory NAME --at TIME does the same for a KollectClusterInventory. -o ndjson prints
one row per line, -o json and -o yaml the revision with its rows.`,
		Example: `  # inventories of every namespace, with why they are not ready
  kollect get inventories -A

  # sinks of namespace shop, with the Ready message
  kollect get sinks -n shop -o wide

  # the names of the inventories labelled team=shop, one per line, for a script
  kollect get inventories -A -l team=shop -o custom-columns=NAME:.metadata.name --no-headers

  # one inventory's item count
  kollect get inventory shop/workloads -o jsonpath='{.status.itemCount}'

  # one target as YAML
  kollect get target images -n shop -o yaml

  # the rows of inventory workloads as they were on Monday morning
  kollect get inventory shop/workloads --at 2026-01-05T09:00:00Z

  # the rows of the cluster inventory fleet at its revision 12
  kollect get inventory --cluster-inventory fleet --revision 12`,
		Args:      cobra.RangeArgs(1, 2),
		ValidArgs: []string{"inventories", "sinks", "targets"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGet(cmd.Context(), s, kube, f, args)
		},
		ValidArgsFunction: func(_ *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return filterPrefix([]string{"inventories", "sinks", "targets"}, prefix), cobra.ShellCompDirectiveNoFileComp
			}
			if len(args) == 1 {
				return filterPrefix(kube.objectNames(args[0]), prefix), cobra.ShellCompDirectiveNoFileComp
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
	}
	cmd.Flags().StringVarP(&f.output, "output", "o", "table", "output format: "+validFormats(true, true)+" (--at and --revision: "+formatList+")")
	cmd.Flags().StringVarP(&f.selector, "selector", "l", "", "label selector of the objects listed (app=web,tier!=db), as kubectl get -l")
	noHeadersFlag(cmd, &f.noHeaders)
	cmd.Flags().BoolVarP(&f.allNamespaces, "all-namespaces", "A", false, "list every namespace, and the cluster-scoped inventories and targets")
	cmd.Flags().StringVar(&f.at, "at", "", "print an inventory's rows as they were at this RFC 3339 time (from its history)")
	cmd.Flags().StringVar(&f.revision, "revision", "", "print an inventory's rows at this revision (from its history)")
	cmd.Flags().StringVar(&f.cluster, clusterInventoryFlag, "", "with --at or --revision: read this KollectClusterInventory's history (instead of NAME)")
	cmd.MarkFlagsMutuallyExclusive("at", "revision")
	registerCompletions(cmd, kube)
	return cmd
}

func runGet(ctx context.Context, s Streams, kube *kubeFlags, f getFlags, args []string) error {
	args, err := splitTypeName(args)
	if err != nil {
		return usageError(err)
	}
	k, ok := findGetKind(args[0])
	if !ok {
		return usageError(fmt.Errorf("get %q: want inventories, sinks or targets", args[0]))
	}
	if f.at != "" || f.revision != "" {
		if f.selector != "" {
			return usageError(errors.New("-l/--selector lists objects; --at and --revision read one inventory"))
		}
		if _, err := parseOutput(f.output, false, false); err != nil {
			return err
		}
		return runGetAt(ctx, s, kube, k, f, args)
	}
	out, err := parseOutput(f.output, true, true)
	if err != nil {
		return err
	}
	if f.cluster != "" {
		return usageError(fmt.Errorf("--%s: reads a history, with --at or --revision", clusterInventoryFlag))
	}
	ns, explicit, err := kube.namespace()
	if err != nil {
		return usageError(err)
	}
	var name string
	if len(args) == 2 {
		name = args[1]
		if prefix, n, ok := strings.Cut(name, "/"); ok {
			if prefix == "" || n == "" || strings.Contains(n, "/") {
				return usageError(fmt.Errorf("%s %q: want NAME or NAMESPACE/NAME", k.names[0], name))
			}
			if explicit && prefix != ns {
				return usageError(fmt.Errorf("%s %q is in namespace %s, -n/--namespace says %s", k.names[0], name, prefix, ns))
			}
			if f.allNamespaces {
				return usageError(fmt.Errorf("%s %q names its namespace: drop -A/--all-namespaces", k.names[0], name))
			}
			ns, name, explicit = prefix, n, true
		}
	}
	if explicit && f.allNamespaces {
		return usageError(fmt.Errorf("-n/--namespace and -A/--all-namespaces exclude each other"))
	}
	opts := metav1.ListOptions{Limit: 500}
	if f.selector != "" {
		if name != "" {
			return usageError(errors.New("name an object or select objects with -l/--selector, not both"))
		}
		sel, err := labels.Parse(f.selector)
		if err != nil {
			return usageError(fmt.Errorf("-l/--selector %q: %w", f.selector, err))
		}
		opts.LabelSelector = sel.String()
	}
	if name != "" {
		opts.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
	}
	if f.allNamespaces {
		ns = metav1.NamespaceAll
	}
	dyn, err := kube.dynamic()
	if err != nil {
		return usageError(err)
	}
	items, err := k.list(ctx, dyn, ns, f.allNamespaces, opts)
	if err != nil {
		return &climain.ExitError{Code: 1, Err: err}
	}
	if name != "" && len(items) == 0 {
		return &climain.ExitError{Code: 1, Err: fmt.Errorf("%s %q not found", k.names[0], name)}
	}
	return printGot(s, out, k, items, f, ns, name != "")
}

// printGot prints the objects get listed in format out.
func printGot(s Streams, out outputFormat, k getKind, items []unstructured.Unstructured, f getFlags, ns string, named bool) error {
	switch {
	case out.name == "table" || out.name == "wide":
		if len(items) == 0 {
			where := "in " + ns + " namespace"
			if f.allNamespaces {
				where = "in any namespace"
			}
			fmt.Fprintf(s.Err, "No %s found %s.\n", k.names[0], where)
			return nil
		}
		return printObjects(s.Out, items, k.columns, f.allNamespaces, out.name == "wide", f.noHeaders, s.now())
	case out.name == "name":
		for i := range items {
			if err := (&printers.NamePrinter{}).PrintObj(&items[i], s.Out); err != nil {
				return err
			}
		}
		return nil
	case out.template():
		objs := make([]map[string]any, len(items))
		for i := range items {
			objs[i] = items[i].Object
		}
		return printTemplate(s.Out, out, objs, named, f.noHeaders)
	}
	return printList(s.Out, items, out.name)
}

// splitTypeName reads kubectl's TYPE/NAME spelling of get's arguments
// (inventory/workloads, inventory/shop/workloads): TYPE and NAME.
func splitTypeName(args []string) ([]string, error) {
	kind, name, ok := strings.Cut(args[0], "/")
	if !ok {
		return args, nil
	}
	if len(args) > 1 {
		return nil, fmt.Errorf("%q names a TYPE/NAME already: drop %q", args[0], args[1])
	}
	if name == "" {
		return nil, fmt.Errorf("%q: want TYPE/NAME", args[0])
	}
	return []string{kind, name}, nil
}

// list reads the kind's resources in ns ("" for all), plus the
// cluster-scoped ones when all, sorted by namespace and name; base holds
// the selectors and the page size.
func (k getKind) list(ctx context.Context, dyn dynamic.Interface, ns string, all bool, base metav1.ListOptions) ([]unstructured.Unstructured, error) {
	var items []unstructured.Unstructured
	read := func(resource, ns string) error {
		gvr := schema.GroupVersionResource{Group: v1alpha1.GroupVersion.Group, Version: v1alpha1.GroupVersion.Version, Resource: resource}
		opts := base
		for {
			l, err := dyn.Resource(gvr).Namespace(ns).List(ctx, opts)
			if err != nil {
				return fmt.Errorf("list %s: %w", resource, err)
			}
			items = append(items, l.Items...)
			if opts.Continue = l.GetContinue(); opts.Continue == "" {
				return nil
			}
		}
	}
	for _, r := range k.namespaced {
		if err := read(r, ns); err != nil {
			return nil, err
		}
	}
	if all {
		for _, r := range k.cluster {
			if err := read(r, ""); err != nil {
				return nil, err
			}
		}
	}
	slices.SortStableFunc(items, func(a, b unstructured.Unstructured) int {
		return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
	})
	return items, nil
}

// dynamic returns a dynamic client of the one context.
func (k *kubeFlags) dynamic() (dynamic.Interface, error) {
	cfg, err := k.restConfig()
	if err != nil {
		return nil, err
	}
	return dynamic.NewForConfig(cfg)
}

// objectNames lists the names of kind in the namespace, for completion.
func (k *kubeFlags) objectNames(kind string) []string {
	gk, ok := findGetKind(kind)
	if !ok {
		return nil
	}
	ns, _, err := k.namespace()
	if err != nil {
		return nil
	}
	dyn, err := k.dynamic()
	if err != nil {
		return nil
	}
	items, err := gk.list(context.Background(), dyn, ns, false, metav1.ListOptions{Limit: 500})
	if err != nil {
		return nil
	}
	var out []string
	for _, u := range items {
		out = append(out, u.GetName())
	}
	return out
}

// qualifiedNames lists kind in the namespace as NAMESPACE/NAME (an
// inventory's spelling), or FAMILY/NAME (a sink binding's) when by is
// "family", for completion.
func (k *kubeFlags) qualifiedNames(kind, by string) []string {
	gk, _ := findGetKind(kind)
	ns, _, err := k.namespace()
	if err != nil {
		return nil
	}
	dyn, err := k.dynamic()
	if err != nil {
		return nil
	}
	items, err := gk.list(context.Background(), dyn, ns, false, metav1.ListOptions{Limit: 500})
	if err != nil {
		return nil
	}
	var out []string
	for i := range items {
		prefix := items[i].GetNamespace()
		if by == "family" {
			prefix = strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(items[i].GetKind()), "kollect"), "sink")
		}
		out = append(out, prefix+"/"+items[i].GetName())
	}
	return out
}

// clusterInventoryNames lists the cluster inventories' names, for
// completion.
func (k *kubeFlags) clusterInventoryNames() []string {
	dyn, err := k.dynamic()
	if err != nil {
		return nil
	}
	gk, _ := findGetKind("inventories")
	items, err := getKind{cluster: gk.cluster}.list(context.Background(), dyn, "", true, metav1.ListOptions{Limit: 500})
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(items))
	for i := range items {
		out = append(out, items[i].GetName())
	}
	return out
}

// namespaces lists the cluster's namespaces, for completion.
func (k *kubeFlags) namespaces() []string {
	dyn, err := k.dynamic()
	if err != nil {
		return nil
	}
	l, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return nil
	}
	var out []string
	for _, u := range l.Items {
		out = append(out, u.GetName())
	}
	return out
}
