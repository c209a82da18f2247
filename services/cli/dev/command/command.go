package command

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/go-logr/zapr"
	"github.com/spf13/cobra"
	"go.uber.org/zap"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/cli/dev"
)

// devFlags are the arguments of kollect dev.
type devFlags struct {
	kubeconfig, context, natsURL, natsDir string
	natsCredentials                       string
	natsPort, verbosity, metricsPort      int
	queryPort                             int
	allowInCluster, installCRDs, query    bool
	extract                               extract.Options
	allowLinkLocal, allowFile             bool
	denyCIDRs                             egress.Prefixes
	allowCrossNamespaceSecretRefs         bool
	ambientNamespaces                     []string
	process                               app.Process
}

// Streams are the command's standard streams.
type Streams struct {
	Out, Err io.Writer
}

// Main runs `kollect-dev` (or `kollect dev`, which runs this binary) with
// args and returns the exit status: 0 after Ctrl-C, 1 when a service
// fails, 2 for bad flags or an unreadable kubeconfig.
func Main(ctx context.Context, args []string, s Streams) int {
	return climain.Run(ctx, NewCommand(s), args, s.Err, "kollect dev")
}

// NewCommand returns the `kollect-dev` command.
func NewCommand(s Streams) *cobra.Command {
	f := devFlags{natsPort: 4222, query: true, process: app.DefaultProcess()}
	cmd := &cobra.Command{
		Use:           "kollect-dev",
		SilenceUsage:  true,
		SilenceErrors: true,
		Short:         "Run every Kollect service in this process against the current kubeconfig context",
		Long: `dev runs control, the collector, the aggregator and the snapshot, database and event exporters in
one process, on an embedded NATS JetStream server (127.0.0.1:4222 unless --nats-port or --nats-url),
against the current kubeconfig context. The embedded bus admits only a user whose password is drawn
for each run and written (mode 0600) to ~/.config/kollect/dev-bus.json, or $KOLLECT_DEV_BUS_FILE,
where kollect snapshots and replay --nats-url find it. It also serves the history API
(query.kollect.dev) on 127.0.0.1, authenticating and authorizing callers through the cluster's API
server, and writes its address to ~/.config/kollect/dev-query.json ($KOLLECT_DEV_QUERY_FILE), where
kollect history, diff, get --at and deadletters find it when the cluster serves no query API. It is for people with a cluster who want Kollect running
without installing it: apply Profiles, Targets, sinks and Inventories with kubectl and watch them
export. The admission webhook is not served (the API server cannot reach this process); the CRDs'
own validation still applies. Ctrl-C stops everything.

It is its own binary, kollect-dev, because it links every service and sink SDK; kollect dev runs it.`,
		Example: `  # Install the CRDs into the current context and run every service
  kollect dev --install-crds
  # Let sinks reach a port-forwarded in-cluster PostgreSQL, and serve each service's /metrics from port 9090 on
  kollect dev --allow-in-cluster-sinks --metrics-port 9090`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDev(cmd.Context(), s, f) },
	}
	cmd.SetOut(s.Out)
	cmd.SetErr(s.Err)
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
	fl.BoolVar(&f.query, "query", f.query, "serve the history API (kollect history, diff, get --at) on 127.0.0.1")
	fl.IntVar(&f.queryPort, "query-port", 0, "port of the history API on 127.0.0.1; 0 picks a free one")
	fl.IntVar(&f.metricsPort, "metrics-port", 0, "serve each service's /metrics on 127.0.0.1 from this port on "+
		"(control, collector, aggregator, snapshot, database, event exporter); 0 serves none")
	gfs := flag.NewFlagSet("process", flag.ContinueOnError)
	f.extract.BindFlags(gfs)
	f.process.BindFlags(gfs)
	fl.AddGoFlagSet(gfs)
	return cmd
}

func runDev(ctx context.Context, s Streams, f devFlags) error {
	var ambient backend.NamespaceList
	if err := ambient.Set(strings.Join(f.ambientNamespaces, ",")); err != nil {
		return &climain.ExitError{Code: 2, Err: fmt.Errorf("--ambient-credentials-namespaces: %w", err)}
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.kubeconfig
	loader := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: f.context})
	rc, err := loader.ClientConfig()
	if err != nil {
		return &climain.ExitError{Code: 2, Err: fmt.Errorf("load kubeconfig: %w", err)}
	}
	query := dev.QueryOptions{Serve: f.query, Port: f.queryPort}
	if f.query {
		path, cleanup, err := writeContextKubeconfig(loader, f.context)
		if err != nil {
			return &climain.ExitError{Code: 2, Err: err}
		}
		defer cleanup()
		query.Kubeconfig = path
	}
	zc := zap.NewDevelopmentConfig()
	zc.Level = zap.NewAtomicLevelAt(app.LogLevel(f.verbosity))
	zc.OutputPaths, zc.ErrorOutputPaths = []string{"stderr"}, []string{"stderr"}
	z, err := zc.Build()
	if err != nil {
		return err
	}
	defer func() { _ = z.Sync() }()
	// controller-runtime's packages and client-go log through these
	// globals; unset, controller-runtime prints a stack trace instead.
	ctrllog.SetLogger(zapr.NewLogger(z))
	klog.SetLogger(zapr.NewLogger(z))
	// One process runs every service: one memory limit and one pprof
	// listener cover them all.
	if _, err := f.process.Start(ctx, zapr.NewLogger(z)); err != nil {
		return &climain.ExitError{Code: 2, Err: err}
	}
	if f.installCRDs {
		if err := installCRDs(ctx, rc); err != nil {
			return &climain.ExitError{Code: 1, Err: err}
		}
		fmt.Fprintln(s.Err, "kollect dev: CRDs applied")
	}
	err = dev.Run(ctx, dev.Options{Rest: rc, NATSURL: f.natsURL, NATSCredentials: f.natsCredentials, NATSDir: f.natsDir, NATSPort: f.natsPort,
		AllowInClusterSinks: f.allowInCluster, AllowLinkLocalSinks: f.allowLinkLocal, DenySinkCIDRs: f.denyCIDRs,
		AllowFileSinks: f.allowFile, Extract: f.extract, Log: zapr.NewLogger(z), MetricsPort: f.metricsPort, Query: query,
		CredentialPolicy: backend.CredentialPolicy{AllowCrossNamespaceSecretRefs: f.allowCrossNamespaceSecretRefs,
			AmbientNamespaces: ambient},
		Ready: func(url string) {
			fmt.Fprintf(s.Err, "kollect dev: all services running, bus at %s; Ctrl-C stops\n", url)
			if f.metricsPort > 0 {
				fmt.Fprintf(s.Err, "kollect dev: metrics at %s\n", metricsURLs(f.metricsPort))
			}
		}})
	if err != nil {
		return &climain.ExitError{Code: 1, Err: err}
	}
	return nil
}

// metricsURLs lists each service's /metrics URL for the ready line.
func metricsURLs(port int) string {
	o := dev.Options{MetricsPort: port}
	var urls []string
	for _, svc := range dev.Services() {
		urls = append(urls, fmt.Sprintf("%s http://%s/metrics", svc, o.MetricsAddress(svc)))
	}
	return strings.Join(urls, ", ")
}
