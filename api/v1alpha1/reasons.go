package v1alpha1

// Reasons of conditions, events, status reports (busv1.Outcome.Reason),
// dead letters and connection-test replies: one vocabulary, each with when
// it is set. Event reasons equal condition reasons. Reasons lists them all;
// docs/troubleshooting.md has a row for each (a test keeps the two equal).
const (
	// ReasonSucceeded: Ready=True, the object is reconciled and working.
	ReasonSucceeded = "Succeeded"
	// ReasonProgressing: Ready=Unknown (and Reconciling=True), the object
	// was accepted and its first collection, export or probe has not
	// reported yet; also Synced=Unknown before a binding's first export.
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
	// ReasonSecretExtractionNotAllowed: Ready=False on a target (and its
	// Profile) whose Profile reads Secret data or exports Secrets without
	// the opt-in annotations.
	ReasonSecretExtractionNotAllowed = "SecretExtractionNotAllowed"
	// ReasonExtractionFailed: Degraded=True on a target whose attribute
	// evaluation failed for at least one object (see
	// status.lastExtractionError).
	ReasonExtractionFailed = "ExtractionFailed"
	// ReasonForbidden: Ready=False or Degraded=True on a target when RBAC
	// denies the collector the watch it needs, or when the requesting user
	// may not list the GVK in a selected namespace.
	ReasonForbidden = "Forbidden"
	// ReasonAccessDenied: Ready=False on a target whose ServiceAccount may
	// not list the profile's kind in any selected namespace, or
	// Degraded=True when it may in some of them only; the message names the
	// ServiceAccount and the namespaces left out. Ready=False on a replay
	// whose namespace's ServiceAccount may not get the inventory it names.
	ReasonAccessDenied = "AccessDenied"

	// ReasonScopeGVKDenied: Ready=False on a target whose Profile's GVK is
	// not in its Scope's (or the ClusterScope's) allowedGVKs.
	ReasonScopeGVKDenied = "ScopeGVKDenied"
	// ReasonScopeNamespaceDenied: Ready=False on a target that names a
	// namespace its Scope does not allow, or Degraded=True on one whose
	// label or all-namespaces selection reaches beyond the Scope.
	ReasonScopeNamespaceDenied = "ScopeNamespaceDenied"
	// ReasonScopeSinkDenied: Degraded=True on an inventory, and Synced=False
	// on the binding, when a sink is not in the Scope's allow list.
	ReasonScopeSinkDenied = "ScopeSinkDenied"
	// ReasonScopeIntervalRaised: Ready=True on an inventory one of whose
	// export intervals (of a binding, its sink or the inventory) is below
	// the Scope's minExportInterval, or non-zero and below the operator's
	// --min-export-interval: it exports at the floor instead, and the
	// message names the binding, the interval, the floor and the Scope or
	// the operator's flag.
	ReasonScopeIntervalRaised = "ScopeIntervalRaised"
	// ReasonNamespaceQuotaExceeded: Degraded=True on every inventory of a
	// namespace whose inventories keep more on the bus than its quota
	// (--namespace-bus-bytes, --namespace-history-revisions, tightened by
	// its KollectScope) even with every history trimmed to its newest
	// event; the message names the usage and the limit. Snapshots are
	// still published.
	ReasonNamespaceQuotaExceeded = "NamespaceQuotaExceeded"
	// ReasonScopeHistoryCapped: Ready=True on an inventory whose
	// spec.history asks for more than the Scope's maxHistory or the
	// operator's cap (--history-max-revisions, --history-max-age,
	// --history-max-bytes): it keeps the cap instead, and the message names
	// each field, the value asked, the cap and the Scope or the operator's
	// flag.
	ReasonScopeHistoryCapped = "ScopeHistoryCapped"
	// ReasonQuotaExceeded: Ready=False on an inventory over its
	// namespace's quota of inventories (one of the newest, by creation time
	// then name) or of sink bindings (its bindings added to the older
	// inventories' pass it): its config is not written to the bus, so it
	// does not export. Ready=Unknown on a KollectReplay held Pending while
	// its namespace has its quota of replays in flight; it starts when one
	// finishes. The message names the limit (the operator's flag or the
	// Scope's field) and the usage.
	ReasonQuotaExceeded = "QuotaExceeded"
	// ReasonReplayFailed: Ready=False on a KollectReplay that stopped: a
	// revision was not acknowledged by the sink in time, or the bus could
	// not be read; the message names the revision and the sink.
	ReasonReplayFailed = "ReplayFailed"
	// ReasonRevisionNotRetained: Ready=False on a KollectReplay whose
	// revision, time or range selects nothing the bus still retains; the
	// message gives the retained range.
	ReasonRevisionNotRetained = "RevisionNotRetained"
	// ReasonInventoryNotFound: Ready=False on a KollectReplay whose
	// inventoryRef names no inventory.
	ReasonInventoryNotFound = "InventoryNotFound"
	// ReasonScopeStaticRefDenied: Ready=False on a cluster kind that
	// references a namespace outside the ClusterScope's
	// allowedStaticRefNamespaces.
	ReasonScopeStaticRefDenied = "ScopeStaticRefDenied"
	// ReasonScopeConflict: Ready=False on a Scope that is not honoured
	// because another Scope in the namespace (or another ClusterScope) was
	// created first.
	ReasonScopeConflict = "ScopeConflict"

	// ReasonTargetNotFound: Degraded=True on a cluster inventory whose
	// targetRefs name a KollectClusterTarget that does not exist.
	ReasonTargetNotFound = "TargetNotFound"
	// ReasonSinkNotFound: Degraded=True on an inventory, and Synced=False on
	// the binding, when a sink ref names no sink; also Ready=False on a
	// connection test whose sinkRef names no sink.
	ReasonSinkNotFound = "SinkNotFound"
	// ReasonExported: Synced=True, the latest snapshot reached the sink.
	ReasonExported = "Exported"
	// ReasonExportFailed: Synced=False and Degraded=True when a sink could
	// not receive the latest snapshot (a transient failure, retried with
	// backoff; the other bindings keep exporting). Also the exporters'
	// status-report reason of such an attempt.
	ReasonExportFailed = "ExportFailed"
	// ReasonExportRejected: Synced=False and Degraded=True, and the reason
	// of the dead letter, when a sink refused the latest snapshot for good
	// (bad credentials, invalid configuration): the revision is not retried.
	ReasonExportRejected = "ExportRejected"
	// ReasonPublishFailed: Degraded=True on an inventory whose snapshot the
	// aggregator could not build or publish; it tries again.
	ReasonPublishFailed = "PublishFailed"
	// ReasonSinkConfigPending: Synced=False on a binding, or
	// ConnectionVerified=False on a sink, while the family's exporter has not
	// seen the sink generation named; after the exporter's
	// config-pending timeout also the reason of the dead letter.
	ReasonSinkConfigPending = "SinkConfigPending"
	// ReasonEventUndecodable is the reason of a dead letter only: a snapshot
	// event on the bus could not be decoded and was terminated.
	ReasonEventUndecodable = "EventUndecodable"
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
	// ReasonConnectionTestUnsupported: ConnectionVerified=False on a sink
	// whose type cannot be probed without writing; it is not probed again.
	ReasonConnectionTestUnsupported = "ConnectionTestUnsupported"
	// ReasonSecretResolveFailed: ConnectionVerified=False and Ready=False on
	// a sink, and the reason of its failed exports, when its secretRef or
	// tls.caSecretRef names a Secret that is missing or the exporter may not
	// read, or that lacks the key the sink needs.
	ReasonSecretResolveFailed = "SecretResolveFailed"
	// ReasonEndpointDenied: Ready=False on a sink whose endpoint resolves to
	// a private, loopback or link-local address the operator does not allow.
	ReasonEndpointDenied = "EndpointDenied"
	// ReasonSecretRefDenied: Ready=False on a sink whose secretRef names
	// another namespace while the operator does not allow cross-namespace
	// Secret references (and Synced=False on the bindings to it).
	ReasonSecretRefDenied = "SecretRefDenied"
	// ReasonRequesterUnverified: Ready=False on a Target that names a
	// ServiceAccount, or a sink that names Secrets, without a requester
	// recorded by control's webhook for its current spec.
	ReasonRequesterUnverified = "RequesterUnverified"
	// ReasonRequesterDenied: Ready=False on a Target whose recorded
	// requester may not impersonate the ServiceAccount it names, or a sink
	// whose requester may not get a Secret it names.
	ReasonRequesterDenied = "RequesterDenied"
	// ReasonCredentialsDenied: Ready=False on a sink that would run with
	// the exporter's own (ambient) cloud identity where the operator does
	// not allow it, or whose credentials are of a refused type.
	ReasonCredentialsDenied = "CredentialsDenied"
	// ReasonInsecureSkipVerify: TLSInsecure=True, certificate verification
	// is off for this sink.
	ReasonInsecureSkipVerify = "InsecureSkipVerify"
)

// Reasons returns every reason above, each once.
func Reasons() []string {
	return []string{
		ReasonProgressing, ReasonSucceeded, ReasonInvalidSpec, ReasonSuspended,
		ReasonProfileNotFound, ReasonSecretExtractionNotAllowed, ReasonExtractionFailed, ReasonForbidden, ReasonAccessDenied,
		ReasonScopeGVKDenied, ReasonScopeNamespaceDenied, ReasonScopeSinkDenied, ReasonScopeIntervalRaised,
		ReasonNamespaceQuotaExceeded, ReasonScopeHistoryCapped, ReasonQuotaExceeded, ReasonScopeStaticRefDenied, ReasonReplayFailed, ReasonRevisionNotRetained, ReasonInventoryNotFound, ReasonScopeConflict,
		ReasonTargetNotFound, ReasonSinkNotFound, ReasonExported, ReasonExportFailed, ReasonExportRejected,
		ReasonPublishFailed, ReasonSinkConfigPending, ReasonEventUndecodable, ReasonDriftRepaired,
		ReasonConnectionOK, ReasonConnectionTestFailed, ReasonConnectionTestUnsupported, ReasonSecretResolveFailed,
		ReasonEndpointDenied, ReasonSecretRefDenied, ReasonCredentialsDenied, ReasonInsecureSkipVerify,
		ReasonRequesterUnverified, ReasonRequesterDenied,
	}
}

// Stalls reports whether Ready=False with reason is a stall in kstatus's
// sense: the controller cannot make progress until the object, or what it
// references (a Profile, a sink, a Secret, a Scope, RBAC), changes. Suspended
// is deliberate, and the other reasons are retried, so they do not stall.
func Stalls(reason string) bool {
	switch reason {
	case ReasonInvalidSpec, ReasonProfileNotFound, ReasonSecretExtractionNotAllowed, ReasonForbidden, ReasonAccessDenied,
		ReasonScopeGVKDenied, ReasonScopeNamespaceDenied, ReasonScopeStaticRefDenied, ReasonScopeConflict,
		ReasonSinkNotFound, ReasonSecretResolveFailed, ReasonEndpointDenied, ReasonSecretRefDenied, ReasonCredentialsDenied,
		ReasonConnectionTestUnsupported, ReasonInventoryNotFound, ReasonReplayFailed, ReasonRevisionNotRetained, ReasonQuotaExceeded,
		ReasonRequesterUnverified, ReasonRequesterDenied:
		return true
	}
	return false
}
