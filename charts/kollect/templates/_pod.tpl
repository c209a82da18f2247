{{/* Pod-level escape hatches shared by the Deployments and the NATS StatefulSet. */}}

{{/*
kollect.podLabels: the labels of a pod template; call with (dict "ctx" $ctx "own" <the
service's podLabels>). The chart's labels win over the service's podLabels, which win over
the chart-wide podLabels.
*/}}
{{- define "kollect.podLabels" -}}
{{- $std := include "kollect.labels" .ctx -}}
{{- $stdKeys := $std | fromYaml -}}
{{- $extra := dict -}}
{{- range $k, $v := merge (dict) (.own | default dict) .ctx.root.Values.podLabels -}}
{{- if not (hasKey $stdKeys $k) }}{{ $_ := set $extra $k $v }}{{ end -}}
{{- end -}}
{{ $std }}
{{- with $extra }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
kollect.extraEnv: the chart-wide extraEnv then the service's own; call with (dict "global"
<list> "own" <list>). A service's variable replaces a chart-wide one of the same name, so that
no name is listed twice (server-side apply refuses that).
*/}}
{{- define "kollect.extraEnv" -}}
{{- $own := .own | default list -}}
{{- $names := list -}}
{{- range $own }}{{ $names = append $names .name }}{{ end -}}
{{- $env := list -}}
{{- range .global }}{{ if not (has .name $names) }}{{ $env = append $env . }}{{ end }}{{ end -}}
{{- with concat $env $own }}{{ toYaml . }}{{ end -}}
{{- end -}}

{{/*
kollect.topologySpread: topologySpreadConstraints of a pod; call with (dict "ctx" $ctx "own"
<list> "global" <list>). The service's list replaces the chart-wide one; a constraint without
labelSelector spreads the service's own pods.
*/}}
{{- define "kollect.topologySpread" -}}
{{- with .own | default .global -}}
topologySpreadConstraints:
{{- range $c := . }}
{{- $c = merge (dict) $c }}
{{- if not $c.labelSelector }}
{{- $_ := set $c "labelSelector" (dict "matchLabels" (include "kollect.selectorLabels" $.ctx | fromYaml)) }}
{{- end }}
  - {{ toYaml $c | nindent 4 | trim }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
kollect.scheduling: nodeSelector, tolerations and affinity of a pod; call with (dict "root" $
"sv" <the component's values> "ctx" <labels context, for the default anti-affinity; omit for
none>). Each of the component's own values wins over the chart-wide one (nodeSelector,
tolerations, affinity); without either affinity, a service's replicas prefer different nodes.
*/}}
{{- define "kollect.scheduling" -}}
{{- $v := .root.Values -}}
{{- with .sv.nodeSelector | default $v.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .sv.tolerations | default $v.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .sv.affinity | default $v.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- else }}
{{- with .ctx }}
affinity:
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "kollect.selectorLabels" . | nindent 14 }}
{{- end }}
{{- end }}
{{- end -}}
