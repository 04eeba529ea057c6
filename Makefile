# cfzt-runner: run Ansible playbooks natively.
GO      ?= go
BIN     := bin/cfzt-runner
SHARED  ?= ../shared
ORACLE_DIR ?= $(HOME)/.cache/ansible-oracle

.PHONY: build test conformance lint demo bench oracle clean kube-apiserver

build:
	$(GO) build -o $(BIN) ./cmd/cfzt-runner

## test: the project's test suite (what CI runs).
## The kube-apiserver+etcd binary for integration tests is built from the Go
## module proxy and cached under .cache/ (7-8 minutes cold, instant after).
test: build kube-apiserver
	$(GO) vet ./...
	CFZT_KUBE_APISERVER=$$(hack/build-apiserver.sh) $(GO) test -p 2 -count=1 ./...
	cd internal/cfsim/sdktest && $(GO) test -count=1 ./...

kube-apiserver:
	hack/build-apiserver.sh

## conformance: the shared Ansible conformance sample against our binary.
conformance: build
	$(SHARED)/ansible-conformance/run.sh "$(CURDIR)/$(BIN)"

## oracle: install the reference ansible-playbook (ansible-core 2.19).
oracle:
	sh hack/install-oracle.sh $(ORACLE_DIR)

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)
	$(GO) vet ./...

demo:
	@echo "make demo is not implemented yet: it needs the kube-apiserver harness, the Cloudflare simulator and the operator roles (issues 3-6)." >&2
	@exit 1

bench:
	$(GO) test -run '^$$' -bench . ./engine/...

clean:
	rm -rf bin
