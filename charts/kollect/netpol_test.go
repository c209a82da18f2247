package chart_test

import (
	"net/netip"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// peer is a client of a Kollect pod: its namespace (and that namespace's labels), its pod
// labels and its address.
type peer struct {
	namespace string
	nsLabels  map[string]string
	pod       map[string]string
	ip        string
}

// policies decodes the rendered NetworkPolicies.
func policies(t *testing.T, objs []*unstructured.Unstructured) []networkingv1.NetworkPolicy {
	t.Helper()
	var out []networkingv1.NetworkPolicy
	for _, o := range objs {
		if o.GetKind() != "NetworkPolicy" {
			continue
		}
		var p networkingv1.NetworkPolicy
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &p); err != nil {
			t.Fatalf("decode NetworkPolicy %s: %v", o.GetName(), err)
		}
		out = append(out, p)
	}
	return out
}

func selects(t *testing.T, s *metav1.LabelSelector, l map[string]string) bool {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		t.Fatalf("selector %v: %v", s, err)
	}
	return sel.Matches(labels.Set(l))
}

// admits evaluates the policies as the NetworkPolicy API defines them, for ingress: a pod
// selected by no policy admits everything; a selected pod admits a connection on port (by
// name) when one rule of one policy selecting it admits both the port and the peer.
func admits(t *testing.T, ps []networkingv1.NetworkPolicy, ns string, pod map[string]string, port string, from peer) bool {
	t.Helper()
	selected := false
	for _, p := range ps {
		if p.Namespace != ns || !selects(t, &p.Spec.PodSelector, pod) {
			continue
		}
		selected = true
		for _, r := range p.Spec.Ingress {
			if portAdmitted(r.Ports, port) && peerAdmitted(t, r.From, p.Namespace, from) {
				return true
			}
		}
	}
	return !selected
}

func portAdmitted(ports []networkingv1.NetworkPolicyPort, port string) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		if p.Port == nil || p.Port.String() == port {
			return true
		}
	}
	return false
}

func peerAdmitted(t *testing.T, from []networkingv1.NetworkPolicyPeer, ns string, c peer) bool {
	if len(from) == 0 {
		return true
	}
	for _, f := range from {
		switch {
		case f.IPBlock != nil:
			if netip.MustParsePrefix(f.IPBlock.CIDR).Contains(netip.MustParseAddr(c.ip)) {
				return true
			}
		case f.NamespaceSelector != nil:
			if selects(t, f.NamespaceSelector, c.nsLabels) && (f.PodSelector == nil || selects(t, f.PodSelector, c.pod)) {
				return true
			}
		case f.PodSelector != nil:
			if c.namespace == ns && selects(t, f.PodSelector, c.pod) {
				return true
			}
		}
	}
	return false
}

func TestNetworkPoliciesAreOnAndAdmitOnlyTheirPeers(t *testing.T) {
	kollectPod := func(component string) map[string]string {
		return map[string]string{"app.kubernetes.io/name": "kollect", "app.kubernetes.io/instance": releaseName,
			"app.kubernetes.io/component": component}
	}
	stranger := peer{namespace: "team-a", nsLabels: map[string]string{"kubernetes.io/metadata.name": "team-a"},
		pod: map[string]string{"app": "curl"}, ip: "10.244.1.7"}
	strangerHere := peer{namespace: namespace, nsLabels: map[string]string{"kubernetes.io/metadata.name": namespace},
		pod: map[string]string{"app": "curl"}, ip: "10.244.1.8"}
	prometheus := peer{namespace: "monitoring", nsLabels: map[string]string{"kubernetes.io/metadata.name": "monitoring"},
		pod: map[string]string{"app": "prometheus"}, ip: "10.244.2.9"}
	apiServer := peer{namespace: "", ip: "172.18.0.2"}
	collector := peer{namespace: namespace, nsLabels: map[string]string{"kubernetes.io/metadata.name": namespace},
		pod: kollectPod("collector"), ip: "10.244.1.9"}
	tests := []struct {
		name, values string
		sets         []string
		pod          string // component
		port         string
		from         peer
		want         bool
	}{
		{"by default a pod of another namespace cannot reach the bus", "", nil, "nats", "client", stranger, false},
		{"by default a pod of the release namespace that is not Kollect's cannot reach the bus", "", nil, "nats", "client", strangerHere, false},
		{"by default a Kollect pod reaches the bus", "", nil, "nats", "client", collector, true},
		{"by default a Kollect pod cannot join the NATS cluster", "", nil, "nats", "cluster", collector, false},
		{"by default the webhook is open to the API server", "", nil, "control", "webhook", apiServer, true},
		{"by default nothing reaches control's other ports", "", nil, "control", "health", stranger, false},
		{"by default a scrape reaches metrics (which needs a token)", "", nil, "collector", "metrics", stranger, true},
		{"by default nothing reaches the aggregator but its metrics", "", nil, "aggregator", "pprof", stranger, false},
		{"with metricsFrom, a stranger cannot scrape", "", []string{"networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=monitoring"},
			"collector", "metrics", stranger, false},
		{"with metricsFrom, Prometheus scrapes", "", []string{"networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=monitoring"},
			"collector", "metrics", prometheus, true},
		{"with metricsFrom, a stranger cannot read the NATS monitor", "", []string{"networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.kubernetes\\.io/metadata\\.name=monitoring"},
			"nats", "monitor", stranger, false},
		{"with queryFrom, a pod cannot call the query service around the API server", "ci/full-values.yaml",
			[]string{"networkPolicy.queryFrom[0].ipBlock.cidr=172.18.0.0/24"}, "query", "https", stranger, false},
		{"with queryFrom, the API server calls the query service", "ci/full-values.yaml",
			[]string{"networkPolicy.queryFrom[0].ipBlock.cidr=172.18.0.0/24"}, "query", "https", apiServer, true},
		{"with webhookFrom, a pod cannot post forged reviews to the webhook", "",
			[]string{"networkPolicy.webhookFrom[0].ipBlock.cidr=172.18.0.0/24"}, "control", "webhook", stranger, false},
		{"with webhookFrom, the API server calls the webhook", "",
			[]string{"networkPolicy.webhookFrom[0].ipBlock.cidr=172.18.0.0/24"}, "control", "webhook", apiServer, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := policies(t, decode(t, render(t, tt.values, tt.sets...)))
			if len(ps) == 0 {
				t.Fatal("no NetworkPolicy rendered")
			}
			if got := admits(t, ps, namespace, kollectPod(tt.pod), tt.port, tt.from); got != tt.want {
				t.Errorf("%s port %s from %s/%v: admitted = %v, want %v", tt.pod, tt.port, tt.from.namespace, tt.from.pod, got, tt.want)
			}
		})
	}
	t.Run("every Kollect pod is selected by a policy", func(t *testing.T) {
		ps := policies(t, decode(t, render(t, valuesSets["full"])))
		for _, c := range []string{"control", "collector", "aggregator", "query", "snapshot-exporter", "database-exporter", "event-exporter", "nats"} {
			if admits(t, ps, namespace, kollectPod(c), "no-such-port", stranger) {
				t.Errorf("%s admits a port it does not serve", c)
			}
		}
	})
}
