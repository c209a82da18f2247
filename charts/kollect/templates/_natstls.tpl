{{/*
TLS between the services and NATS (nats.tls): the Secrets, the files every service mounts and
the flags naming them (pkg/app.BusTLS: --nats-tls-ca, --nats-tls-cert, --nats-tls-key).
*/}}

{{/* kollect.natsServerSecret: the kubernetes.io/tls Secret the rendered NATS serves. */}}
{{- define "kollect.natsServerSecret" -}}
{{- .Values.nats.tls.serverSecret | default (printf "%s-nats-server-tls" (include "kollect.fullname" .)) -}}
{{- end -}}

{{/* kollect.natsClientSecret: the Secret with the services' client certificate. */}}
{{- define "kollect.natsClientSecret" -}}
{{- .Values.nats.tls.clientSecret | default (printf "%s-nats-client-tls" (include "kollect.fullname" .)) -}}
{{- end -}}

{{/* kollect.natsCASecret: the Secret whose ca.crt services trust; empty: the system's roots. */}}
{{- define "kollect.natsCASecret" -}}
{{- $t := .Values.nats.tls -}}
{{- if $t.caSecret -}}
{{- $t.caSecret -}}
{{- else if .Values.nats.enabled -}}
{{- include "kollect.natsServerSecret" . -}}
{{- end -}}
{{- end -}}

{{- define "kollect.natsTLSArgs" -}}
{{- if .Values.nats.tls.enabled }}
{{- if include "kollect.natsCASecret" . }}
- --nats-tls-ca=/etc/kollect/nats-tls/ca/ca.crt
{{- end }}
{{- if .Values.nats.tls.clientCerts }}
- --nats-tls-cert=/etc/kollect/nats-tls/client/tls.crt
- --nats-tls-key=/etc/kollect/nats-tls/client/tls.key
{{- end }}
{{- end }}
{{- end -}}

{{- define "kollect.natsTLSMounts" -}}
{{- if .Values.nats.tls.enabled -}}
{{- if include "kollect.natsCASecret" . }}
- {name: nats-tls-ca, mountPath: /etc/kollect/nats-tls/ca, readOnly: true}
{{- end }}
{{- if .Values.nats.tls.clientCerts }}
- {name: nats-tls-client, mountPath: /etc/kollect/nats-tls/client, readOnly: true}
{{- end }}
{{- end -}}
{{- end -}}

{{/* The CA Secret is mounted with ca.crt only: a service never sees the server's key. */}}
{{- define "kollect.natsTLSVolumes" -}}
{{- if .Values.nats.tls.enabled -}}
{{- with include "kollect.natsCASecret" . }}
- name: nats-tls-ca
  secret:
    secretName: {{ . }}
    items: [{key: ca.crt, path: ca.crt}]
{{- end }}
{{- if .Values.nats.tls.clientCerts }}
- name: nats-tls-client
  secret:
    secretName: {{ include "kollect.natsClientSecret" . }}
    items: [{key: tls.crt, path: tls.crt}, {key: tls.key, path: tls.key}]
{{- end }}
{{- end -}}
{{- end -}}
