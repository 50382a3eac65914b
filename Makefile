# clyde's build, test and benchmark entry points. `make test` is what CI runs.
GO        ?= go
BIN       ?= bin/clyde
STATICCHECK_VERSION ?= v0.8.2
PLATFORMS := linux/amd64 linux/arm64 windows/amd64 windows/arm64 darwin/amd64 darwin/arm64 freebsd/amd64 freebsd/arm64
FUZZTIME  ?= 30s

.PHONY: build test test-loaded lint cross bench fuzz clean mutate mutate-short stage install uninstall deb release

build:
	$(GO) build -o $(BIN) ./cmd/clyde

# Tests that need root, loop devices or bonnie++'s tools run for real where
# the machine has them and skip with a stated reason elsewhere (under
# CLYDE_CI=1, as .ci/run sets it, that skip fails). The integration package is
# the longest, about 9 minutes on an idle 2-core machine beside the others, its
# longest tests split and in parallel; the per-package timeout leaves room for
# a busy machine, and each integration test ends its commands 45 s before it.
#
# The integration package comes first on the command line, so go test starts
# it as soon as it is built (go test runs packages in command-line order as
# their builds finish): it is the critical path, and listed alphabetically
# it waited about 4 minutes behind cmd/clyde, fiojob and fsbench.
#
# -p 3: three test binaries at once on a 2-core machine. The suite is not
# CPU-bound: measured with /usr/bin/time, the integration package used 345 s
# of CPU (children included) and the other packages 511 s, about 860 s in
# all, while make test took 628 s on 2 cores (1,256 core-seconds): the rest
# is waiting (mounts, fio's and clyde's timed runs, Wine, timeouts). With
# go test's default of -p 2 the integration package held one slot for its
# 9 minutes and every other package queued behind the other.
TEST_PKGS = ./integration/ $(shell $(GO) list ./... | grep -v '/integration$$')
TEST_P   ?= 3
test:
	$(GO) vet ./...
	$(GO) test -count=1 -p $(TEST_P) -timeout 15m $(TEST_PKGS)

# The tests outside the integration suite beside a CPU hog on every core
# (stress-ng --cpu twice the cores): a test that takes a busy machine for a
# bug fails here. The packaging tests (scripts) and apitest, which only build
# clyde and a module, are left out. CI runs it once, beside the fuzzing; it
# needs stress-ng.
LOADED_PKGS = $(shell $(GO) list ./... | grep -v -e '/integration' -e '/scripts$$' -e '/internal/apitest$$')
test-loaded:
	@command -v stress-ng >/dev/null || { echo "make test-loaded needs stress-ng (apt-get install stress-ng)" >&2; exit 1; }
	@stress-ng --cpu $$(( 2 * $$(nproc) )) --timeout 30m --quiet & hog=$$!; \
	trap 'kill $$hog 2>/dev/null; wait $$hog 2>/dev/null' EXIT; \
	echo "stress-ng --cpu $$(( 2 * $$(nproc) )) (pid $$hog) beside the tests"; \
	$(GO) test -count=1 -timeout 15m $(LOADED_PKGS)

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
	BIN=$(BIN) scripts/bench-block-ranks.sh

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
# the subset CI runs after make test: the entries marked short, in turn from
# a place the commit picks, the whole stretch bounded by MUTATE_BUDGET (an
# entry the bound stops is counted cut, neither killed nor survived; the
# short entries take about an hour in all on 2 cores, over CI's time; every
# commit runs another stretch of them, and make mutate runs them all).
MUTATE_BUDGET ?= 5m
mutate:
	$(GO) run ./scripts/mutate

mutate-short:
	$(GO) run ./scripts/mutate -short -budget $(MUTATE_BUDGET) -from "$$(git rev-parse HEAD 2>/dev/null)"

# Installing and packaging. The binary is static (CGO_ENABLED=0), built with
# -trimpath and no build ID, stamped with the version from git describe
# (scripts/version.sh) and the commit; the man pages and completions come
# from that binary (clyde man, clyde completion), so they list its flags.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
STAGE       ?= bin/stage
DIST        ?= bin/dist
DEB_OUT     ?= bin
RELEASE_PLATFORMS ?= linux/amd64 linux/arm64 windows/amd64 darwin/arm64
VERSION     ?= $(shell scripts/version.sh)
COMMIT      ?= $(shell git rev-parse HEAD 2>/dev/null)
RELEASE_LDFLAGS = -s -w -buildid= -X github.com/clydebench/clyde/internal/buildinfo.version=$(VERSION) -X github.com/clydebench/clyde/internal/buildinfo.commit=$(COMMIT)
RELEASE_BUILD = CGO_ENABLED=0 $(GO) build -trimpath -buildvcs=false -ldflags '$(RELEASE_LDFLAGS)'

stage:
	$(RELEASE_BUILD) -o $(STAGE)/clyde ./cmd/clyde
	rm -rf $(STAGE)/man $(STAGE)/completion && mkdir -p $(STAGE)/man $(STAGE)/completion
	$(STAGE)/clyde man --dir $(STAGE)/man $(foreach f,README.md $(sort $(wildcard docs/*.md)),--readme $(f))
	$(STAGE)/clyde completion bash > $(STAGE)/completion/clyde.bash
	$(STAGE)/clyde completion zsh > $(STAGE)/completion/_clyde
	$(STAGE)/clyde completion fish > $(STAGE)/completion/clyde.fish

# The directories install creates are remembered in $(STAGE)/installed-dirs
# (scripts/installdirs.sh); uninstall removes those of them that are empty
# and leaves every directory that was there before.
install: stage
	scripts/installdirs.sh make $(STAGE)/installed-dirs $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(STAGE)/clyde $(DESTDIR)$(BINDIR)/clyde
	install -m 0644 $(STAGE)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 $(STAGE)/completion/clyde.bash $(DESTDIR)$(BASHCOMPDIR)/clyde
	install -m 0644 $(STAGE)/completion/_clyde $(DESTDIR)$(ZSHCOMPDIR)/_clyde
	install -m 0644 $(STAGE)/completion/clyde.fish $(DESTDIR)$(FISHCOMPDIR)/clyde.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/clyde $(DESTDIR)$(MANDIR)/man1/clyde.1 $(DESTDIR)$(MANDIR)/man1/clyde-*.1 \
		$(DESTDIR)$(BASHCOMPDIR)/clyde $(DESTDIR)$(ZSHCOMPDIR)/_clyde $(DESTDIR)$(FISHCOMPDIR)/clyde.fish
	scripts/installdirs.sh remove $(STAGE)/installed-dirs

# A Debian package for this machine's architecture (DEB_ARCH=arm64 with
# GOARCH=arm64 for another), built with dpkg-deb.
deb: stage
	scripts/mkdeb.sh $(STAGE) $(DEB_OUT)/clyde_$$(scripts/version.sh --deb)_$${DEB_ARCH:-$$(dpkg --print-architecture)}.deb

# Static binaries for the release page, with their SHA-256 sums; two builds
# of one commit are byte for byte the same (scripts/packaging_test.go).
release:
	@set -e; rm -rf $(DIST); mkdir -p $(DIST); for p in $(RELEASE_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		echo "build $$p"; \
		GOOS=$$os GOARCH=$$arch $(RELEASE_BUILD) -o $(DIST)/clyde-$(VERSION)-$$os-$$arch$$ext ./cmd/clyde; \
	done; cd $(DIST) && sha256sum clyde-* > SHA256SUMS && cat SHA256SUMS

clean:
	rm -rf bin
