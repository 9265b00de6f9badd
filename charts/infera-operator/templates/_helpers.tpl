{{/* Name of the chart, overridable with nameOverride. */}}
{{- define "infera-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified name of the release's objects (63 characters at most). */}}
{{- define "infera-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "infera-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "infera-operator.labels" -}}
helm.sh/chart: {{ include "infera-operator.chart" . }}
{{ include "infera-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: operator
app.kubernetes.io/part-of: infera
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels selecting the operator's pods. */}}
{{- define "infera-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "infera-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "infera-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "infera-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* registry/repository:tag, or @digest when one is set. */}}
{{- define "infera-operator.image" -}}
{{- $repo := .Values.image.repository }}
{{- if .Values.image.registry }}
{{- $repo = printf "%s/%s" (trimSuffix "/" .Values.image.registry) .Values.image.repository }}
{{- end }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repo .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repo (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* "true" when leader election is on: forced, or more than one replica. */}}
{{- define "infera-operator.leaderElection" -}}
{{- if or .Values.leaderElection.enabled (gt (int .Values.replicas) 1) }}true{{ end }}
{{- end }}

{{- define "infera-operator.leaseName" -}}
{{- default (printf "%s-lock" (include "infera-operator.fullname" .)) .Values.leaderElection.leaseName }}
{{- end }}
