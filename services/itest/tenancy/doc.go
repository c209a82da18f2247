// Package tenancy is the attack suite of issue #16 ("Tenant boundaries that
// hold without the webhook"). It has no non-test code besides this comment.
//
// # What runs
//
// One real kube-apiserver and etcd (pkg/testenv), one embedded NATS
// JetStream server, and the whole Kollect system in the test process
// (services/cli/dev, as services/itest runs it). dev.Run serves no webhook,
// so a second control instance runs next to it only to serve the validating
// webhook: it never becomes leader (the suite holds its Lease), so it
// reconciles nothing. The webhook configuration selects objects labelled
// tenancy.kollect.dev/admission=on: an attack without that label is the
// attack on a cluster without the webhook (`kollect dev`, failurePolicy
// Ignore, objects older than the webhook); the same attack with the label is
// the admission case.
//
// The suite runs in two phases on the same API server and bus:
//
//   - open: the operator's in-cluster sinks opt-in is on, because the
//     endpoints that record what an exporter sends listen on loopback; it
//     holds every vector but the address classes below, including the
//     egress cases that must be refused even with the opt-in (link-local
//     metadata, the operator's deny list, a redirect into the deny list);
//   - closed: the opt-in is off (the default): sinks on 127.0.0.1, CGNAT
//     (100.64.0.0/10) and the NAT64 and 6to4 forms of the metadata address
//     are refused.
//
// # The tenants
//
// team-a is the attacker: its user alice (groups system:authenticated) has
// the ClusterRole admin in team-a only, and acts through an impersonating
// client. envtest runs no controller manager, so the suite aggregates
// admin, edit and view itself, with a kollect-edit ClusterRole that adds
// kollect.dev objects to admin and edit (as a chart would ship it). As the
// normal, allowed grants, alice binds view and a Secret reader in team-a
// to team-a's ServiceAccount kollect, the identity its Targets act as.
// team-b is the victim: it holds a canary Secret, a Deployment whose env,
// args and last-applied annotation hold canary values, and a ConfigMap its
// admin lets team-a's ServiceAccount read. team-a also owns a Deployment
// and a Secret with canary values: it may collect them, but their
// sensitive values must be redacted.
//
// # Threat model covered
//
//  1. A Target that reaches other namespaces (no namespace filter, or
//     includedNamespaces naming them), with and without the webhook.
//  2. A Target admitted before its Profile exists, and a Profile whose kind
//     is switched under an admitted Target.
//  3. A sink whose secretRef names another namespace's Secret (Git,
//     PostgreSQL, NATS), sending it to an endpoint the tenant controls.
//  4. A sink without secretRef running with the exporter's own cloud
//     identity (S3 environment keys, GCS application default credentials).
//  5. GCS credentials of type external_account that make the exporter read
//     a local file and post it to a tenant-chosen token URL.
//  6. Redaction bypassed by JSONPath index or filter, CEL filter, base64 or
//     size, the annotations and the last-applied annotation, container args,
//     and a Resource export without default pruning.
//  7. A Profile metric whose labels collide with the built-in ones.
//  8. Choosing an identity (F6 of the third review): bob, who may only
//     write kollect.dev objects in team-a, names a stronger ServiceAccount
//     of team-a (deployer, which reads team-b) on a Target, and a Secret of
//     team-a he may not read on a sink pointing at his endpoint; with and
//     without the webhook, which records the requester control reviews.
//  9. Egress to link-local metadata, CGNAT, NAT64 and 6to4 addresses, the
//     operator's deny list (the "service CIDR", here a loopback range so
//     that the suite can count connections into it), loopback without the
//     opt-in, and an HTTP redirect into the deny list. The deny list is an
//     operator setting the fix adds; settings_test.go sets it by name.
//  9. A password inside gzip or base64 values (ConfigMap binaryData and
//     data, a tool's compressed applied-object annotation): SECURITY-3 F16.
//  10. A KollectReplay, without the webhook, of the platform's
//     KollectClusterInventory and of a missing one: denied alike at
//     reconcile (SECURITY-3 F14).
//  11. The Events of a cluster-scoped object filed in default, where a
//     tenant with view would read them (SECURITY-3 F17).
//  12. A user holding what the chart aggregates into view (the query
//     resources, get on the inventory) reading an inventory's rows, diffs
//     and timelines through the history API (issue 36, F4): refused without
//     get on kollectinventories/data. The query service runs behind its
//     own aggregating kube-apiserver and bus (querytest), since the suite's
//     system serves no query API.
//  13. A scrape of a service's /metrics (Profile label values, inventory and
//     sink names of every tenant) without a token or with team-a's
//     ServiceAccount token (issue 36, F15): refused, served as every
//     service serves it by default (HTTPS, TokenReview and
//     SubjectAccessReview).
//  14. A Git sink's history forged by whoever may push to it (rows
//     rewritten, checksum recomputed, previousChecksum copied; issue 36,
//     F13): kollect verify --anchor, reading the bus's checksums through
//     the query API (querytest), reports the forged revision.
//
// Each attack must end refused: an admission denial, or a condition whose
// reason and message the table in reasons_test.go names. After every
// vector, a canary sweep looks for every canary value (plain and in every
// base64 alignment) in the content of every endpoint and Git repository the
// suite controls, the services' log file, every message published on the
// bus while the suite ran (a tap on ">"), every message left in every
// JetStream stream (KV buckets, the object store, dead letters), the status
// of every Kollect object and every Event. The sweep is itself tested: it
// finds canaries planted on purpose in each of those places.
//
// Not covered here: the Azure workload identity's hosts (SECURITY-3 F11:
// the suite has no Azure identity and allows no namespace ambient
// credentials; TestWorkloadIdentityGoesOnlyToAzureStorageHosts covers it),
// the embedded bus of `kollect dev` (F12: the suite runs on a bus of its
// own; TestTheEmbeddedBusAdmitsOnlyThisRunsCredentials covers it), and
// the collector's own /metrics endpoint (dev.Run serves it only on
// loopback over plain HTTP, so the label collision is asserted as a
// refusal only; vector 13 scrapes a secured server of the same kind), SSH
// sinks, BigQuery and the resource-exhaustion holes (H5, H6).
package tenancy
