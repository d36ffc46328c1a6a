#!/usr/bin/env bash
# Times the manifest scan of `sylva-planner drain-check --inventory DIR` on
# generated manifests: 10,000 objects of 16 kinds (current and removed API
# versions, PodDisruptionBudgets, workloads, pods…) in 50 namespaces, once
# as 10,000 files and once as one multi-document file, with /usr/bin/time -v
# (wall clock, CPU, peak RSS). Target: at most 1.2 s of CPU and under 100 MB,
# and at most 0.8x the wall time and peak RSS of PEER on both layouts. The
# first line times `sylva-planner version`: the start-up floor of the binary
# (mapping it and the init of its packages) that every command pays.
#
# Usage: hack/bench-scan.sh
# Environment:
#   OBJECTS   number of objects (default 10000)
#   BIN       the sylva-planner binary to time (default: built into the temp dir)
#   PEER      another scanner to time on the same files, {dir} replaced by
#             each input directory, e.g. PEER='pluto detect-files -d {dir}'
#   PEER_FLOOR  the peer's own start-up command, e.g. 'pluto version'
#   KEEP=1    keep the generated files
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
objects=${OBJECTS:-10000}
tmp=$(mktemp -d)
if [[ ${KEEP:-} != 1 ]]; then
	trap 'rm -rf "$tmp"' EXIT
fi
log() { printf 'bench-scan: %s\n' "$*" >&2; }

bin=${BIN:-}
if [[ -z $bin ]]; then
	bin=$tmp/sylva-planner
	(cd "$root" && go build -o "$bin" ./cmd/sylva-planner)
fi

# generate N: writes the objects as one stream of YAML documents, each
# preceded by a "### FILE" line naming the file it goes to in the split
# layout.
generate() {
	awk -v n="$1" 'BEGIN {
		kinds = 16
		for (i = 0; i < n; i++) {
			k = i % kinds; ns = sprintf("team-%02d", i % 50); if (i % 100 < 25) ns = ns "-prod"
			name = sprintf("obj-%05d", i)
			printf "### %s/%s-%s.yaml\n", ns, name, k
			if (k == 0 || k == 1) {
				printf "apiVersion: %s\nkind: Deployment\n", (k == 0 ? "apps/v1" : "extensions/v1beta1")
				workload(ns, name, i % 3 + 1)
			} else if (k == 2) {
				printf "apiVersion: apps/v1\nkind: StatefulSet\n"; workload(ns, name, 2)
			} else if (k == 3) {
				printf "apiVersion: apps/v1\nkind: DaemonSet\n"; workload(ns, name, 0)
			} else if (k == 4 || k == 5) {
				printf "apiVersion: %s\nkind: PodDisruptionBudget\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n", (k == 4 ? "policy/v1" : "policy/v1beta1"), name, ns
				if (i % 3 == 0) printf "  minAvailable: 1\n"; else printf "  maxUnavailable: 1\n"
				printf "  selector:\n    matchLabels:\n      app: obj-%05d\n", i - 4
			} else if (k == 6 || k == 7) {
				printf "apiVersion: %s\nkind: CronJob\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  schedule: \"*/5 * * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers:\n          - name: job\n            image: registry.example/job:1.2.%d\n", (k == 6 ? "batch/v1" : "batch/v1beta1"), name, ns, i % 10
			} else if (k == 8 || k == 9) {
				printf "apiVersion: %s\nkind: Ingress\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  rules:\n  - host: %s.example\n", (k == 8 ? "networking.k8s.io/v1" : "extensions/v1beta1"), name, ns, name
			} else if (k == 10 || k == 11) {
				printf "apiVersion: %s\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  minReplicas: 2\n  maxReplicas: 5\n  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: Deployment\n    name: obj-%05d\n", (k == 10 ? "autoscaling/v2" : "autoscaling/v2beta2"), name, ns, i - 10
			} else if (k == 12) {
				printf "apiVersion: v1\nkind: Service\nmetadata:\n  name: %s\n  namespace: %s\nspec:\n  selector:\n    app: %s\n  ports:\n  - port: 80\n    targetPort: 8080\n", name, ns, name
			} else if (k == 13) {
				printf "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\n  namespace: %s\ndata:\n  config.yaml: |\n    level: info\n    replicas: 2\n", name, ns
			} else if (k == 14) {
				printf "apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: %s\n  labels:\n    app: obj-%05d\nspec:\n  nodeName: node-%d\n  containers:\n  - name: app\n    image: registry.example/app:2.%d.0\n", name, ns, i - 14, i % 20, i % 7
			} else {
				printf "apiVersion: flowcontrol.apiserver.k8s.io/v1beta2\nkind: FlowSchema\nmetadata:\n  name: %s\nspec:\n  matchingPrecedence: 1000\n  priorityLevelConfiguration:\n    name: workload-low\n", name
			}
		}
	}
	function workload(ns, name, replicas) {
		printf "metadata:\n  name: %s\n  namespace: %s\n  labels:\n    app: %s\nspec:\n", name, ns, name
		if (replicas > 0) printf "  replicas: %d\n", replicas
		printf "  selector:\n    matchLabels:\n      app: %s\n  template:\n    metadata:\n      labels:\n        app: %s\n    spec:\n", name, name
		printf "      terminationGracePeriodSeconds: 30\n      containers:\n      - name: app\n        image: registry.example/app:1.%d.0\n", i % 9
		if (i % 2 == 0) printf "        lifecycle:\n          preStop:\n            sleep:\n              seconds: 10\n"
		printf "        ports:\n        - containerPort: 8080\n"
	}'
}

log "generating $objects objects in $tmp"
mkdir -p "$tmp/files" "$tmp/single"
generate "$objects" >"$tmp/stream"
# One multi-document file.
awk '/^### / { if (n++) print "---"; next } { print }' "$tmp/stream" >"$tmp/single/all.yaml"
# One file per object.
awk -v dir="$tmp/files" '/^### / { if (out) close(out); out = dir "/" substr($0, 5); sub(/\/[^\/]*$/, "", $0); d = dir "/" substr($0, 5); if (!(d in made)) { system("mkdir -p \"" d "\""); made[d] = 1 }; next } { print > out }' "$tmp/stream"
log "$(find "$tmp/files" -type f | wc -l) files, $(du -sh "$tmp/single/all.yaml" | cut -f1) in one file"
# Wall times mean little on a busy machine: say how busy it is.
log "load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) on $(nproc) CPUs"

# measure LABEL CMD...: runs CMD under /usr/bin/time -v and prints one line.
measure() {
	local label=$1 out=$tmp/time.txt
	shift
	local rc=0
	/usr/bin/time -v "$@" >/dev/null 2>"$out" || rc=$?
	awk -v label="$label" -v rc="$rc" -F': ' '
		/Elapsed \(wall clock\)/ { wall = $2 }
		/User time/ { user = $2 }
		/System time/ { sys = $2 }
		/Maximum resident set size/ { rss = $2 }
		END { printf "%-34s wall %8s  cpu %6.2fs (user %s, sys %s)  peak RSS %6.1f MB  exit %s\n", label, wall, user + sys, user, sys, rss / 1024, rc }' "$out"
}

measure "sylva-planner (version, floor)" "$bin" version
if [[ -n ${PEER_FLOOR:-} ]]; then
	# shellcheck disable=SC2086 # PEER_FLOOR is a command line to split
	measure "peer (floor)" ${PEER_FLOOR}
fi
for layout in files single; do
	measure "sylva-planner ($layout)" "$bin" drain-check --inventory "$tmp/$layout" --kubernetes 1.33 -o json
	if [[ -n ${PEER:-} ]]; then
		# shellcheck disable=SC2086 # PEER is a command line to split
		measure "peer ($layout)" ${PEER//\{dir\}/$tmp/$layout}
	fi
done
