# sylva-planner — plan and drive Sylva release transitions.
SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DELETE_ON_ERROR:
.DEFAULT_GOAL := help

VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo "")
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)
GOLANGCI_LINT_VERSION ?= v2.15.0
# Packages whose tests take the -update flag (they import internal/golden or
# define it themselves).
GOLDEN_PKGS = $(shell grep -rl --include='*_test.go' -e 'internal/golden"' -e 'updateScripts' . | xargs -r -n1 dirname | sort -u)

.PHONY: help
help: ## show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  %-14s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: build
build: ## build bin/sylva-planner (offline commands, starts fast) and bin/sylva-planner-cluster (cluster and Helm commands)
	go build -trimpath -tags lite -ldflags "$(LDFLAGS)" -o bin/sylva-planner ./cmd/sylva-planner
	go build -trimpath -ldflags "$(LDFLAGS)" -o bin/sylva-planner-cluster ./cmd/sylva-planner

.PHONY: run
run: build ## build, then plan Sylva 1.4 → 1.6 on the embedded catalog
	./bin/sylva-planner plan --from 1.4 --to 1.6

.PHONY: testbin
testbin: ## build the real kube-apiserver, etcd and Flux CRDs the cluster tests use (.cache/testbin; slow the first time)
	bash hack/build-testbin.sh

.PHONY: testbin-flux
testbin-flux: ## build the real helm-controller and source-controller for the end-to-end test (.cache/testbin; slow the first time)
	bash hack/build-flux.sh

.PHONY: test
test: testbin testbin-flux ## run every test (go test ./...), with the real API server and Flux controllers built first
	SYLVA_PLANNER_E2E=1 go test ./...

.PHONY: test-short
test-short: ## run the tests that need no API server binaries
	go test -short ./...

.PHONY: bench
bench: ## run the benchmarks
	go test -run '^$$' -bench . -benchmem ./...

.PHONY: bench-scan
bench-scan: ## time the manifest scan on 10,000 generated objects (PEER='cmd … {dir}' times another scanner too)
	bash hack/bench-scan.sh

.PHONY: bench-values-render
bench-values-render: ## time values render against helm template on 200 units and 2,000 templates
	bash hack/bench-values-render.sh

.PHONY: bench-chart
bench-chart: ## time values render --chart against helm template on sylva-core main's upgrade-mgmt-cabpr (helm built into .cache)
	bash hack/bench-chart.sh

.PHONY: golden
golden: ## rewrite golden files (review the diff!)
	go test $(GOLDEN_PKGS) -update

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
