{{/*
kollect.args: the command-line flags of service .svc (from kollect.services). Every flag is
one the binary defines (its Config.BindFlags); the chart test parses these args with each
service's own flag set.
*/}}
{{- define "kollect.args" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $ns := $root.Release.Namespace -}}
{{- $full := include "kollect.fullname" $root -}}
- --nats-url={{ include "kollect.natsURL" $root }}
{{- include "kollect.natsTLSArgs" $root }}
{{- if eq .svc.service "control" }}
{{- $c := $v.control }}
- --provision-bus={{ $c.provisionBus }}
{{- if $c.provisionBus }}
{{- $replicas := int $c.bus.replicas }}
{{- if eq $replicas 0 }}
{{- $replicas = 1 }}
{{- if and $v.nats.enabled (ge (int $v.nats.replicas) 3) }}{{ $replicas = 3 }}{{ end }}
{{- end }}
- --bus-replicas={{ $replicas }}
- --bus-storage={{ $c.bus.storage }}
- --bus-snapshot-history={{ $c.bus.snapshotHistory }}
- --bus-snapshot-max-age={{ $c.bus.snapshotMaxAge }}
- --bus-dead-letters-per-inventory={{ int64 $c.bus.deadLettersPerInventory }}
- --bus-dead-letters={{ int64 $c.bus.deadLetters }}
- --bus-snapshot-max-bytes={{ $c.bus.snapshotMaxBytes }}
- --bus-envelope-store-max-bytes={{ $c.bus.envelopeStoreMaxBytes }}
{{- end }}
- --metrics-bind-address=:{{ $c.metricsPort }}
{{- include "kollect.metricsArgs" $v }}
- --health-probe-bind-address=:{{ $c.healthPort }}
- --leader-elect=true
- --leader-election-namespace={{ $ns }}
- --leader-election-identity=$(POD_NAME)
{{- include "kollect.extractArgs" $v }}
{{- include "kollect.egressArgs" $v }}
{{- if $v.allowCrossNamespaceSecretRefs }}
- --allow-cross-namespace-secret-refs=true
{{- end }}
- --probe-timeout={{ $c.probeTimeout }}
- --min-export-interval={{ $v.minExportInterval }}
- --max-inventories-per-namespace={{ int64 $v.limits.inventoriesPerNamespace }}
- --max-bindings-per-namespace={{ int64 $v.limits.bindingsPerNamespace }}
- --max-replays-per-namespace={{ int64 $v.limits.replaysPerNamespace }}
- --history-max-revisions={{ int64 $v.limits.history.maxRevisions }}
- --history-max-age={{ $v.limits.history.maxAge }}
- --history-max-bytes={{ int64 $v.limits.history.maxBytes }}
- --default-service-account={{ $c.tenancy.defaultServiceAccount }}
- --access-recheck-interval={{ $c.tenancy.accessRecheckInterval }}
- --verify-requesters={{ $c.tenancy.verifyRequesters }}
- --service-account-access={{ $c.tenancy.serviceAccountAccess }}
- --requester-key-secret={{ $full }}-control-requester-key
{{- if $c.webhook.enabled }}
- --webhook-port={{ $c.webhook.port }}
- --webhook-review-rate={{ $c.webhook.reviewRate }}
- --webhook-review-burst={{ $c.webhook.reviewBurst }}
{{- if $c.webhook.clientCA.name }}
- --webhook-client-ca-file=/etc/kollect/webhook-client-ca/{{ $c.webhook.clientCA.key }}
{{- end }}
{{- if $c.webhook.certManager.enabled }}
- --webhook-cert-dir=/etc/kollect/webhook-certs
{{- else }}
- --webhook-secret-namespace={{ $ns }}
- --webhook-secret={{ $full }}-control-webhook-cert
- --webhook-config-name={{ $full }}-control
- --webhook-hosts={{ include "kollect.webhookService" $root }}.{{ $ns }}.svc,{{ include "kollect.webhookService" $root }}.{{ $ns }}.svc.cluster.local
{{- end }}
{{- else }}
- --webhook-port=0
{{- end }}
{{- else if eq .svc.service "collector" }}
- --metrics-bind-address=:{{ $v.collector.metricsPort }}
{{- include "kollect.metricsArgs" $v }}
- --workers={{ $v.collector.workers }}
- --shards={{ $v.collector.shards }}
- --leader-elect=true
- --leader-election-identity=$(POD_NAME)
{{- include "kollect.extractArgs" $v }}
{{- else if eq .svc.service "query" }}
{{- $q := $v.query }}
- --metrics-bind-address=:{{ $q.metricsPort }}
{{- include "kollect.metricsArgs" $v }}
- --secure-port={{ $q.securePort }}
- --tls-cert-file=/etc/kollect/query-certs/tls.crt
- --tls-private-key-file=/etc/kollect/query-certs/tls.key
- --max-revisions-per-page={{ $q.maxRevisionsPerPage }}
- --max-rows-per-page={{ $q.maxRowsPerPage }}
- --default-rows-per-page={{ $q.defaultRowsPerPage }}
- --max-diff-rows={{ int64 $q.maxDiffRows }}
- --max-timeline-span={{ $q.maxTimelineSpan }}
- --max-concurrent-reads={{ $q.maxConcurrentReads }}
- --read-wait={{ $q.readWait }}
{{- else if eq .svc.service "aggregator" }}
- --metrics-bind-address=:{{ $v.aggregator.metricsPort }}
{{- include "kollect.metricsArgs" $v }}
- --settle={{ $v.aggregator.settle }}
- --collector-shards={{ $v.collector.shards }}
- --leader-election-lease-duration={{ $v.aggregator.leaseTTL }}
- --shards={{ int $v.aggregator.shards }}
- --max-replays={{ $v.aggregator.maxReplays }}
- --max-replays-per-namespace={{ $v.aggregator.maxReplaysPerNamespace }}
- --replay-max-attempts={{ $v.aggregator.replayMaxAttempts }}
- --min-export-interval={{ $v.minExportInterval }}
- --namespace-bus-bytes={{ $v.aggregator.namespaceBusBytes }}
- --namespace-history-revisions={{ int64 $v.aggregator.namespaceHistoryRevisions }}
- --history-purge-grace={{ $v.aggregator.historyPurgeGrace }}
- --leader-election-identity=$(POD_NAME)
{{- else }}
- --metrics-bind-address=:{{ $v.exporters.metricsPort }}
{{- include "kollect.metricsArgs" $v }}
{{- include "kollect.egressArgs" $v }}
{{- if $v.allowCrossNamespaceSecretRefs }}
- --allow-cross-namespace-secret-refs=true
{{- end }}
{{- with $v.exporters.ambientCredentialsNamespaces }}
- --ambient-credentials-namespaces={{ join "," . }}
{{- end }}
{{- with $v.exporters.ambientCredentialsHosts }}
- --ambient-credentials-hosts={{ join "," . }}
{{- end }}
{{- if eq .svc.family "snapshot" }}
- --git-cache-dir=/var/cache/kollect/git
{{- end }}
{{- end }}
{{- include "kollect.processArgs" . }}
{{- end -}}

{{/*
kollect.processArgs: the process flags every service binary shares (pkg/app.Process): the
pprof listener on loopback when pprof.enabled, the log level and format (pkg/app.LogOptions:
-v, --log-development) and the share of the container's memory limit
the Go runtime gets when the container has one (the limit itself is $KOLLECT_MEMORY_LIMIT,
set in deployments.yaml).
*/}}
{{- define "kollect.processArgs" }}
{{- $v := .root.Values }}
{{- if $v.pprof.enabled }}
- --pprof-bind-address=127.0.0.1:{{ $v.pprof.port }}
{{- end }}
{{- $sv := include "kollect.serviceValues" . | fromYaml }}
{{- if eq ($sv.logLevel | default $v.logLevel) "debug" }}
- --v=1
{{- end }}
{{- if eq $v.logFormat "console" }}
- --log-development=true
{{- end }}
{{- if dig "limits" "memory" "" $sv.resources }}
- --memory-limit-ratio={{ divf $v.memoryLimitPercent 100 }}
{{- end }}
{{- end -}}

{{/*
kollect.extractArgs: the Profile compilation flags control and the collector must share, from
one block of the values (.extraction).
*/}}
{{- define "kollect.extractArgs" }}
{{- with .extraction.redactKeys }}
- --redact-keys={{ join "," . }}
{{- end }}
{{- if .extraction.celCostLimit }}
- --cel-cost-limit={{ int64 .extraction.celCostLimit }}
{{- end }}
{{- end -}}

{{/*
kollect.egressArgs: the sink egress flags of control and the exporters, from the values (.).
*/}}
{{- define "kollect.egressArgs" }}
- --allow-in-cluster-sinks={{ .allowInClusterSinks }}
- --allow-link-local-sinks={{ .allowLinkLocalSinks }}
{{- with .denySinkCIDRs }}
- --deny-sink-cidrs={{ join "," . }}
{{- end }}
{{- end -}}

{{/*
kollect.metricsArgs: plain HTTP metrics only as the explicit opt-out metrics.secure=false (the
binaries serve HTTPS with Kubernetes authentication and authorization by default).
*/}}
{{- define "kollect.metricsArgs" -}}
{{- if not .metrics.secure }}
- --metrics-secure=false
{{- end }}
{{- end -}}
