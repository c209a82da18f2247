package chart_test

import (
	"testing"

	"k8s.io/client-go/kubernetes"
)

const kollect = "kollect.dev"

// testRBAC applies the RBAC of the default rendering and of the full one (per-GVK collector
// rules, exporters bound per namespace, cert-manager certificates) and checks what each
// service account may and may not do.
func testRBAC(t *testing.T, cs kubernetes.Interface, a *applier) {
	t.Helper()
	applyRBAC(t, a, decode(t, render(t, "")))
	t.Run("default values", func(t *testing.T) {
		checkAccess(t, cs, namespace, []access{
			// control writes status, finalizers and the webhook configuration.
			{sa: "kollect-control", verb: "patch", group: kollect, resource: "kollecttargets", sub: "status", ns: "team-a", allowed: true},
			{sa: "kollect-control", verb: "update", group: kollect, resource: "kollectinventories", ns: "team-a", allowed: true},
			{sa: "kollect-control", verb: "watch", group: kollect, resource: "kollectclusterinventories", allowed: true},
			{sa: "kollect-control", verb: "delete", group: kollect, resource: "kollectconnectiontests", ns: "team-a", allowed: true},
			{sa: "kollect-control", verb: "list", resource: "namespaces", allowed: true},
			{sa: "kollect-control", verb: "create", group: "authorization.k8s.io", resource: "subjectaccessreviews", allowed: true},
			// control reviews Target access again when role bindings change.
			{sa: "kollect-control", verb: "watch", group: "rbac.authorization.k8s.io", resource: "rolebindings", allowed: true},
			{sa: "kollect-control", verb: "list", group: "rbac.authorization.k8s.io", resource: "clusterrolebindings", allowed: true},
			{sa: "kollect-control", verb: "create", group: "rbac.authorization.k8s.io", resource: "rolebindings", ns: "team-a", allowed: false},
			{sa: "kollect-control", verb: "patch", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", name: "kollect-control", allowed: true},
			{sa: "kollect-control", verb: "get", resource: "secrets", ns: namespace, name: "kollect-control-webhook-cert", allowed: true},
			{sa: "kollect-control", verb: "create", resource: "secrets", ns: namespace, allowed: true},
			// the key sealing requester records (F6), created by control when missing.
			{sa: "kollect-control", verb: "get", resource: "secrets", ns: namespace, name: "kollect-control-requester-key", allowed: true},
			{sa: "kollect-control", verb: "patch", group: "admissionregistration.k8s.io", resource: "mutatingwebhookconfigurations", name: "kollect-control", allowed: true},
			{sa: "kollect-control", verb: "update", group: "coordination.k8s.io", resource: "leases", ns: namespace, allowed: true},
			{sa: "kollect-control", verb: "create", group: "events.k8s.io", resource: "events", ns: "team-a", allowed: true},
			{sa: "kollect-control", verb: "patch", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", name: "someone-else", allowed: false},
			{sa: "kollect-control", verb: "get", resource: "secrets", ns: "team-a", name: "sink-credentials", allowed: false},
			{sa: "kollect-control", verb: "list", resource: "secrets", ns: namespace, allowed: false},
			{sa: "kollect-control", verb: "delete", group: kollect, resource: "kollecttargets", ns: "team-a", allowed: false},
			{sa: "kollect-control", verb: "list", group: "apps", resource: "deployments", ns: "team-a", allowed: false},
			// the collector reads anything and writes nothing (its leases are on the bus).
			{sa: "kollect-collector", verb: "list", group: "apps", resource: "deployments", ns: "team-a", allowed: true},
			{sa: "kollect-collector", verb: "watch", resource: "pods", allowed: true},
			{sa: "kollect-collector", verb: "list", resource: "namespaces", allowed: true},
			{sa: "kollect-collector", verb: "update", group: "coordination.k8s.io", resource: "leases", ns: namespace, allowed: false},
			{sa: "kollect-collector", verb: "update", group: kollect, resource: "kollecttargets", sub: "status", ns: "team-a", allowed: false},
			{sa: "kollect-collector", verb: "patch", group: kollect, resource: "kollectinventories", ns: "team-a", allowed: false},
			{sa: "kollect-collector", verb: "delete", group: "apps", resource: "deployments", ns: "team-a", allowed: false},
			{sa: "kollect-collector", verb: "create", group: "coordination.k8s.io", resource: "leases", ns: "team-a", allowed: false},
			// the aggregator has no Kubernetes access at all.
			{sa: "kollect-aggregator", verb: "get", resource: "pods", ns: namespace, allowed: false},
			{sa: "kollect-aggregator", verb: "list", resource: "namespaces", allowed: false},
			{sa: "kollect-aggregator", verb: "get", group: "coordination.k8s.io", resource: "leases", ns: namespace, allowed: false},
			{sa: "kollect-aggregator", verb: "get", resource: "secrets", ns: namespace, allowed: false},
			{sa: "kollect-aggregator", verb: "get", group: kollect, resource: "kollectinventories", ns: "team-a", allowed: false},
			// the init-secrets hook Jobs make two Secrets and the APIService's caBundle, nothing else.
			{sa: "kollect-init-secrets", verb: "create", resource: "secrets", ns: namespace, allowed: true},
			{sa: "kollect-init-secrets", verb: "update", resource: "secrets", ns: namespace, name: "kollect-nats-users", allowed: true},
			{sa: "kollect-init-secrets", verb: "get", resource: "secrets", ns: namespace, name: "kollect-query-cert", allowed: true},
			{sa: "kollect-init-secrets", verb: "get", resource: "secrets", ns: namespace, name: "kollect-control-requester-key", allowed: false},
			{sa: "kollect-init-secrets", verb: "list", resource: "secrets", ns: namespace, allowed: false},
			{sa: "kollect-init-secrets", verb: "create", resource: "secrets", ns: "team-a", allowed: false},
			{sa: "kollect-init-secrets", verb: "patch", group: "apiregistration.k8s.io", resource: "apiservices", name: "v1alpha1.query.kollect.dev", allowed: true},
			{sa: "kollect-init-secrets", verb: "patch", group: "apiregistration.k8s.io", resource: "apiservices", name: "v1.apps", allowed: false},
		})
		for _, e := range []string{"kollect-snapshot-exporter", "kollect-database-exporter", "kollect-event-exporter"} {
			checkAccess(t, cs, namespace, []access{
				// exporters read Secrets by name, and nothing else.
				{sa: e, verb: "get", resource: "secrets", ns: "team-a", name: "sink-credentials", allowed: true},
				{sa: e, verb: "list", resource: "secrets", ns: "team-a", allowed: false},
				{sa: e, verb: "watch", resource: "secrets", ns: "team-a", allowed: false},
				{sa: e, verb: "list", resource: "pods", ns: "team-a", allowed: false},
				{sa: e, verb: "get", resource: "configmaps", ns: "team-a", allowed: false},
				{sa: e, verb: "update", group: kollect, resource: "kollectinventories", sub: "status", ns: "team-a", allowed: false},
				{sa: e, verb: "get", group: kollect, resource: "kollectsnapshotsinks", ns: "team-a", allowed: false},
			})
		}
	})
	applyRBAC(t, a, decode(t, helm(t, "template", "kfull", ".", "--namespace", "kfull-system", "--values", valuesSets["full"])))
	t.Run("full values", func(t *testing.T) {
		checkAccess(t, cs, "kfull-system", []access{
			// the collector reads only the listed kinds.
			{sa: "kfull-kollect-collector", verb: "list", group: "apps", resource: "deployments", ns: "team-a", allowed: true},
			{sa: "kfull-kollect-collector", verb: "watch", resource: "namespaces", allowed: true},
			{sa: "kfull-kollect-collector", verb: "list", resource: "secrets", ns: "team-a", allowed: false},
			{sa: "kfull-kollect-collector", verb: "get", group: "apiextensions.k8s.io", resource: "customresourcedefinitions", allowed: false},
			// exporters read Secrets only in the listed namespaces.
			{sa: "kfull-kollect-database-exporter", verb: "get", resource: "secrets", ns: "team-a", name: "db", allowed: true},
			{sa: "kfull-kollect-database-exporter", verb: "get", resource: "secrets", ns: "team-b", name: "db", allowed: false},
			// with cert-manager, control touches neither the webhook certificate nor the webhook
			// configuration; it still creates and reads its requester key (F6).
			{sa: "kfull-kollect-control", verb: "patch", group: kollect, resource: "kollecttargets", sub: "status", ns: "team-a", allowed: true},
			{sa: "kfull-kollect-control", verb: "create", resource: "secrets", ns: "kfull-system", allowed: true},
			{sa: "kfull-kollect-control", verb: "get", resource: "secrets", ns: "kfull-system", name: "kfull-kollect-control-webhook-cert", allowed: false},
			{sa: "kfull-kollect-control", verb: "patch", group: "admissionregistration.k8s.io", resource: "validatingwebhookconfigurations", name: "kfull-kollect-control", allowed: false},
			// the query service watches the inventories' uids, and writes nothing.
			{sa: "kfull-kollect-query", verb: "watch", group: kollect, resource: "kollectinventories", allowed: true},
			{sa: "kfull-kollect-query", verb: "get", group: kollect, resource: "kollectclusterinventories", name: "fleet", allowed: true},
			{sa: "kfull-kollect-query", verb: "update", group: kollect, resource: "kollectinventories", ns: "team-a", allowed: false},
			{sa: "kfull-kollect-query", verb: "get", group: kollect, resource: "kollecttargets", ns: "team-a", allowed: false},
			{sa: "kfull-kollect-query", verb: "get", resource: "secrets", ns: "team-a", allowed: false},
		})
	})
}
