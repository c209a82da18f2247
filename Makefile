# Kollect developer targets. `make help` lists them.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

GO        ?= go
# Every build, test and analyzer runs on this Go, fetched from the module proxy on first use (the
# machine's own Go starts it). It carries the standard library fixes govulncheck asks for.
export GOTOOLCHAIN := go1.27.3
TOOLS_DIR := $(shell bash deploy/tools/build.sh dir)
export KOLLECT_TOOLS_DIR := $(TOOLS_DIR)
TEST_FLAGS ?= -count=1 -timeout 45m
PKGS      ?= ./...
# Every package runs under the race detector except those of RACE_SKIP (at most five, each with
# its reason), which run without it:
#   services/aggregator/internal/index  the row index runs on the engine's one goroutine; under
#                                       -race its tests alone take minutes
#   charts/...                          helm rendering and chart files; no Kollect goroutines
#   deploy/...                          the demo, release, image and e2e builders drive go build,
#                                       helm and processes; their goroutines only wait on those
#   loadtest/...                        report and scenario code; the services it drives are
#                                       separate processes
RACE_SKIP ?= ./services/aggregator/internal/index ./charts/... ./deploy/... ./loadtest/...

.PHONY: help tools tools-bigquery tools-dir generate build lint test demo kustomize loadtest faults release publish images

help: ## List the targets.
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/:.*## /\t/' | expand -t 14

tools: ## Build the real test peers (kube-apiserver, etcd, kubectl, sink servers) and the analyzers of make lint into the per-user cache.
	@bash deploy/tools/build.sh

tools-bigquery: ## Opt-in: build the BigQuery emulator (cgo, clang, 25+ min, several GB RAM) for `go test -tags bigquery_emulator`.
	@bash deploy/tools/bigquery/build.sh

tools-dir: ## Print the folder holding the built tools.
	@echo $(TOOLS_DIR)

generate: ## Regenerate the snapshot sinks' CEL markers, deepcopy code, CRDs and generated docs.
	$(GO) generate ./api/v1alpha1
	$(GO) tool controller-gen object paths=./api/...
	$(GO) tool controller-gen crd paths=./api/v1alpha1/... output:crd:artifacts:config=api/crds
	$(GO) test ./pkg/bus -run TestDocs -update >/dev/null
	$(GO) test ./api/crds/reference -run TestReferenceIsCurrent -update >/dev/null
	$(GO) test ./charts/kollect -run '^(TestCRDsAreCopiesOfDeployCRDs|TestKustomizeBase)$$' -update >/dev/null

build: ## Compile every package and the service binaries into bin/.
	$(GO) build ./...
	@mkdir -p bin
	@for d in cmd/*/; do n=$$(basename $$d); echo "go build -o bin/$$n ./cmd/$$n"; $(GO) build -o bin/$$n ./cmd/$$n; done

LINT_DIR   = $(shell bash deploy/tools/build.sh lint-dir)
VULNDB_DIR = $(shell bash deploy/tools/build.sh vulndb-dir)

lint: ## No tracked binary or file over 5 MiB; gofmt, go mod tidy, go vet, golangci-lint (.golangci.yml) and govulncheck (offline database) must be clean.
	@bash deploy/tools/hygiene/check.sh
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod or go.sum is not tidy: run go mod tidy"; $(GO) mod tidy -diff; exit 1; }
	$(GO) vet $(PKGS)
	@bash deploy/tools/build.sh lint
	$(LINT_DIR)/golangci-lint run $(PKGS)
	$(LINT_DIR)/govulncheck -db file://$(VULNDB_DIR) $(PKGS)

test: tools ## Run every test against the real peers, under the race detector but for the packages of RACE_SKIP.
	@all=$$($(GO) list $(PKGS)); \
	skip=$$($(GO) list $(RACE_SKIP) | grep -xF -f <(echo "$$all") || true); \
	race=$$(echo "$$all" | grep -vxF -f <(echo "$$skip") || true); \
	rc=0; \
	if [ -n "$$race" ]; then echo "$(GO) test $(TEST_FLAGS) -race \$$(PKGS) but \$$(RACE_SKIP)"; \
	  $(GO) test $(TEST_FLAGS) -race $$race || rc=1; fi; \
	if [ -n "$$skip" ]; then echo "$(GO) test $(TEST_FLAGS) \$$(RACE_SKIP)"; \
	  $(GO) test $(TEST_FLAGS) $$skip || rc=1; fi; \
	exit $$rc

demo: ## Run Kollect end to end here: API server, NATS, PostgreSQL, Git and every service as a process; Ctrl-C stops it.
	@bash deploy/tools/build.sh demo
	$(GO) run ./deploy/demo/cmd

kustomize: tools ## Regenerate deploy/kustomize/base from charts/kollect (helm template, default values).
	$(GO) test ./charts/kollect -run '^TestKustomizeBase$$' -count=1 -update

TIER ?= 1k
MODE ?= system
LOADTEST_FLAGS ?=
loadtest: tools ## Load test: every service against N objects on a 3-node NATS cluster (TIER=1k|10k|100k|1m: 1m on the simulated API server, 3 collectors and 2 aggregators from 100k; MODE=system|collect|abuse: abuse floods the bus as one tenant and measures another's latency p99; LOADTEST_FLAGS=-source sim|-collectors N|-aggregators N|-nats-nodes N|...); report in loadtest/results/.
	$(GO) run ./loadtest/cmd/loadtest -tier $(TIER) -mode $(MODE) $(LOADTEST_FLAGS)

FAULT_FLAGS ?=
faults: tools ## Fault injection: crash points, kill -9 and peer faults while changes flow, 20 runs each at 10k objects (FAULT_FLAGS=-short|-runs N|-only NAME); report in loadtest/results/faults-<date>.md.
	$(GO) run ./loadtest/cmd/faults $(FAULT_FLAGS)

# CHART_TAG is the image tag the checked-out chart installs by default: v<appVersion> of
# charts/kollect/Chart.yaml (templates/_helpers.tpl, kollect.imageTag). make images and make
# release default to it, so that `helm install` of this checkout pulls what they build and push;
# TAG= (or VERSION=) overrides it, and then set image.tag to the same (docs/images.md).
CHART_TAG := v$(patsubst v%,%,$(shell sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\} *$$/\1/p' charts/kollect/Chart.yaml))
TAG ?= $(if $(VERSION),$(VERSION),$(CHART_TAG))
.PHONY: image-tag
image-tag: ## Print the tag make images and make release use (TAG=, VERSION=, else the chart's v<appVersion>).
	@echo $(TAG)
images: ## Build the container images without a daemon into dist/images (OCI layout), tagged $(TAG); PUSH=registry/prefix pushes them, COSIGN_KEY=file signs the pushed images (docs/images.md).
	$(GO) run ./deploy/images/cmd -version $(TAG) -out dist/images $(if $(PUSH),-push $(PUSH)) $(if $(COSIGN_KEY),-cosign-key $(COSIGN_KEY) -tools $(TOOLS_DIR)) $(IMAGES_FLAGS)

.PHONY: e2e-cluster
e2e-cluster: tools ## Opt-in, as root: a real single-node cluster (kubelet, containerd) runs the Helm install; report in loadtest/results/e2e-cluster.md (docs/e2e-cluster.md).
	@bash deploy/e2e/run.sh $(E2E_FLAGS)

release: tools ## Build a signed release into dist/: make release [VERSION=vX.Y.Z, default the chart's v<appVersion>] [RELEASE_FLAGS=...] (docs/release.md).
	$(GO) run ./deploy/release/cmd -version $(TAG) -out dist $(RELEASE_FLAGS)

publish: tools ## Push a built release (dist/) to a registry and sign its images: make publish REGISTRY=registry/prefix COSIGN_KEY=file (docs/release.md).
	@[ -n "$(REGISTRY)" ] && [ -n "$(COSIGN_KEY)" ] || { echo "usage: make publish REGISTRY=registry/prefix COSIGN_KEY=cosign.key"; exit 2; }
	$(GO) run ./deploy/release/cmd publish -dist dist -registry $(REGISTRY) -cosign-key $(COSIGN_KEY) -tools $(TOOLS_DIR) $(PUBLISH_FLAGS)
