package loadtest

import (
	"fmt"
	"strconv"
	"strings"
)

// The abuse suite's tenants: Abuser floods the bus, Steady keeps changing
// one ConfigMap and must keep getting it exported.
const (
	AbuserNamespace = "abuser"
	SteadyNamespace = "steady"
	steadyTopic     = "steady"
	abuseTier       = "abuse"
)

// tenantAccess lets the ServiceAccount kollect of ns list ConfigMaps there
// (its Targets collect with it).
func tenantAccess(ns string) string {
	return fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: kollect-read, namespace: %s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: kollect-loadtest-read}
subjects:
- {kind: ServiceAccount, name: kollect, namespace: %s}
`, ns, ns)
}

// kafkaSinkDoc is a perRow Kafka event sink of ns writing topic.
func kafkaSinkDoc(ns, name, addr, topic string) string {
	return fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectEventSink
metadata: {name: %s, namespace: %s}
spec:
  type: kafka
  cluster: %s
  kafka: {brokers: [%s], topic: %s, mode: perRow}
`, name, ns, Cluster, strconv.Quote(addr), topic)
}

// abuserResources are the flood: a Profile exporting each ConfigMap's
// data.blob whole, a Target on every ConfigMap of the namespace, sinks
// Kafka sinks and inventories each bound to all of them with a 1ms
// interval and the longest retention the schema admits.
func abuserResources(addr string, sinks, inventories int) string {
	docs := []string{tenantAccess(AbuserNamespace), fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: blobs, namespace: %[1]s}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes:
  - {name: blob, path: $.data.blob, type: string, optional: true}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: blobs, namespace: %[1]s}
spec:
  profileRef: {name: blobs}
`, AbuserNamespace)}
	var refs []string
	for i := range sinks {
		name := "kafka-" + strconv.Itoa(i)
		refs = append(refs, name)
		docs = append(docs, kafkaSinkDoc(AbuserNamespace, name, addr, "abuse-"+strconv.Itoa(i)))
	}
	for i := range inventories {
		docs = append(docs, fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: flood-%d, namespace: %s}
spec:
  exportMinInterval: 1ms
  history: {revisions: 1000, maxAge: 2160h}
  eventSinkRefs: [%s]
`, i, AbuserNamespace, strings.Join(refs, ", ")))
	}
	return strings.Join(docs, "---\n")
}

// steadyResources are the second tenant: one inventory of its ConfigMaps'
// seq annotation, exported per row to Kafka.
func steadyResources(addr string) string {
	return strings.Join([]string{tenantAccess(SteadyNamespace), fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: seqs, namespace: %[1]s}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes:
  - {name: seq, path: "$.metadata.annotations['%[2]s']", type: string, optional: true}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: seqs, namespace: %[1]s}
spec:
  profileRef: {name: seqs}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: steady, namespace: %[1]s}
spec:
  eventSinkRefs: [steady]
`, SteadyNamespace, SeqAnnotation), kafkaSinkDoc(SteadyNamespace, "steady", addr, steadyTopic)}, "---\n")
}

// replayDoc asks to re-deliver revision 1 of inventory inv to sink.
func replayDoc(name, inv, sink string) string {
	return fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectReplay
metadata: {name: %s, namespace: %s}
spec:
  inventoryRef: {name: %s}
  sink: event/%s
  revision: 1
`, name, AbuserNamespace, inv, sink)
}
