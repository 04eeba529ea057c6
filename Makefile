# cfzt-runner: run Ansible playbooks natively.
GO      ?= go
BIN     := bin/cfzt-runner
SHARED  ?= ../shared
ORACLE_DIR ?= $(HOME)/.cache/ansible-oracle

.PHONY: build test conformance lint demo bench oracle clean

build:
	$(GO) build -o $(BIN) ./cmd/cfzt-runner

## test: the project's test suite (what CI runs).
test: build
	$(GO) vet ./...
	$(GO) test -count=1 ./...

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
