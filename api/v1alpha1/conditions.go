package v1alpha1

// Condition types. Every kind has Ready; the others appear on the kinds
// named in their comment. Only the control service writes them.
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
)

// Reasons. Event reasons equal condition reasons.
const (
	// ReasonSucceeded: Ready=True, the object is reconciled and working.
	ReasonSucceeded = "Succeeded"
	// ReasonProgressing: Ready=Unknown, the object was accepted and its first
	// collection, export or probe has not reported yet.
	ReasonProgressing = "Progressing"
	// ReasonInvalidSpec: Ready=False, a rule the schema cannot express failed
	// (for example an expression that does not compile); the message names
	// the field.
	ReasonInvalidSpec = "InvalidSpec"
	// ReasonSuspended: Ready=False, spec.suspend is true.
	ReasonSuspended = "Suspended"

	// ReasonProfileNotFound: Ready=False on a target whose profileRef names
	// no KollectProfile.
	ReasonProfileNotFound = "ProfileNotFound"
	// ReasonTargetNotFound: Degraded=True on a cluster inventory whose
	// targetRefs name a KollectClusterTarget that does not exist.
	ReasonTargetNotFound = "TargetNotFound"
	// ReasonExtractionFailed: Degraded=True on a target whose attribute
	// evaluation failed for at least one object (see
	// status.lastExtractionError).
	ReasonExtractionFailed = "ExtractionFailed"
	// ReasonForbidden: Ready=False or Degraded=True on a target when RBAC
	// denies the collector the watch it needs, or when the requesting user
	// may not list the GVK in a selected namespace.
	ReasonForbidden = "Forbidden"
	// ReasonSecretExtractionNotAllowed: Ready=False on a target whose Profile
	// reads Secret data or exports Secrets without the opt-in annotations.
	ReasonSecretExtractionNotAllowed = "SecretExtractionNotAllowed"
	// ReasonAccessDenied: Ready=False on a target whose ServiceAccount may
	// not list the profile's kind in any selected namespace, or
	// Degraded=True when it may in some of them only; the message names the
	// ServiceAccount and the namespaces left out.
	ReasonAccessDenied = "AccessDenied"

	// ReasonScopeGVKDenied: Ready=False on a target whose Profile's GVK is
	// not in the namespace's Scope allowedGVKs.
	ReasonScopeGVKDenied = "ScopeGVKDenied"
	// ReasonScopeNamespaceDenied: Ready=False or Degraded=True on a target
	// that selects a namespace its Scope does not allow.
	ReasonScopeNamespaceDenied = "ScopeNamespaceDenied"
	// ReasonScopeSinkDenied: Degraded=True on an inventory, and Synced=False
	// on the binding, when a sink is not in the Scope's allow list.
	ReasonScopeSinkDenied = "ScopeSinkDenied"
	// ReasonScopeIntervalDenied: Ready=False on an inventory or sink whose
	// interval is below the Scope's minExportInterval.
	ReasonScopeIntervalDenied = "ScopeIntervalDenied"
	// ReasonScopeStaticRefDenied: Ready=False on a cluster kind that
	// references a namespace outside the ClusterScope's
	// allowedStaticRefNamespaces.
	ReasonScopeStaticRefDenied = "ScopeStaticRefDenied"
	// ReasonScopeConflict: Ready=False on a Scope that is not honoured
	// because another Scope in the namespace (or another ClusterScope) was
	// created first.
	ReasonScopeConflict = "ScopeConflict"

	// ReasonSinkNotFound: Degraded=True on an inventory, and Synced=False on
	// the binding, when a sink ref names no sink; also Ready=False on a
	// connection test whose sinkRef names no sink.
	ReasonSinkNotFound = "SinkNotFound"
	// ReasonExported: Synced=True, the latest snapshot reached the sink.
	ReasonExported = "Exported"
	// ReasonExportFailed: Synced=False and Degraded=True when a sink rejected
	// or could not receive the latest snapshot; the other bindings keep
	// exporting.
	ReasonExportFailed = "ExportFailed"
	// ReasonDriftRepaired is the reason of a Warning Event only, not of a
	// condition: a periodic drift check found that a sink no longer held the
	// snapshot it was last given (rows or its state deleted or edited by
	// hand) and the exporter wrote it again in full. The message names the
	// binding and the drift found.
	ReasonDriftRepaired = "DriftRepaired"

	// ReasonConnectionOK: ConnectionVerified=True, the probe succeeded.
	ReasonConnectionOK = "ConnectionOK"
	// ReasonConnectionTestFailed: ConnectionVerified=False, the probe could
	// not reach or authenticate to the sink.
	ReasonConnectionTestFailed = "ConnectionTestFailed"
	// ReasonSecretResolveFailed: ConnectionVerified=False and Ready=False,
	// the sink's secretRef or tls.caSecretRef is missing, not readable or
	// lacks the keys the sink type needs.
	ReasonSecretResolveFailed = "SecretResolveFailed"
	// ReasonEndpointDenied: Ready=False on a sink whose endpoint resolves to
	// a private, loopback or link-local address the operator does not allow.
	ReasonEndpointDenied = "EndpointDenied"
	// ReasonSecretRefDenied: Ready=False on a sink whose secretRef names
	// another namespace while the operator does not allow cross-namespace
	// Secret references.
	ReasonSecretRefDenied = "SecretRefDenied"
	// ReasonCredentialsDenied: Ready=False on a sink that would run with
	// the exporter's own (ambient) cloud identity where the operator does
	// not allow it, or whose credentials are of a refused type.
	ReasonCredentialsDenied = "CredentialsDenied"
	// ReasonInsecureSkipVerify: TLSInsecure=True, certificate verification
	// is off for this sink.
	ReasonInsecureSkipVerify = "InsecureSkipVerify"
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
	// LabelWatch ("enabled" or "disabled") on namespaces and objects opts
	// them in or out of collection; see TargetSpec.WatchMode.
	LabelWatch = "kollect.dev/watch"
)
