{{/* chute.name is the operator's Deployment, ServiceAccount and RBAC name. */}}
{{- define "chute.name" -}}
{{- default "chute-operator" .Values.fullnameOverride | trunc 52 | trimSuffix "-" -}}
{{- end -}}

{{- define "chute.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "chute.name" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "chute.labels" -}}
app.kubernetes.io/name: chute-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "chute.selectorLabels" -}}
app.kubernetes.io/name: chute-operator
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
