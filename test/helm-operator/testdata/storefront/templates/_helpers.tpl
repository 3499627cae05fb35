{{- define "storefront.fullname" -}}
{{- printf "%s-storefront" .Release.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
