package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeFlags are kubectl's client flags (client-go's clientcmd override flags,
// the ones k8s.io/cli-runtime's ConfigFlags registers: --kubeconfig --cluster
// --user -n --as --as-group --token --server --request-timeout ...),
// persistent on the root command, with one change: --context is repeatable
// and takes globs, for collect's fleets. Commands that talk to one cluster
// take exactly one. (cli-runtime's ConfigFlags itself would link kustomize,
// through its resource builder: +30 MB of binary and of resident memory at
// every start.)
type kubeFlags struct {
	kubeconfig string
	overrides  clientcmd.ConfigOverrides
	contexts   []string
}

func newKubeFlags() *kubeFlags { return &kubeFlags{} }

// addFlags registers the flags on fs (the root's persistent flags).
func (k *kubeFlags) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&k.kubeconfig, clientcmd.RecommendedConfigPathFlag, "", "Path to the kubeconfig file to use for CLI requests.")
	names := clientcmd.RecommendedConfigOverrideFlags("")
	names.CurrentContext = clientcmd.FlagInfo{} // --context is registered below
	// kubectl dropped basic authentication and calls --server -s.
	names.AuthOverrideFlags.Username, names.AuthOverrideFlags.Password = clientcmd.FlagInfo{}, clientcmd.FlagInfo{}
	names.ClusterOverrideFlags.APIServer.ShortName = "s"
	clientcmd.BindOverrideFlags(&k.overrides, fs, names)
	fs.StringArrayVar(&k.contexts, "context", nil,
		"kubeconfig context name; collect takes it repeatedly and as a glob ('prod-*') (default: the current context)")
}

// loader is the kubeconfig of context name ("" is the current one) with
// every flag's override.
func (k *kubeFlags) loader(name string) clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.kubeconfig
	o := k.overrides
	o.CurrentContext = name
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &o)
}

// RawConfig returns the merged kubeconfig.
func (k *kubeFlags) RawConfig() (clientcmdapi.Config, error) {
	return k.loader("").RawConfig()
}

// RESTConfig returns the client configuration of context name ("" is the
// current or --context one) with every flag's override.
func (k *kubeFlags) RESTConfig(name string) (*rest.Config, error) {
	return k.loader(name).ClientConfig()
}

// single returns the one context a single-cluster command uses ("" for the
// current one).
func (k *kubeFlags) single() (string, error) {
	switch len(k.contexts) {
	case 0:
		return "", nil
	case 1:
		if isGlob(k.contexts[0]) {
			return "", fmt.Errorf("--context %q: this command takes one context name, not a glob", k.contexts[0])
		}
		return k.contexts[0], nil
	}
	return "", errors.New("--context: this command takes one context")
}

// firstContext is the context whose namespace is the default one: the one
// --context name, else the current context ("").
func (k *kubeFlags) firstContext() string {
	if len(k.contexts) == 1 && !isGlob(k.contexts[0]) {
		return k.contexts[0]
	}
	return ""
}

// namespaceOf returns -n, else the namespace of context name ("" the
// current one), else "default"; explicit tells whether -n was given.
func (k *kubeFlags) namespaceOf(name string) (ns string, explicit bool, err error) {
	return k.loader(name).Namespace()
}

// namespace is namespaceOf the one context of a single-cluster command.
func (k *kubeFlags) namespace() (ns string, explicit bool, err error) {
	name, err := k.single()
	if err != nil {
		return "", false, err
	}
	return k.namespaceOf(name)
}

// restConfig is the client configuration of the one context of a
// single-cluster command.
func (k *kubeFlags) restConfig() (*rest.Config, error) {
	name, err := k.single()
	if err != nil {
		return nil, err
	}
	return k.RESTConfig(name)
}

func isGlob(s string) bool {
	for _, r := range s {
		switch r {
		case '*', '?', '[', '\\':
			return true
		}
	}
	return false
}
