# clyde's build, test and benchmark entry points. `make test` is what CI runs.
GO        ?= go
BIN       ?= bin/clyde
STATICCHECK_VERSION ?= v0.8.2
PLATFORMS := linux/amd64 linux/arm64 windows/amd64 windows/arm64 darwin/amd64 darwin/arm64 freebsd/amd64 freebsd/arm64
FUZZTIME  ?= 30s

.PHONY: build test lint cross bench fuzz clean mutate mutate-short

build:
	$(GO) build -o $(BIN) ./cmd/clyde

# Tests that need root, loop devices or bonnie++'s tools run for real where
# the machine has them and skip with a stated reason elsewhere.
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 9m ./...

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	$(GO) mod tidy -diff

cross:
	@set -e; for p in $(PLATFORMS); do \
		echo "build $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} CGO_ENABLED=0 $(GO) build -o /dev/null ./...; \
	done

# Side-by-side comparisons with bonnie++, fio and cp, run on this machine.
bench: build
	BIN=$(BIN) scripts/bench-fs.sh
	@if [ -x scripts/bench-block.sh ]; then BIN=$(BIN) scripts/bench-block.sh; fi
	BIN=$(BIN) scripts/bench-copy.sh
	@if [ -x scripts/bench-jobfile.sh ]; then scripts/bench-jobfile.sh; fi
	BIN=$(BIN) scripts/bench-fio-examples.sh
	scripts/bench-orion.sh
	BIN=$(BIN) scripts/bench-ranks.sh

# A short run of every fuzz target, FUZZJOBS targets at a time, each with
# FUZZJOBS-th of the CPUs (-parallel), so CI fuzzes every target for FUZZTIME
# in about FUZZTIME x targets / FUZZJOBS.
FUZZJOBS  ?= 1
FUZZPAR   ?= $(shell n=$$(( $$(nproc 2>/dev/null || echo 1) / $(FUZZJOBS) )); [ $$n -ge 1 ] && echo $$n || echo 1)
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do echo "$$pkg $$f"; done; \
	done | GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZPAR=$(FUZZPAR) xargs -P $(FUZZJOBS) -L 1 scripts/fuzz-one.sh

# Deliberate bugs, one at a time (scripts/mutate/mutations.txt), each against
# the tests that must catch it, through go test -overlay (the tree is not
# touched); the survivors are printed and fail the target. mutate-short is
# the subset CI runs after make test.
mutate:
	$(GO) run ./scripts/mutate

mutate-short:
	$(GO) run ./scripts/mutate -short

clean:
	rm -rf bin
