package cli

import (
	"errors"
	"fmt"
	"sync"

	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeFlags are kubectl's client flags (k8s.io/cli-runtime ConfigFlags:
// --kubeconfig --cluster --user -n --as --as-group --token
// --request-timeout ...), persistent on the root command, with one change:
// --context is repeatable and takes globs, for collect's fleets. Commands
// that talk to one cluster take exactly one.
type kubeFlags struct {
	config   *genericclioptions.ConfigFlags
	contexts []string

	mu      sync.Mutex // guards context while a context's config is built
	context string
}

func newKubeFlags() *kubeFlags {
	k := &kubeFlags{config: genericclioptions.NewConfigFlags(false)}
	k.config.Context = nil  // registered below as a repeatable flag
	k.config.CacheDir = nil // only a persistent discovery cache uses it; kollect keeps none
	return k
}

// addFlags registers the flags on fs (the root's persistent flags).
func (k *kubeFlags) addFlags(fs *pflag.FlagSet) {
	k.config.AddFlags(fs)
	fs.StringArrayVar(&k.contexts, "context", nil,
		"kubeconfig context name; collect takes it repeatedly and as a glob ('prod-*') (default: the current context)")
	k.config.Context = &k.context
}

// RawConfig returns the merged kubeconfig.
func (k *kubeFlags) RawConfig() (clientcmdapi.Config, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.context = ""
	return k.config.ToRawKubeConfigLoader().RawConfig()
}

// RESTConfig returns the client configuration of context name ("" is the
// current or --context one) with every flag's override.
func (k *kubeFlags) RESTConfig(name string) (*rest.Config, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.context = name
	defer func() { k.context = "" }()
	return k.config.ToRESTConfig()
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
	k.mu.Lock()
	defer k.mu.Unlock()
	k.context = name
	defer func() { k.context = "" }()
	return k.config.ToRawKubeConfigLoader().Namespace()
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
