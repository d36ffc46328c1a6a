# sylva-planner — plan and drive Sylva release transitions.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DELETE_ON_ERROR:
.DEFAULT_GOAL := help

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo "")
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
GOLANGCI_LINT_VERSION ?= v2.15.0
IMAGE ?= registry.gitlab.com/sylva-projects/sylva-planner
IMAGE_TAG ?= $(subst +,-,$(VERSION))
IMAGE_ARCH ?= amd64
# Packages whose tests take the -update flag (they import internal/golden or
# define it themselves).
GOLDEN_PKGS = $(shell grep -rl --include='*_test.go' -e 'internal/golden"' -e 'updateScripts' . | xargs -r -n1 dirname | sort -u)

.PHONY: help
help: ## show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## build bin/sylva-planner, the one binary with every command
	go build -trimpath -ldflags "$(LDFLAGS)" -o bin/sylva-planner ./cmd/sylva-planner

.PHONY: run
run: build ## build, then plan Sylva 1.4 → 1.6 on the embedded catalog
	./bin/sylva-planner plan --from 1.4 --to 1.6

.PHONY: image
image: ## build the OCI image offline into bin/sylva-planner-image.tar (static binary, user 65532, no shell; the same binary gives the same digest, printed and written to bin/sylva-planner-image.digest)
	CGO_ENABLED=0 GOOS=linux GOARCH=$(IMAGE_ARCH) go build -trimpath -buildvcs=false -ldflags "$(LDFLAGS) -s -w -buildid=" -o bin/linux_$(IMAGE_ARCH)/sylva-planner ./cmd/sylva-planner
	cd hack/image && GOWORK=off go run . -binary ../../bin/linux_$(IMAGE_ARCH)/sylva-planner -arch $(IMAGE_ARCH) -version $(VERSION) -ref $(IMAGE):$(IMAGE_TAG) -out ../../bin/sylva-planner-image.tar >../../bin/sylva-planner-image.digest
	@echo "$(IMAGE):$(IMAGE_TAG)@$$(cat bin/sylva-planner-image.digest) in bin/sylva-planner-image.tar (docker load -i, or crane push)"

.PHONY: pin-image
pin-image: ## at release, after make image: pin config/default to IMAGE:IMAGE_TAG@digest (kustomize from make tools)
	cd config/default && ../../.cache/testbin/kustomize edit set image sylva-planner=$(IMAGE):$(IMAGE_TAG)@$$(cat ../../bin/sylva-planner-image.digest)

.PHONY: man
man: build ## write the man pages of sylva-planner and of each command into bin/man (man -l bin/man/sylva-planner-plan.1)
	./bin/sylva-planner man bin/man

.PHONY: krew
krew: ## build the kubectl plugin archives and the krew manifest (hack/krew/sylva-planner.yaml filled in) into bin/dist
	bash hack/krew.sh $(VERSION) "$(LDFLAGS)"

.PHONY: testbin
testbin: ## build the real kube-apiserver, etcd and Flux CRDs the cluster tests use (.cache/testbin; slow the first time)
	bash hack/build-testbin.sh

.PHONY: testbin-flux
testbin-flux: ## build the real helm-controller (and source-controller, which the end-to-end test otherwise plays) into .cache/testbin
	bash hack/build-flux.sh

.PHONY: tools
tools: ## build kustomize and promtool for the manifest tests (.cache/testbin)
	bash hack/build-tools.sh

.PHONY: fuzz
fuzz: ## fuzz values render against a reference evaluation by path for a bounded time (FUZZTIME, default 30s)
	go test ./values/helmengine -run '^$$' -fuzz '^FuzzRender$$' -fuzztime $(or $(FUZZTIME),30s)

# The packages whose tests start a real API server (their TestMain runs
# kubetest.Main); every other package is tested before the API server and
# helm-controller builds.
CLUSTER_PKGS = $(shell go list $(sort $(dir $(shell grep -rlw --include='*_test.go' 'kubetest.Main' .))))

# Every benchmark runs once with the tests (BENCH_ONCE), so that none the
# docs quote breaks unseen; make bench measures.
BENCH_ONCE = -bench . -benchtime 1x

.PHONY: test
test: tools ## run every test, and every benchmark once: the packages that need no API server (the report's browser test in Debian's chromium, installed when missing), then (after building kube-apiserver, etcd and helm-controller) the cluster ones, with ci-matrix's pipelines parsed by gitlab-ci-local (installed from npm into .cache, with Debian's Node.js when missing)
	bash hack/install-chromium.sh
	bash hack/install-gitlab-ci-local.sh
	SYLVA_PLANNER_BROWSER=1 go test -timeout 30m $(BENCH_ONCE) $(filter-out $(CLUSTER_PKGS),$(shell go list ./...))
	cd hack/image && GOWORK=off go test ./...
	bash hack/build-testbin.sh
	bash hack/build-flux.sh helm-controller
	SYLVA_PLANNER_E2E=1 SYLVA_PLANNER_GITLAB_CI_LOCAL=1 go test -timeout 40m $(BENCH_ONCE) $(CLUSTER_PKGS)

.PHONY: test-short
test-short: ## run the tests that need no API server binaries
	go test -short ./...

.PHONY: bench
bench: ## run the benchmarks
	go test -run '^$$' -bench . -benchmem ./...

.PHONY: bench-plan
bench-plan: ## time the `plan --from 1.4 --to 1.6` process (target: < 50 ms, < 50 MB peak RSS)
	bash hack/bench-plan.sh

.PHONY: bench-scan
bench-scan: ## time the manifest scan on 10,000 generated objects (PEER='cmd … {dir}' times another scanner too)
	bash hack/bench-scan.sh

.PHONY: bench-values-render
bench-values-render: ## time values render against helm template on 200 units and 2,000 templates
	bash hack/bench-values-render.sh

.PHONY: bench-chart
bench-chart: ## time values render --chart (upgrade-mgmt-cabpr), the three-pass values check --chart and prune-audit --chart against helm template on sylva-core main (helm built into .cache)
	bash hack/bench-chart.sh

.PHONY: bench-prune-audit-chart
bench-prune-audit-chart: ## time prune-audit --chart on sylva-core main's chart with the management values (CPU and peak RSS)
	bash hack/bench-prune-audit-chart.sh

.PHONY: golden
golden: ## rewrite golden files (review the diff!)
	go test $(GOLDEN_PKGS) -update

.PHONY: catalog
catalog: ## re-import releases 1.0, 1.2, 1.3 and 1.4 of the embedded catalog from sylva-core (SYLVA_CORE_DIR, else the bundle)
	bash hack/catalog-import.sh

.PHONY: verify-catalog
verify-catalog: ## check that the imported blocks of the embedded catalog are what sylva-core says (regenerates into a temp dir and diffs)
	bash hack/catalog-import.sh --verify

.PHONY: fmt
fmt: ## format the code
	gofmt -w $$(git ls-files '*.go')

.PHONY: lint
lint: ## run gofmt, go vet and golangci-lint (pinned)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	go vet ./...
	go run github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION) run ./...

.PHONY: cover
cover: ## test with coverage into cover.html
	go test -coverprofile=cover.out ./...
	go tool cover -html=cover.out -o cover.html

.PHONY: clean
clean: ## remove build outputs (keeps .cache/testbin)
	rm -rf bin cover.out cover.html
