{{/*
cfzt.name is the operator's name: the manager Deployment, its
ServiceAccount and RBAC objects. The manager finds its own Deployment through
OPERATOR_DEPLOYMENT.
*/}}
{{- define "cfzt.name" -}}
{{- default "cloudflare-zero-trust-operator" .Values.fullnameOverride | trunc 47 | trimSuffix "-" -}}
{{- end -}}

{{- define "cfzt.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "cfzt.name" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "cfzt.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* cfzt.labels are the labels of every object of the release. */}}
{{- define "cfzt.labels" -}}
app.kubernetes.io/name: cfzt-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* cfzt.selectorLabels select the manager's pods. */}}
{{- define "cfzt.selectorLabels" -}}
app.kubernetes.io/name: cfzt-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: manager
{{- end -}}

{{/*
cfzt.rules renders the rules of an RBAC file of files/rbac (a copy of
deploy/rbac) as a YAML list, with the default manager Deployment name in
resourceNames replaced by this release's.
*/}}
{{- define "cfzt.rules" -}}
{{- $doc := .root.Files.Get .file | fromYaml -}}
{{- if not $doc.rules -}}
{{- fail (printf "%s has no rules" .file) -}}
{{- end -}}
{{- $name := include "cfzt.name" .root -}}
{{- $rules := list -}}
{{- range $doc.rules -}}
{{- $rule := deepCopy . -}}
{{- if hasKey $rule "resourceNames" -}}
{{- $names := list -}}
{{- range $rule.resourceNames -}}
{{- $names = append $names (ternary $name . (eq . "cloudflare-zero-trust-operator")) -}}
{{- end -}}
{{- $_ := set $rule "resourceNames" $names -}}
{{- end -}}
{{- $rules = append $rules $rule -}}
{{- end -}}
{{- toYaml $rules -}}
{{- end -}}
