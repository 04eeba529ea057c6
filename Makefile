# cfzt-runner: run Ansible playbooks natively.
GO      ?= go
BIN     := bin/cfzt-runner
SHARED  ?= ../shared
ORACLE_DIR ?= $(HOME)/.cache/ansible-oracle

.PHONY: build test conformance lint demo bench oracle clean kube-apiserver kube-testbins

build:
	$(GO) build -o $(BIN) ./cmd/cfzt-runner

## test: the project's test suite (what CI runs).
## The kube-apiserver+etcd binary for integration tests is built from the Go
## module proxy and cached under .cache/ (7-8 minutes cold, instant after).
test: build kube-apiserver kube-testbins
	$(GO) vet ./...
	CFZT_KUBE_APISERVER=$$(hack/build-apiserver.sh) \
	  CFZT_KUBE_CONTROLLERS=$$(hack/build-testbin.sh kube-controllers) CFZT_KWOK=$$(hack/build-testbin.sh kwok) \
	  $(GO) test -p 2 -count=1 ./...
	cd internal/cfsim/sdktest && $(GO) test -count=1 ./...
	cd internal/tools/helmtest && CFZT_KUBE_APISERVER=$$(../../../hack/build-apiserver.sh) $(GO) test -count=1 ./...

kube-apiserver:
	hack/build-apiserver.sh

## kube-testbins: kube-controller-manager + kube-scheduler and KWOK for the
## tests that need a cluster that behaves (internal/kubetest/README.md); built
## after the apiserver so that they reuse its Go build cache.
kube-testbins: kube-apiserver
	hack/build-testbin.sh kube-controllers
	hack/build-testbin.sh kwok

## conformance: the shared Ansible conformance sample against our binary.
conformance: build
	$(SHARED)/ansible-conformance/run.sh "$(CURDIR)/$(BIN)"

## oracle: install the reference ansible-playbook (ansible-core 2.19).
oracle:
	sh hack/install-oracle.sh $(ORACLE_DIR)

## lint: gofmt (every Go file of every module), go mod tidy (every module),
## go vet, import grouping and the package layering (tests/architecture), and staticcheck when it installs from the Go module proxy (a
## pinned version, never in go.mod).
GO_MODULES := . internal/cfsim/sdktest internal/tools/helmtest internal/kubetest/apiserver internal/kubetest/controllers internal/kubetest/kwok
STATICCHECK_VERSION ?= v0.8.2
STATICCHECK_BIN := .cache/staticcheck-$(STATICCHECK_VERSION)/staticcheck
lint:
	@files=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go')); \
	  if [ -n "$$files" ]; then echo "gofmt -l: these files need gofmt -w:"; echo "$$files"; exit 1; fi
	@for m in $(GO_MODULES); do \
	  if ! (cd $$m && $(GO) mod tidy -diff >/dev/null 2>&1); then echo "go mod tidy: $$m/go.mod is not tidy (run go mod tidy there)"; exit 1; fi; \
	done
	$(GO) vet ./...
	$(GO) test -count=1 -run 'TestImportGrouping|TestLayering' ./tests/architecture/
	@if [ -x $(STATICCHECK_BIN) ] || GOBIN=$(CURDIR)/$(dir $(STATICCHECK_BIN)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION); then \
	  echo "staticcheck ($(STATICCHECK_VERSION)) ./..."; $(STATICCHECK_BIN) ./...; \
	else echo "lint: staticcheck $(STATICCHECK_VERSION) could not be installed from the module proxy; skipping it" >&2; fi

## demo: the operator end to end on this machine, no cluster and no Cloudflare
## account: a local kube-apiserver, the Cloudflare simulator and the three
## tiers (see docs/demo.md). DEMO_FLAGS=-short runs the quick version.
DEMO_FLAGS ?=
demo: kube-apiserver
	$(GO) build -o bin/cfzt-demo ./cmd/cfzt-demo
	CFZT_KUBE_APISERVER=$$(hack/build-apiserver.sh) bin/cfzt-demo $(DEMO_FLAGS)

## image: the operator image as an OCI layout tarball, without Docker
## (container/Dockerfile is the Docker build of the same image), for
## GOARCH (amd64 or arm64; default: this machine's). Built for amd64, it
## rewrites the size figures of docs/install.md.
## image-multiarch: one OCI index holding the amd64 and arm64 images.
## The packer always runs natively: GOARCH only chooses the image's binary.
IMAGE ?= ghcr.io/cfzt/cfzt-operator:dev
IMAGE_TAR ?= bin/cfzt-operator-image.tar
IMAGE_ARCH = $(or $(GOARCH),$(shell env -u GOARCH $(GO) env GOARCH))
IMAGE_ARCHS ?= amd64,arm64
.PHONY: image image-multiarch
image:
	env -u GOARCH $(GO) run ./internal/image/cmd/cfzt-image -o $(IMAGE_TAR) -name $(IMAGE) -arch $(IMAGE_ARCH) -docs docs/install.md
image-multiarch:
	env -u GOARCH $(GO) run ./internal/image/cmd/cfzt-image -o bin/cfzt-operator-image-multiarch.tar -name $(IMAGE) -arch $(IMAGE_ARCHS) -docs docs/install.md

## image-ansible-operator: the base image for operator-sdk Ansible operators
## (docs/ansible-operator.md), as an OCI layout tarball; it rewrites the
## size figures of docs/ansible-operator.md.
.PHONY: image-ansible-operator
image-ansible-operator:
	$(GO) run ./internal/image/cmd/cfzt-image -image ansible-operator -o bin/cfzt-ansible-operator-image.tar -name ghcr.io/cfzt/cfzt-ansible-operator:dev -docs docs/ansible-operator.md

## image-ansible-operator-python: the same base with python3 from Debian
## trixie's packages, for operators whose roles carry Python plugins
## (docs/ansible-operator.md), as an OCI layout tarball, without Docker
## (linux/amd64). hack/fetch-python-debs.sh fetches the packages locked in
## hack/python-debs.lock (apt-get and the network, once: they are cached
## under .cache/python-debs); the build rewrites the flavour's size figures.
.PHONY: image-ansible-operator-python
image-ansible-operator-python:
	hack/fetch-python-debs.sh >/dev/null
	$(GO) run ./internal/image/cmd/cfzt-image -image ansible-operator-python -arch amd64 -o bin/cfzt-ansible-operator-python-image.tar -name ghcr.io/cfzt/cfzt-ansible-operator:dev-python -docs docs/ansible-operator.md

## bench: cfzt-runner and the reference ansible-playbook side by side
## (bench/README.md); BENCH_RUNS=1 BENCH_WARMUP=0 for a quick smoke run.
bench: build
	$(GO) build -o bin/cfzt-bench ./cmd/cfzt-bench
	ORACLE_DIR=$(ORACLE_DIR) bin/cfzt-bench

clean:
	rm -rf bin

## k8s-goldens: re-record tests/k8s-golden/expected with the reference
## ansible-playbook (and cfzt-runner for k8s_status) against a fresh apiserver.
.PHONY: k8s-goldens
k8s-goldens:
	hack/record-k8s-goldens.sh

## goldens: re-record tests/golden/cases/*/expected.* from the oracle (installs it if missing).
.PHONY: goldens
goldens:
	hack/record-goldens.sh

## demo-chute: chute end to end on this machine (docs/chute.md, Try it): a
## local kube-apiserver, the Cloudflare simulator and `cfzt-runner operator`
## on ansible/chute.
.PHONY: demo-chute
demo-chute: build kube-apiserver
	$(GO) build -o bin/chute-demo ./cmd/chute-demo
	CFZT_KUBE_APISERVER=$$(hack/build-apiserver.sh) bin/chute-demo -runner $(BIN)

## image-chute: chute's operator image as an OCI layout tarball, without
## Docker (deploy/chute/Dockerfile is the Docker build of the same image).
.PHONY: image-chute
image-chute:
	$(GO) run ./cmd/chute-image -o bin/chute-operator-image.tar -name ghcr.io/cfzt/chute-operator:dev
