package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// registerCompletions adds dynamic completion to the flags of cmd that it
// has: formats (with the templates of get, collect and history), layouts, and the kubeconfig's contexts, clusters, users and
// namespaces (read from the cluster, when it answers).
func registerCompletions(cmd *cobra.Command, kube *kubeFlags) {
	fixed := map[string][]string{
		"output": formats,
		"format": formats,
		"layout": {"document", "perResource", "split"},
	}
	switch cmd.Name() {
	case "get":
		fixed["output"] = append(slices.Clone(formats), "name", "jsonpath=", "jsonpath-file=", "custom-columns=")
	case "collect", "history":
		fixed["output"] = append(slices.Clone(formats), "jsonpath=", "jsonpath-file=", "custom-columns=")
	}
	for name, values := range fixed {
		if cmd.Flags().Lookup(name) != nil {
			_ = cmd.RegisterFlagCompletionFunc(name, fixedCompletions(values))
		}
	}
}

// registerKubeCompletions completes the root's persistent client flags.
func registerKubeCompletions(root *cobra.Command, kube *kubeFlags) {
	complete := func(list func() []string) cobra.CompletionFunc {
		return func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
			return filterPrefix(list(), prefix), cobra.ShellCompDirectiveNoFileComp
		}
	}
	_ = root.RegisterFlagCompletionFunc("context", complete(func() []string { return kube.names("context") }))
	_ = root.RegisterFlagCompletionFunc("cluster", complete(func() []string { return kube.names("cluster") }))
	_ = root.RegisterFlagCompletionFunc("user", complete(func() []string { return kube.names("user") }))
	_ = root.RegisterFlagCompletionFunc("namespace", complete(kube.namespaces))
	inventories := complete(func() []string { return kube.qualifiedNames("inventories", "") })
	sinks := complete(func() []string { return kube.qualifiedNames("sinks", "family") })
	clusterInventories := complete(kube.clusterInventoryNames)
	for _, c := range root.Commands() {
		if c.Flags().Lookup(clusterInventoryFlag) != nil {
			_ = c.RegisterFlagCompletionFunc(clusterInventoryFlag, clusterInventories)
		}
		switch c.Name() {
		case "replay":
			_ = c.RegisterFlagCompletionFunc("inventory", inventories)
			_ = c.RegisterFlagCompletionFunc("sink", sinks)
		case "snapshots":
			c.ValidArgsFunction = func(cmd *cobra.Command, args []string, prefix string) ([]string, cobra.ShellCompDirective) {
				if len(args) > 0 {
					return nil, cobra.ShellCompDirectiveNoFileComp
				}
				return inventories(cmd, args, prefix)
			}
		}
	}
}

// names lists the kubeconfig's contexts, clusters or users, sorted.
func (k *kubeFlags) names(what string) []string {
	raw, err := k.RawConfig()
	if err != nil {
		return nil
	}
	var out []string
	switch what {
	case "context":
		for n := range raw.Contexts {
			out = append(out, n)
		}
	case "cluster":
		for n := range raw.Clusters {
			out = append(out, n)
		}
	case "user":
		for n := range raw.AuthInfos {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// fixedCompletions completes values by prefix, never with file names.
func fixedCompletions(values []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]string, cobra.ShellCompDirective) {
		return filterPrefix(values, prefix), cobra.ShellCompDirectiveNoFileComp
	}
}

func filterPrefix(values []string, prefix string) []string {
	var out []string
	for _, v := range values {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}
