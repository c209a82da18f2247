package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"kollect.dev/kollect/services/cli/climain"

	"github.com/spf13/cobra"

	"kollect.dev/kollect/services/cli/internal/scaffold"
)

// initFlags are the arguments of kollect init.
type initFlags struct {
	kind, namespace, name, outputDir string
	attrs, sinks                     []string
}

func newInitCommand(s Streams, kube *kubeFlags) *cobra.Command {
	var f initFlags
	cmd := &cobra.Command{
		Use:   "init --kind KIND [-n NAMESPACE] --sink TYPE=VALUE",
		Short: "Write a first Profile, Target, sink and Inventory for one kind",
		Long: `init writes the resources of a first inventory: a KollectProfile extracting --attr from each
object of --kind (by default the images of kinds that run containers, the labels of others), a
Role, RoleBinding and KollectTarget that collect that kind in the namespace (-n, default the
kubeconfig context's, read offline), the sinks named by
--sink (git=HTTPS_URL: a Git repository, one file per object; postgres=SECRET: a PostgreSQL table,
the DSN in the Secret's key dsn) and a KollectInventory bound to them. It works offline and prints
the manifests, or writes one file per part into --output-dir; kollect validate accepts them.
--kind is a common built-in resource (deployments.apps, deploy, pods, cronjobs.batch...) or
Kind.version.group for any other (Certificate.v1.cert-manager.io).`,
		Example: `  kollect init --kind deployments.apps -n shop --sink git=https://git.example.com/you/inventory.git
  kollect init --kind Certificate.v1.cert-manager.io -n shop --attr 'expires=$.status.notAfter' \
    --sink postgres=postgres --output-dir kollect/
  kollect init --kind deploy -n shop --sink postgres=postgres | kubectl apply -f -`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ns, _, err := kube.namespace() // -n, else the context's; offline
			if err != nil {
				return &climain.ExitError{Code: 2, Err: fmt.Errorf("init: no -n/--namespace, and no kubeconfig context to take it from: %w", err)}
			}
			f.namespace = ns
			return runInit(s, f)
		},
	}
	cmd.Flags().StringVar(&f.kind, "kind", "", "kind to collect: deployments.apps, deploy, ... or Kind.version.group")
	cmd.Flags().StringVar(&f.name, "name", "", "name of the Profile, Target and Inventory (default: the kind's resource, e.g. deployments)")
	cmd.Flags().StringArrayVar(&f.attrs, "attr", nil, "attribute NAME=JSONPATH or NAME=cel:EXPR (repeatable; default: images or labels)")
	cmd.Flags().StringArrayVar(&f.sinks, "sink", nil, "sink git=HTTPS_URL or postgres=SECRET (repeatable, one of each type)")
	cmd.Flags().StringVar(&f.outputDir, "output-dir", "", "write 10-profile.yaml ... 40-inventory.yaml into this folder instead of printing")
	for _, r := range []string{"kind", "sink"} {
		_ = cmd.MarkFlagRequired(r)
	}
	return cmd
}

func runInit(s Streams, f initFlags) error {
	usage := func(err error) error { return &climain.ExitError{Code: 2, Err: fmt.Errorf("init: %w", err)} }
	gvk, err := scaffold.ParseKind(f.kind)
	if err != nil {
		return usage(err)
	}
	spec := scaffold.Spec{Namespace: f.namespace, Name: f.name, Kind: gvk, Attributes: scaffold.DefaultAttributes(gvk)}
	if spec.Name == "" {
		spec.Name = strings.ToLower(gvk.Resource)
		if spec.Name == "" {
			spec.Name = strings.ToLower(gvk.Kind) + "s"
		}
	}
	if len(f.attrs) > 0 {
		spec.Attributes = nil
		for _, a := range f.attrs {
			name, path, ok := strings.Cut(a, "=")
			if !ok || name == "" || path == "" {
				return usage(fmt.Errorf("--attr %q: want NAME=JSONPATH or NAME=cel:EXPR", a))
			}
			spec.Attributes = append(spec.Attributes, scaffold.Attribute{Name: name, Path: path})
		}
	}
	for _, v := range f.sinks {
		k, err := scaffold.ParseSink(v)
		if err != nil {
			return usage(err)
		}
		spec.Sinks = append(spec.Sinks, k)
	}
	files, err := scaffold.Render(spec)
	if err != nil {
		return usage(err)
	}
	if f.outputDir == "" {
		for i, file := range files {
			if i > 0 {
				fmt.Fprintln(s.Out, "---")
			}
			fmt.Fprint(s.Out, file.Body)
		}
		return nil
	}
	if err := os.MkdirAll(f.outputDir, 0o750); err != nil {
		return fmt.Errorf("init: %w", err)
	}
	for _, file := range files {
		p := filepath.Join(f.outputDir, file.Name)
		if err := os.WriteFile(p, []byte(file.Body), 0o600); err != nil {
			return fmt.Errorf("init: %w", err)
		}
		fmt.Fprintln(s.Err, "wrote", p)
	}
	fmt.Fprintf(s.Err, "next: kollect validate %s && kubectl apply -f %s\n", f.outputDir, f.outputDir)
	return nil
}
