{{- define "keep-type" -}}{{ dict "kept" . | toJson }}{{- end -}}

{{- define "interpret" -}}
{{- $root := index . 0 -}}{{- $v := index . 1 -}}
{{- if kindIs "map" $v -}}
{{- $out := dict -}}
{{- range $k, $x := $v -}}{{- $_ := set $out $k (index (tuple $root $x | include "interpret" | fromJson) "r") -}}{{- end -}}
{{- dict "r" $out | toJson -}}
{{- else if and (kindIs "string" $v) (contains "{{" $v) -}}
{{- $s := tpl $v $root -}}
{{- if hasPrefix "{\"kept\":" $s -}}{{- dict "r" (index (fromJson $s) "kept") | toJson -}}{{- else -}}{{- dict "r" $s | toJson -}}{{- end -}}
{{- else -}}
{{- dict "r" $v | toJson -}}
{{- end -}}
{{- end -}}

{{- define "interpret-values" -}}
{{- if not .Values._interpreted -}}
{{- $_ := set . "Values" (index (tuple . .Values | include "interpret" | fromJson) "r") -}}
{{- $_ := set .Values "_interpreted" true -}}
{{- end -}}
{{- .Values | toJson -}}
{{- end -}}

{{- define "unit-enabled" -}}
{{- $root := index . 0 -}}{{- $name := index . 1 -}}
{{- $u := index $root.Values.units $name -}}
{{- if not $u -}}{{- fail (printf "no unit %s" $name) -}}{{- end -}}
{{- if eq (toString $u.enabled) "true" -}}true{{- end -}}
{{- end -}}

{{- define "unit-def" -}}
{{- $root := index . 0 -}}{{- $name := index . 1 -}}
{{- $_ := set $root.Values "_unit_name_" $name -}}
{{- $_ := set $root.Values "_kustomization_name_" $name -}}
{{- $_ := set $root.Values "_unit_name_" "N/A" -}}
{{- index $root.Values.units $name | toJson -}}
{{- end -}}

{{- define "kustomization-name" -}}
{{- $def := include "unit-def" . | fromJson -}}
{{- index . 1 -}}
{{- end -}}

{{- define "interpret-for-test" -}}
{{- if eq (toString (index . 1)) "true" -}}true{{- end -}}
{{- end -}}
