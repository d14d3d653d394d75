{{- define "floe.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "floe.labels" -}}
app.kubernetes.io/name: floe-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "floe.selector" -}}
app.kubernetes.io/name: floe-operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "floe.serviceAccount" -}}
{{- default (include "floe.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* What the operator may do with the resources of the namespaces it watches: least privilege. */}}
{{- define "floe.rules" -}}
- apiGroups: ["floe.dev"]
  resources: ["cdcsinks"]
  verbs: ["get", "list", "watch", "patch", "update"]
- apiGroups: ["floe.dev"]
  resources: ["cdcsinks/status"]
  verbs: ["get", "patch", "update"]
- apiGroups: [""]
  resources: ["configmaps", "services"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["apps"]
  resources: ["deployments"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
- apiGroups: ["batch"]
  resources: ["cronjobs"]
  verbs: ["get", "list", "watch", "create", "update", "patch", "delete"]
# the last compaction's result: its Job and its pod's termination message
- apiGroups: ["batch"]
  resources: ["jobs"]
  verbs: ["get", "list"]
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list"]
{{- if .Values.rbac.readSecrets }}
# Kafka credentials for reading the lag (source.kafkaSecretRef)
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get"]
{{- end }}
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "patch"]
{{- end -}}
