package command

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/services/cli/internal/verify"
)

// anchorFlags name the inventory whose revisions the query API serves:
// the checksums the bus recorded, which whoever writes to the sink cannot
// forge (docs/verify.md).
type anchorFlags struct {
	inventory, kubeconfig string
}

func (a *anchorFlags) bind(cmd *cobra.Command) {
	cmd.PersistentFlags().StringVar(&a.inventory, "anchor", "", "the inventory, NAMESPACE/NAME (a NAME alone for a ClusterInventory), "+
		"whose revisions' checksums the query API (inventoryrevisions) serves: every revision the sink holds since the oldest the bus "+
		"keeps must carry the bus's checksum; empty checks the sink's own consistency only")
	cmd.PersistentFlags().StringVar(&a.kubeconfig, "kubeconfig", "", "kubeconfig of the cluster serving the query API for --anchor; "+
		"empty uses $KUBECONFIG, then the in-cluster service account")
}

// revisionList is what the anchor reads of an (Cluster)InventoryRevisionList.
type revisionList struct {
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
	Items []struct {
		Revision uint64 `json:"revision"`
		Checksum string `json:"checksum"`
	} `json:"items"`
}

// load lists the anchor inventory's revisions through the Kubernetes API
// server, page by page; nil when no --anchor is set.
func (a anchorFlags) load(ctx context.Context) (verify.Anchor, error) {
	if a.inventory == "" {
		return nil, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = a.kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("--anchor: load kubeconfig: %w", err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("--anchor: %w", err)
	}
	inv := inventoryName(a.inventory)
	path := "/apis/" + queryv1.GroupVersion.String() + "/" + queryv1.ResourceClusterRevisions
	if inv.Namespace != "" {
		path = "/apis/" + queryv1.GroupVersion.String() + "/namespaces/" + inv.Namespace + "/" + queryv1.ResourceRevisions
	}
	anchor := verify.Anchor{}
	next := ""
	for {
		req := cs.CoreV1().RESTClient().Get().AbsPath(path).Param("labelSelector", queryv1.LabelInventory+"="+inv.Name)
		if next != "" {
			req = req.Param("continue", next)
		}
		body, err := req.DoRaw(ctx)
		if err != nil {
			return nil, fmt.Errorf("--anchor %s: list its revisions (%s?labelSelector=%s): %w", a.inventory, path,
				url.QueryEscape(queryv1.LabelInventory+"="+inv.Name), err)
		}
		var l revisionList
		if err := json.Unmarshal(body, &l); err != nil {
			return nil, fmt.Errorf("--anchor %s: decode its revisions: %w", a.inventory, err)
		}
		for _, r := range l.Items {
			anchor[r.Revision] = r.Checksum
		}
		if next = l.Metadata.Continue; next == "" {
			return anchor, nil
		}
	}
}
