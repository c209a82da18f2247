package collect

import (
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Kube is where the command line's kubeconfig flags lead: the kubeconfig
// (for its context names) and a client configuration per context, with
// every override the flags give (--as, --request-timeout, --token, ...).
type Kube interface {
	RawConfig() (clientcmdapi.Config, error)
	RESTConfig(context string) (*rest.Config, error)
}

// kubeconfigFile is Kube for a kubeconfig path alone (empty: the usual
// loading rules), with no other overrides.
type kubeconfigFile string

func (k kubeconfigFile) rules() *clientcmd.ClientConfigLoadingRules {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = string(k)
	return rules
}

func (k kubeconfigFile) RawConfig() (clientcmdapi.Config, error) {
	c, err := k.rules().Load()
	if err != nil {
		return clientcmdapi.Config{}, err
	}
	return *c, nil
}

func (k kubeconfigFile) RESTConfig(name string) (*rest.Config, error) {
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(k.rules(),
		&clientcmd.ConfigOverrides{CurrentContext: name}).ClientConfig()
}

// kubeContext is one kubeconfig context to collect from.
type kubeContext struct {
	name string
	kube Kube
}

func (k kubeContext) config() (*rest.Config, error) { return k.kube.RESTConfig(k.name) }

// selectContexts expands context names and globs against the kubeconfig. A
// glob that matches nothing is a warning on warn (a laptop may lack the
// DR contexts of `--context 'prod-*' --context 'dr-*'`); a literal name that
// is missing, or no context at all, is an error.
func selectContexts(kube Kube, patterns []string, warn io.Writer) ([]kubeContext, error) {
	raw, err := kube.RawConfig()
	if err != nil {
		return nil, fmt.Errorf("load kubeconfig: %w", err)
	}
	if len(patterns) == 0 {
		if raw.CurrentContext == "" {
			return nil, errors.New("the kubeconfig has no current context; pass --context")
		}
		return []kubeContext{{name: raw.CurrentContext, kube: kube}}, nil
	}
	var names []string
	for _, pat := range patterns {
		matched := false
		for name := range raw.Contexts {
			ok, err := path.Match(pat, name)
			if err != nil {
				return nil, fmt.Errorf("--context %q: %w", pat, err)
			}
			matched = matched || ok
			if ok && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		switch {
		case matched:
		case !isGlob(pat):
			return nil, fmt.Errorf("--context %q: no such context in the kubeconfig", pat)
		case warn != nil:
			fmt.Fprintf(warn, "warning: --context %q matches no context of the kubeconfig\n", pat)
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("--context %s: matches no context of the kubeconfig", strings.Join(patterns, ", "))
	}
	slices.Sort(names)
	out := make([]kubeContext, len(names))
	for i, n := range names {
		out[i] = kubeContext{name: n, kube: kube}
	}
	return out, nil
}

func isGlob(pat string) bool { return strings.ContainsAny(pat, `*?[\`) }
