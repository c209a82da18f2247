package v1alpha1

// Condition types. Every kind has Ready (and Reconciling or Stalled while
// they are True); the others appear on the kinds named in their comment.
// Only the control service writes them. Every condition carries the
// generation it describes in observedGeneration, as status does.
const (
	// ConditionReady is set on every kind. True when the object is valid, its
	// references resolve, it is within its Scope and its work is running (a
	// Target collects, an Inventory exports to at least its healthy sinks, a
	// sink is usable). False with one of the reasons below otherwise.
	ConditionReady = "Ready"

	// ConditionSynced is set on inventories and on each entry of
	// status.sinkExports. True when the latest snapshot was delivered to
	// every bound sink (to that one sink, on an entry); False with
	// ExportFailed, SinkNotFound or ScopeSinkDenied while it was not.
	ConditionSynced = "Synced"

	// ConditionDegraded is set on targets and inventories. True when the
	// object works only in part: some extractions fail, some bindings are
	// denied or failing, RBAC forbids some namespaces. Absent or False when
	// everything works.
	ConditionDegraded = "Degraded"

	// ConditionConnectionVerified is set on sinks and connection tests. True
	// after the family's exporter reached the sink with its credentials
	// (ConnectionOK); False with ConnectionTestFailed or SecretResolveFailed.
	ConditionConnectionVerified = "ConnectionVerified"

	// ConditionTLSInsecure is set on sinks. True while spec.tls.insecureSkipVerify
	// is true, so that unverified connections stay visible; removed otherwise.
	ConditionTLSInsecure = "TLSInsecure"

	// ConditionReconciling is set on every kind, after kstatus: True while
	// the current generation's work is in progress (Ready=Unknown: the first
	// collection, export or probe has not reported yet), with Ready's reason
	// and message; removed otherwise. Flux, Argo CD and kstatus read it.
	ConditionReconciling = "Reconciling"

	// ConditionStalled is set on every kind, after kstatus: True when Ready
	// is False with a reason that needs a change of the object (or of what
	// it references) to clear (see Stalls), with Ready's reason and message;
	// removed otherwise.
	ConditionStalled = "Stalled"
)

// Annotations that change how control treats an object.
const (
	// AnnotationTestConnection set to "true" on a sink re-probes it once;
	// control removes the annotation afterwards.
	AnnotationTestConnection = "kollect.dev/test-connection"
	// AnnotationAllowSecretExtraction set to "true" on a Profile lets its
	// paths read Secret data.
	AnnotationAllowSecretExtraction = "kollect.dev/allow-secret-extraction" //nolint:gosec // G101: an annotation name, not a credential
	// AnnotationAllowFullResourceExport set to "true" on a Profile lets it
	// export whole Secrets (export.mode Resource).
	AnnotationAllowFullResourceExport = "kollect.dev/allow-full-resource-export"
	// AnnotationNamespaceWatch on a namespace sets its watch mode, like the
	// LabelWatch label.
	AnnotationNamespaceWatch = "kollect.dev/namespace-watch"
	// AnnotationRequester records, on a KollectTarget and on sinks, the
	// user whose request last set the spec (JSON: user and groups). Only
	// control's webhook writes it; AnnotationRequesterSeal proves it.
	AnnotationRequester = "kollect.dev/requester"
	// AnnotationRequesterSeal is control's seal over the requester, the
	// object and its spec: a record anyone else writes, or a spec changed
	// without the webhook, does not verify.
	AnnotationRequesterSeal = "kollect.dev/requester-seal"
	// AnnotationVerifyRequester set (any value) on a Target or sink makes
	// the webhook record the user setting it as the requester; the webhook
	// removes it. It migrates objects written without the webhook.
	AnnotationVerifyRequester = "kollect.dev/verify-requester"
	// LabelWatch ("enabled" or "disabled") on namespaces and objects opts
	// them in or out of collection; see TargetSpec.WatchMode.
	LabelWatch = "kollect.dev/watch"
)
