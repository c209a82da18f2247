package cli

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"strings"

	"github.com/go-logr/zapr"
	"github.com/spf13/cobra"
	"go.uber.org/zap"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"kollect.dev/kollect/deploy/crds"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/cli/dev"
)

// devFlags are the arguments of kollect dev.
type devFlags struct {
	kubeconfig, context, natsURL, natsDir string
	natsCredentials                       string
	natsPort, verbosity                   int
	allowInCluster, installCRDs           bool
	extract                               extract.Options
	allowLinkLocal, allowFile             bool
	denyCIDRs                             egress.Prefixes
	allowCrossNamespaceSecretRefs         bool
	ambientNamespaces                     []string
	process                               app.Process
}

func newDevCommand(s Streams) *cobra.Command {
	f := devFlags{natsPort: 4222, process: app.DefaultProcess()}
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Run every Kollect service in this process against the current kubeconfig context",
		Long: `dev runs control, the collector, the aggregator and the snapshot, database and event exporters in
one process, on an embedded NATS JetStream server (127.0.0.1:4222 unless --nats-port or --nats-url),
against the current kubeconfig context. It is for people with a cluster who want Kollect running
without installing it: apply Profiles, Targets, sinks and Inventories with kubectl and watch them
export. The admission webhook is not served (the API server cannot reach this process); the CRDs'
own validation still applies. Ctrl-C stops everything.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDev(cmd.Context(), s, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "path of the kubeconfig (default $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.context, "context", "", "kubeconfig context (default the current one)")
	fl.StringVar(&f.natsURL, "nats-url", "", "use this NATS JetStream server instead of an embedded one")
	fl.StringVar(&f.natsCredentials, "nats-credentials", "",
		"path of a NATS credentials file for --nats-url; empty reads $"+app.EnvNATSCredentials+" (a user and password come from $"+
			app.EnvNATSUser+" and $"+app.EnvNATSPassword+")")
	fl.StringVar(&f.natsDir, "nats-dir", "", "store of the embedded NATS server (default a temporary folder)")
	fl.IntVar(&f.natsPort, "nats-port", f.natsPort, "port of the embedded NATS server; -1 picks a free one")
	fl.BoolVar(&f.allowInCluster, "allow-in-cluster-sinks", false, "let sinks connect to loopback, private, unique local and CGNAT addresses")
	fl.BoolVar(&f.allowLinkLocal, "allow-link-local-sinks", false, "let sinks connect to link-local and cloud metadata addresses")
	fl.Var(&f.denyCIDRs, "deny-sink-cidrs", "comma-separated networks no sink may reach whatever the opt-ins (the cluster's Service and Pod CIDRs)")
	fl.BoolVar(&f.allowFile, "allow-file-sinks", false, "let git sinks use file:// repositories on this machine")
	fl.BoolVar(&f.allowCrossNamespaceSecretRefs, "allow-cross-namespace-secret-refs", false,
		"let a sink's spec.secretRef name a Secret in another namespace")
	fl.StringSliceVar(&f.ambientNamespaces, "ambient-credentials-namespaces", nil,
		"namespaces whose sinks without spec.secretRef may use this process's cloud identity (AWS default chain, Google ADC); * for all")
	fl.BoolVar(&f.installCRDs, "install-crds", false, "apply the kollect.dev CustomResourceDefinitions first (server-side apply)")
	fl.IntVarP(&f.verbosity, "verbosity", "v", 0, "log verbosity: 0 info, 1 debug")
	bindExtractFlags(cmd, &f.extract)
	proc := flag.NewFlagSet("process", flag.ContinueOnError)
	f.process.BindFlags(proc)
	fl.AddGoFlagSet(proc)
	return cmd
}

func runDev(ctx context.Context, s Streams, f devFlags) error {
	var ambient exporter.NamespaceList
	if err := ambient.Set(strings.Join(f.ambientNamespaces, ",")); err != nil {
		return &ExitError{Code: 2, Err: fmt.Errorf("dev: --ambient-credentials-namespaces: %w", err)}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: f.context}).ClientConfig()
	if err != nil {
		return &ExitError{Code: 2, Err: fmt.Errorf("dev: load kubeconfig: %w", err)}
	}
	zc := zap.NewDevelopmentConfig()
	zc.Level = zap.NewAtomicLevelAt(app.LogLevel(f.verbosity))
	zc.OutputPaths, zc.ErrorOutputPaths = []string{"stderr"}, []string{"stderr"}
	z, err := zc.Build()
	if err != nil {
		return err
	}
	defer func() { _ = z.Sync() }()
	// One process runs every service: one memory limit and one pprof
	// listener cover them all.
	if _, err := f.process.Start(ctx, zapr.NewLogger(z)); err != nil {
		return &ExitError{Code: 2, Err: fmt.Errorf("dev: %w", err)}
	}
	if f.installCRDs {
		if err := installCRDs(ctx, rc); err != nil {
			return &ExitError{Code: 1, Err: err}
		}
		fmt.Fprintln(s.Err, "kollect dev: CRDs applied")
	}
	err = dev.Run(ctx, dev.Options{Rest: rc, NATSURL: f.natsURL, NATSCredentials: f.natsCredentials, NATSDir: f.natsDir, NATSPort: f.natsPort,
		AllowInClusterSinks: f.allowInCluster, AllowLinkLocalSinks: f.allowLinkLocal, DenySinkCIDRs: f.denyCIDRs,
		AllowFileSinks: f.allowFile, Extract: f.extract, Log: zapr.NewLogger(z),
		CredentialPolicy: exporter.CredentialPolicy{AllowCrossNamespaceSecretRefs: f.allowCrossNamespaceSecretRefs,
			AmbientNamespaces: ambient},
		Ready: func(url string) {
			fmt.Fprintf(s.Err, "kollect dev: all services running, bus at %s; Ctrl-C stops\n", url)
		}})
	if err != nil {
		return &ExitError{Code: 1, Err: fmt.Errorf("dev: %w", err)}
	}
	return nil
}

// installCRDs server-side applies every kollect.dev CRD and waits until
// the API server serves them all.
func installCRDs(ctx context.Context, rc *rest.Config) error {
	c, err := apiextensions.NewForConfig(rc)
	if err != nil {
		return err
	}
	files, err := fs.Glob(crds.FS, "*.yaml")
	if err != nil {
		return err
	}
	var names []string
	for _, name := range files {
		b, err := fs.ReadFile(crds.FS, name)
		if err != nil {
			return err
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(b, &crd); err != nil {
			return fmt.Errorf("decode %s: %w", name, err)
		}
		crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		body, err := yaml.YAMLToJSON(b)
		if err != nil {
			return err
		}
		force := true
		_, err = c.ApiextensionsV1().CustomResourceDefinitions().Patch(ctx, crd.Name, "application/apply-patch+yaml", body,
			metav1.PatchOptions{FieldManager: "kollect-dev", Force: &force})
		if err != nil {
			return fmt.Errorf("apply CRD %s: %w", crd.Name, err)
		}
		names = append(names, crd.Name)
	}
	return waitCRDsServed(ctx, c, names)
}
