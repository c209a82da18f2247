package initsecrets

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Command is the subcommand of kollect-control that runs this package.
const Command = "init-secrets"

// Main runs `kollect-control init-secrets args...` and returns its exit
// status: 0 done, 1 failed, 2 bad flags. It talks to the cluster of its
// in-cluster ServiceAccount, or of $KUBECONFIG.
func Main(args []string, stderr io.Writer) int {
	c, timeout, err := parse(args, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", Command, err)
		return 2
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", Command, err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := run(ctx, cfg, c); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", Command, err)
		return 1
	}
	return 0
}

func run(ctx context.Context, cfg *rest.Config, c Config) error {
	cl, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		return err
	}
	return Run(ctx, cl, c)
}

// parse reads the flags of init-secrets.
func parse(args []string, out io.Writer) (Config, time.Duration, error) {
	var c Config
	var users, hosts, labels string
	timeout := 2 * time.Minute
	fs := flag.NewFlagSet(Command, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.Namespace, "namespace", os.Getenv("POD_NAMESPACE"), "namespace of the Secrets (default $POD_NAMESPACE)")
	fs.StringVar(&c.NATSUsersSecret, "nats-users-secret", "", "Secret holding a password per NATS user: created, or completed with the users it lacks")
	fs.StringVar(&users, "nats-users", "", "comma-separated NATS users that must have a password")
	fs.StringVar(&c.ServingSecret, "serving-secret", "", "kubernetes.io/tls Secret of the query service's serving certificate")
	fs.StringVar(&hosts, "serving-hosts", "", "comma-separated DNS names of the serving certificate: create or replace it when it does not name them (empty: only read it)")
	fs.StringVar(&c.APIService, "apiservice", "", "APIService whose caBundle is set to ca.crt of --serving-secret")
	fs.StringVar(&labels, "labels", "", "comma-separated key=value labels of the Secrets created")
	fs.DurationVar(&timeout, "timeout", timeout, "give up after this long")
	if err := fs.Parse(args); err != nil {
		return c, 0, err
	}
	if fs.NArg() > 0 {
		return c, 0, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.Namespace == "" {
		return c, 0, fmt.Errorf("--namespace (or $POD_NAMESPACE) is required")
	}
	c.NATSUsers, c.ServingHosts = split(users), split(hosts)
	if c.NATSUsersSecret != "" && len(c.NATSUsers) == 0 {
		return c, 0, fmt.Errorf("--nats-users-secret needs --nats-users")
	}
	for _, kv := range split(labels) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return c, 0, fmt.Errorf("--labels: %q is not key=value", kv)
		}
		if c.Labels == nil {
			c.Labels = map[string]string{}
		}
		c.Labels[k] = v
	}
	return c, timeout, nil
}

// split splits a comma-separated list, dropping empty items.
func split(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// CheckArgs reports whether args (those after the subcommand) are flags
// init-secrets accepts with valid values: the chart's tests check the Jobs
// they render with it.
func CheckArgs(args []string) error {
	_, _, err := parse(args, io.Discard)
	return err
}
