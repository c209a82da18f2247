package app

import (
	"flag"
	"fmt"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// KubeOptions say how a service reaches the Kubernetes API server.
type KubeOptions struct {
	// Kubeconfig is the path of a kubeconfig; empty uses $KUBECONFIG, then
	// the in-cluster service account.
	Kubeconfig string
	// Rest, when set, is used instead of Kubeconfig (tests, `kollect dev`).
	Rest *rest.Config
	// QPS and Burst limit the client's request rate; zero keeps what the
	// config says (client-go's 5 and 10 when it says nothing).
	QPS   float64
	Burst int
}

// DefaultKubeOptions returns the kubeconfig lookup with client-go's rate
// limits.
func DefaultKubeOptions() KubeOptions { return KubeOptions{} }

// BindFlags registers --kubeconfig, --kube-api-qps and --kube-api-burst on
// fs, defaulting to o's values.
func (o *KubeOptions) BindFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path of a kubeconfig; empty uses $KUBECONFIG or the in-cluster service account.")
	fs.Float64Var(&o.QPS, "kube-api-qps", o.QPS, "Requests per second to the API server; 0 keeps client-go's default.")
	fs.IntVar(&o.Burst, "kube-api-burst", o.Burst, "Requests to the API server allowed in a burst above the QPS; 0 keeps the default.")
}

// RestConfig returns a copy of Rest, or the kubeconfig loaded from
// Kubeconfig, $KUBECONFIG or the in-cluster service account, with QPS and
// Burst where it sets none and the user agent kollect-<service>.
func (o KubeOptions) RestConfig(service string) (*rest.Config, error) {
	var c *rest.Config
	if o.Rest != nil {
		c = rest.CopyConfig(o.Rest)
	} else {
		rules := clientcmd.NewDefaultClientConfigLoadingRules()
		rules.ExplicitPath = o.Kubeconfig
		var err error
		c, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("load kubeconfig: %w", err)
		}
	}
	// A kubeconfig file holds no rate limits; a Rest given by a test or
	// `kollect dev` keeps its own.
	if c.QPS == 0 && o.QPS > 0 {
		c.QPS = float32(o.QPS)
	}
	if c.Burst == 0 && o.Burst > 0 {
		c.Burst = o.Burst
	}
	if service != "" {
		c.UserAgent = "kollect-" + service
	}
	return c, nil
}

// Validate reports negative rate limits.
func (o KubeOptions) Validate() error {
	if o.QPS < 0 || o.Burst < 0 {
		return fmt.Errorf("--kube-api-qps %v, --kube-api-burst %d: must not be negative", o.QPS, o.Burst)
	}
	return nil
}
