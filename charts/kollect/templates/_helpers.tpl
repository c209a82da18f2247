{{/* Names, labels, images and the bus address shared by every template. */}}

{{/* kollect.chartName: the chart's name, or nameOverride (app.kubernetes.io/name). */}}
{{- define "kollect.chartName" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 40 | trimSuffix "-" -}}
{{- end -}}

{{/*
kollect.fullname: the prefix of every object's name: fullnameOverride, else the release name
when it contains the chart's name (nameOverride), else <release>-<name>.
*/}}
{{- define "kollect.fullname" -}}
{{- $name := include "kollect.chartName" . -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* kollect.labels: common labels; call with (dict "root" $ "component" "control"). */}}
{{- define "kollect.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: kollect
{{ include "kollect.selectorLabels" . }}
{{- with .root.Values.cluster }}
kollect.dev/cluster: {{ . | quote }}
{{- end }}
{{- with .root.Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{- define "kollect.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kollect.chartName" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* kollect.name: <fullname>-<component>. */}}
{{- define "kollect.name" -}}
{{- printf "%s-%s" (include "kollect.fullname" .root) .component -}}
{{- end -}}

{{/*
kollect.serviceAccount: the ServiceAccount of a component; call with (dict "root" $ "component"
<name>). <service>.serviceAccount.create (default true) makes <fullname>-<component>, or name;
create false uses name, an existing ServiceAccount (default: the namespace's "default").
*/}}
{{- define "kollect.serviceAccount" -}}
{{- $svc := get (include "kollect.services" .root | fromYaml) .component -}}
{{- $sa := dict -}}
{{- if $svc }}{{ $sa = dig "serviceAccount" dict (include "kollect.serviceValues" (dict "root" .root "svc" $svc) | fromYaml) }}{{ end -}}
{{- if dig "create" true $sa -}}
{{- default (include "kollect.name" .) (get $sa "name") -}}
{{- else -}}
{{- default "default" (get $sa "name") -}}
{{- end -}}
{{- end -}}

{{/* kollect.imageTag: image.tag, else v<appVersion> (the tag releases and make images push). */}}
{{- define "kollect.imageTag" -}}
{{- .Values.image.tag | default (printf "v%s" (trimPrefix "v" .Chart.AppVersion)) -}}
{{- end -}}

{{/* kollect.image: the image of binary .binary. */}}
{{- define "kollect.image" -}}
{{- $img := .root.Values.image -}}
{{- $digest := get $img.digests .binary -}}
{{- if get $img.overrides .binary -}}
{{- get $img.overrides .binary -}}
{{- else if $digest -}}
{{- printf "%s/%s@%s" $img.registry .binary $digest -}}
{{- else -}}
{{- printf "%s/%s:%s" $img.registry .binary (include "kollect.imageTag" .root) -}}
{{- end -}}
{{- end -}}

{{- define "kollect.natsImage" -}}
{{- $img := .Values.nats.image -}}
{{- if $img.digest -}}
{{- printf "%s@%s" $img.repository $img.digest -}}
{{- else -}}
{{- printf "%s:%s" $img.repository $img.tag -}}
{{- end -}}
{{- end -}}

{{/*
kollect.services: the services the chart deploys, as YAML: component name, bus service name
(the NATS user), binary, the values block and whether it serves metrics and probes.
*/}}
{{- define "kollect.services" -}}
{{- $v := .Values -}}
control: {service: control, binary: control, values: control, family: "", metrics: true}
collector: {service: collector, binary: collector, values: collector, family: "", metrics: true}
aggregator: {service: aggregator, binary: aggregator, values: aggregator, family: "", metrics: true}
{{- if $v.query.enabled }}
query: {service: query, binary: query, values: query, family: "", metrics: true}
{{- end }}
{{- range $family := list "snapshot" "database" "event" }}
{{- if (get $v.exporters $family).enabled }}
{{ $family }}-exporter: {service: {{ $family }}-exporter, binary: {{ $family }}exporter, family: {{ $family }}, metrics: true}
{{- end }}
{{- end }}
{{- end -}}

{{/* kollect.serviceValues: the values block of service .name (from kollect.services). */}}
{{- define "kollect.serviceValues" -}}
{{- $s := .svc -}}
{{- if ne $s.family "" -}}
{{- toYaml (get .root.Values.exporters $s.family) -}}
{{- else -}}
{{- toYaml (get .root.Values $s.values) -}}
{{- end -}}
{{- end -}}

{{/* kollect.natsHost: the in-cluster NATS client Service. */}}
{{- define "kollect.natsHost" -}}
{{- printf "%s-nats.%s.svc" (include "kollect.fullname" .) .Release.Namespace -}}
{{- end -}}

{{/*
kollect.natsURL: the bus URL services connect to. It never holds a password: with auth the
user and password reach the services as $KOLLECT_NATS_USER and $KOLLECT_NATS_PASSWORD
(deployments.yaml), never in their arguments.
*/}}
{{- define "kollect.natsURL" -}}
{{- if .Values.nats.enabled -}}
{{- printf "nats://%s:4222" (include "kollect.natsHost" .) -}}
{{- else -}}
{{- required "nats.external.url is required when nats.enabled is false" .Values.nats.external.url -}}
{{- end -}}
{{- end -}}

{{- define "kollect.natsSecret" -}}
{{- if .Values.nats.auth.existingSecret -}}
{{- .Values.nats.auth.existingSecret -}}
{{- else if .Values.nats.enabled -}}
{{- printf "%s-nats-users" (include "kollect.fullname" .) -}}
{{- else -}}
{{- fail "nats.auth.existingSecret is required for an external NATS with auth.enabled" -}}
{{- end -}}
{{- end -}}

{{/* kollect.webhookService: the Service in front of control's webhook. */}}
{{- define "kollect.webhookService" -}}
{{- printf "%s-control-webhook" (include "kollect.fullname" .) -}}
{{- end -}}

{{/* kollect.queryService: the Service the APIService of query.kollect.dev points at. */}}
{{- define "kollect.queryService" -}}
{{- printf "%s-query" (include "kollect.fullname" .) -}}
{{- end -}}

{{/* kollect.natsUsers: every service's NATS user, exporters enabled or not (the Secret keeps them all); query only with query.enabled. */}}
{{- define "kollect.natsUsers" -}}
{{- $users := list "control" "collector" "aggregator" "snapshot-exporter" "database-exporter" "event-exporter" -}}
{{- /* query only when installed: an existing users Secret without its key would stop NATS */ -}}
{{- if .Values.query.enabled }}{{ $users = append $users "query" }}{{ end -}}
{{- toJson $users -}}
{{- end -}}

{{/* kollect.natsList: a list of strings in nats-server configuration syntax. */}}
{{- define "kollect.natsList" -}}
[{{ range $i, $s := . }}{{ if $i }}, {{ end }}{{ $s | quote }}{{ end }}]
{{- end -}}
