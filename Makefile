# rateladder: make targets. `make` alone lists them.
#
# Every level target is a thin alias of the ladder command
# (harness/cmd/ladder), which knows the levels from one registry
# (harness/levels): a new level needs no change here.

GO          ?= go
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.6.1

# Level 8's Redis form lives in two nested modules, so that go-redis and
# miniredis never enter the main go.mod: a learner who stops at part 5
# never downloads them. The first holds the stub and its spec, the second
# the reference; each has its own go test.
REDIS_STUB := ladder/08-group-throttle/redisthrottle
REDIS_REF  := solutions/08-group-throttle/redisthrottle

.DEFAULT_GOAL := help
LADDER_PHONY := student-copy class-report classroom test-plots
.PHONY: help test test-e2e test-bench progress check $(LADDER_PHONY) vet test-go test-solutions test-stubs test-race test-mutants

help:
	@$(LADDER) help --make

progress:
	@$(LADDER) progress

# Built into the git-ignored .ladder/ folder: go run would add
# "exit status 1" to every answer that is not a plain yes. A checkout the
# user cannot write (a read-only mount, a shared folder) gets a message
# that says so, rather than go build's "open .ladder/ladder: read-only
# file system"; the ladder command says the same of .ladder/state.json.
LADDER = $(LADDER_WRITABLE)$(LADDER_FIRST)$(GO) build -o .ladder/ladder ./harness/cmd/ladder && ./.ladder/ladder
LADDER_READONLY = This checkout is read-only: make builds the ladder command into .ladder/ and keeps your hints and interviews there, and cannot create or write that folder here. Copy the repository to a folder you can write (cp -r or git clone), and run make there; go run ./harness/cmd/ladder test N grades a level here as it is.
LADDER_WRITABLE = $(if $(shell mkdir -p .ladder 2>/dev/null; test -w .ladder && echo yes),,echo "$(LADDER_READONLY)" >&2; exit 1; )
# The first build says so (on a terminal, or with LADDER_NOTES=1).
LADDER_FIRST = $(if $(wildcard .ladder/ladder),,sh -c '[ -t 2 ] || [ "$$LADDER_NOTES" = 1 ] || exit 0; echo "building the ladder command, the first run only…" >&2' && )
FUZZTIME ?= 30s

test-level-%:
ifeq ($(REDIS),1)
	@$(call with_redis,$(LADDER) test $(if $(PART),--part $(PART)) $(if $(filter 1,$(ALL)),--all) $*)
else
	@$(LADDER) test $(if $(PART),--part $(PART)) $(if $(filter 1,$(ALL)),--all) $*
endif

hint-%:
	@$(LADDER) hint $(if $(PART),--part $(PART)) $*

hints-%:
	@$(LADDER) hints $*

reset-level-%:
	@FORCE=$(FORCE) $(LADDER) reset $*

watch-level-%:
	@$(LADDER) watch $*

fuzz-level-%:
	@$(LADDER) fuzz --time $(FUZZTIME) $*

bench-level-%:
	@$(LADDER) bench $*

interview-level-%:
	@$(LADDER) interview $(if $(TIME),--time $(TIME)) $*

debrief-level-%:
	@$(LADDER) debrief $*

# The pictures come from nested modules, harness/plot (your code) and
# solutions/plot (REF=1), so that the plotting library never enters the
# main go.mod. The commands are built into the git-ignored .ladder/.
PLOT_LEVELS = $(patsubst harness/plot/level%,%,$(wildcard harness/plot/level[0-9]))

plot-level-%:
ifeq ($(REF),1)
	@if [ ! -f solutions/plot/go.mod ]; then \
		echo "REF=1 draws the reference solutions, and this copy has none. make plot-level-$* draws your own code."; exit 1; fi
	@$(GO) -C solutions/plot build -o $(CURDIR)/.ladder/plot-reference . && ./.ladder/plot-reference -level $* -out plots
else
	@if [ ! -d harness/plot/level$* ]; then \
		echo "Level $* has no pictures. The levels with pictures are: $(PLOT_LEVELS)."; exit 1; fi
	@$(GO) -C harness/plot build -o $(CURDIR)/.ladder/plot-level-$* ./level$* && ./.ladder/plot-level-$* -out plots
endif

# apt_install installs Debian's packages $(1) when the command $(2) is
# missing: as root, or through sudo where it asks no password; otherwise
# it says what to run, and the recipe goes on.
apt_install = command -v $(2) >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get update -qq && apt-get install -y -qq $(1); } || \
	{ sudo -n true 2>/dev/null && sudo apt-get update -qq && sudo apt-get install -y -qq $(1); } || \
	echo "could not install $(1): run sudo apt-get install $(1)"

# Not part of make test: it needs Chromium, which it installs when missing
# (Debian's package). The reference's pictures and their PNG
# screenshots stay in plots/check/ to be looked at.
test-plots:
	@$(call apt_install,chromium,chromium)
	cd harness/plot && $(GO) vet ./... && LADDER_PLOTS_BROWSER=1 $(GO) test ./...
	mkdir -p plots/check
	LADDER_PLOTS_BROWSER=1 PLOTS_DIR=$(CURDIR)/plots/check $(GO) test -count=1 -run TestClassReportPage ./harness/internal/instructor/
ifneq ($(wildcard solutions/plot/go.mod),)
	mkdir -p plots/check
	cd solutions/plot && $(GO) vet ./... && PLOTS_DIR=$(CURDIR)/plots/check $(GO) test -count=1 -v ./...
endif

student-copy:
	@if [ -z "$(DEST)" ]; then echo "usage: make student-copy DEST=dir"; exit 2; fi
	@$(LADDER) student-copy "$(DEST)"

# The class report runs each student's code in a sandbox made by
# bubblewrap (bwrap, Linux), with a redis-server of its own for level 8's
# part 8: Debian's packages, installed here when missing. Without bwrap,
# the report refuses and says what to do, unless NO_SANDBOX=1.
need_bwrap = if [ "$$(uname)" = Linux ] && [ "$(NO_SANDBOX)" != 1 ]; then $(call apt_install,bubblewrap,bwrap); $(call apt_install,redis-server,redis-server); fi
class_report_flags = $(if $(JOBS),--parallel $(JOBS)) $(if $(TIMEOUT),--timeout $(TIMEOUT)) $(if $(SEED),--seed $(SEED)) \
	$(if $(filter 1,$(NO_SANDBOX)),--no-sandbox) $(if $(filter 1,$(CLEAN)),--clean)

class-report:
	@$(need_bwrap)
	@$(LADDER) class-report --format $(or $(FORMAT),markdown) $(class_report_flags) $(DIRS)

classroom:
	@$(LADDER) classroom $(if $(filter 1,$(FORCE)),--force) $(if $(INSTRUCTOR_REPO),--instructor-repo $(INSTRUCTOR_REPO)) $(if $(INSTRUCTOR_REF),--instructor-ref $(INSTRUCTOR_REF))

# make test is what must always pass: under a minute on two cores, even
# on a fresh clone, which compiles everything first. One go test runs the
# harness, the specs and the references: one go command builds each shared
# package once and schedules the builds and runs of all of them together
# (-p 3, as some tests mostly wait), where separate lanes built the same
# packages side by side. The stub check follows it, reusing its builds.
# Beside it: gofmt, and the Redis spec and reference, which are modules of
# their own and mostly wait on deadlines. The race detector and the specs'
# mutant sweeps are make ci's (test-race, test-mutants): CI (.ci/run) runs
# make test, then make ci. --output-sync keeps each job's output in one
# piece.
test:
	@$(MAKE) --no-print-directory -j3 --output-sync=target test-root gofmt test-specs-redis test-lane-redis-ref
	@echo "make test: all green"

.PHONY: test-root test-lane-redis-ref gofmt test-harness test-specs test-specs-redis
test-root:
	$(GO) test $(TESTFLAGS) -p 3 -short ./harness/... ./ladder/*/spec/ $(if $(wildcard solutions),./solutions/...)
	$(if $(wildcard solutions),,@echo "no solutions/ here (a student copy): skipping the reference tests")
	@$(LADDER) check-stubs
test-lane-redis-ref:
	$(if $(wildcard $(REDIS_REF)),$(GO) -C $(REDIS_REF) test $(TESTFLAGS) ./...,@:)

# vet is in make check, so go test need not vet each package again; -w
# leaves DWARF out of the test binaries, which links them faster (stack
# traces come from the symbol table, which stays).
TESTFLAGS := -vet=off -ldflags=-w
# The race detector sleeps a second as a program exits, for reports from
# threads still running: an idle second a package.
export GORACE ?= atexit_sleep_ms=0

gofmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.ladder/*')); \
		if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet: gofmt
	$(GO) vet ./...
	$(GO) -C $(REDIS_STUB) vet ./...
ifneq ($(wildcard $(REDIS_REF)),)
	$(GO) -C $(REDIS_REF) vet ./...
endif

# make -j3 test-go runs the three side by side.
test-go: test-harness test-specs test-specs-redis
test-harness:
	$(GO) test $(TESTFLAGS) -short ./harness/...
# -short: the specs' sweeps of every mutant over every case (and the race
# detector's children) are left to test-mutants, in make ci.
test-specs:
	$(GO) test $(TESTFLAGS) -short ./ladder/*/spec/
test-specs-redis:
	$(GO) -C $(REDIS_STUB) test $(TESTFLAGS) -short ./spec

# The specs' whole self-check: each mutant is caught by its part, the
# tables of known mistakes are current, races are caught under -race.
test-mutants:
	$(GO) test $(TESTFLAGS) ./ladder/*/spec/
	$(GO) -C $(REDIS_STUB) test $(TESTFLAGS) ./spec

# Every reference against its spec and its own tests, with the go test
# flags $(1); a workshop's student copy has no solutions/, and this then
# says so and passes. test-race, in make ci, runs them under the race
# detector.
test_references = $(if $(wildcard solutions),\
	$(GO) test $(TESTFLAGS) $(1) ./solutions/... && $(GO) -C $(REDIS_REF) test $(TESTFLAGS) $(1) ./...,\
	@echo "no solutions/ here (a student copy): skipping the reference tests")
test-solutions:
	$(call test_references)
test-race:
	$(call test_references,-race)

test-bench:
ifneq ($(wildcard solutions),)
	$(GO) test -run '^$$' -bench . -benchtime 1x ./solutions/...
	$(GO) -C $(REDIS_REF) test -run '^$$' -bench . -benchtime 1x ./...
else
	@echo "no solutions/ here (a student copy): no benchmarks to run"
endif

# It needs bwrap (the class report's sandbox) and redis-server (the
# Classroom workflow's Redis parts, as on a runner), installed here when
# missing. LADDER_E2E=1: a test that needs the sandbox fails when there is
# none, rather than skip.
test-e2e:
	@$(need_bwrap)
	@$(call apt_install,tmux,tmux)
	LADDER_E2E=1 $(GO) test -count=1 -timeout 40m ./harness/cmd/ladder/ ./harness/internal/grade/

# The one list of what CI runs after make test.
.PHONY: ci
ci: check test-mutants test-race test-e2e test-bench test-redis test-plots peers-quick

test-stubs:
	@$(LADDER) check-stubs

check: vet
	GOOS=windows $(GO) build ./... && GOOS=windows $(GO) vet ./...
	GOOS=darwin $(GO) build ./... && GOOS=darwin $(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...
	$(GO) -C $(REDIS_STUB) run $(STATICCHECK) ./...
ifneq ($(wildcard $(REDIS_REF)),)
	$(GO) -C $(REDIS_REF) run $(STATICCHECK) ./...
endif

# The references beside the Go rate limiters that run in production
# (golang.org/x/time/rate, sethvargo/go-limiter, ulule/limiter,
# throttled/throttled, uber-go/ratelimit). They live in a module of their
# own, solutions/peers, so that none of them is a dependency of this one.
PEERS_DIR       := solutions/peers
PEERS_OUT       := $(CURDIR)/$(PEERS_DIR)/out
PEERS_COUNT     ?= 6
PEERS_BENCHTIME ?= 1s
BENCHSTAT       := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
# Runs go test in the peers module, writes its output to $(PEERS_OUT)/$(1).txt
# and shows it only if the run fails.
peers_run = cd $(PEERS_DIR) && $(GO) test -run '^$$' -count $(PEERS_COUNT) $(2) . > $(PEERS_OUT)/$(1).txt 2>&1 \
	|| { cat $(PEERS_OUT)/$(1).txt; exit 1; }
.PHONY: peers peers-quick

peers:
	@mkdir -p $(PEERS_OUT)
	cd $(PEERS_DIR) && $(GO) test -count 1 -run Conformance .
	@echo "benchmarks: $(PEERS_COUNT) runs of each, several minutes; raw output in $(PEERS_OUT)"
	@$(call peers_run,speed,-benchtime $(PEERS_BENCHTIME) -bench '^Benchmark(TokenBucket|HotClient|PerKey)$$')
	@$(call peers_run,memory,-benchtime 1000000x -bench '^BenchmarkMemoryPerKey$$')
	@$(call peers_run,accuracy,-benchtime 1x -bench '^BenchmarkSlidingAccuracy$$')
	@GOBIN=$(PEERS_OUT) $(GO) install $(BENCHSTAT)
	@echo; echo "## 1. Level 3 against x/time/rate: one bucket, serial, the time passed in"
	@$(PEERS_OUT)/benchstat -filter '.name:TokenBucket' -col /lib $(PEERS_OUT)/speed.txt
	@echo; echo "## 2. One hot client, safe for concurrent use: level 8 TokenBucket against x/time/rate (uber: Take's cost only)"
	@$(PEERS_OUT)/benchstat -filter '.name:HotClient' -col /lib $(PEERS_OUT)/speed.txt
	@echo; echo "## 3a. Per-key, 100,000 known keys: level 8's TokenBucket against the per-key buckets (sethvargo) and GCRA (throttled)"
	@$(PEERS_OUT)/benchstat -filter '.name:PerKey /lib:(l8-bucket OR sethvargo OR throttled)' -col /lib $(PEERS_OUT)/speed.txt
	@echo; echo "## 3b. Per-key, 100,000 known keys: level 8's FixedWindow against ulule's fixed window"
	@$(PEERS_OUT)/benchstat -filter '.name:PerKey /lib:(l8-fixed OR ulule)' -col /lib $(PEERS_OUT)/speed.txt
	@echo; echo "## 3c. Per-key, 100,000 known keys: level 8's SlidingWindow, B = 2 and B = 61, beside its FixedWindow"
	@$(PEERS_OUT)/benchstat -filter '.name:PerKey /lib:(l8-fixed OR l8-sliding2 OR l8-sliding61)' -col /lib $(PEERS_OUT)/speed.txt
	@echo; echo "## 3d. Per-key, 100,000 known keys: every implementation as a multiple of floor (one hash, one slot read, a byte compare), and the geometric mean of the four cases"
	@cd $(PEERS_DIR) && $(GO) run ./floorx $(PEERS_OUT)/speed.txt
	@echo; echo "## 4. Memory per key: live heap after a million keys (B/key); ns/op is a new key's first request"
	@$(PEERS_OUT)/benchstat -row /lib $(PEERS_OUT)/memory.txt
	@echo; echo "## 5. Sliding window accuracy: a million requests, 10,000 clients, 60 a minute, against an exact log"
	@$(PEERS_OUT)/benchstat -row /buckets $(PEERS_OUT)/accuracy.txt

peers-quick:
	cd $(PEERS_DIR) && $(GO) vet ./...
	@cd $(PEERS_DIR) && out=$$($(GO) test -short -count 1 -bench . -benchtime 1x . 2>&1) || { echo "$$out"; exit 1; }; \
		echo "peers: the conformance tests passed, and every benchmark ran once"

# The Redis form of level 8 against a real redis-server (Debian's package,
# installed here when missing, as root): started on a free port of
# 127.0.0.1 without persistence, REDIS_ADDR set for the tests, and stopped
# when they end, pass or fail. make test runs the same spec on miniredis.
# With REDIS_ADDR set, the spec also pauses a redis-server of its own.
# with_redis runs the shell command $(1) with REDIS_ADDR set to a fresh
# redis-server of its own, and stops that server afterwards, pass or fail;
# install_redis installs the server alone.
install_redis = $(call apt_install,redis-server,redis-server)
with_redis = $(install_redis); \
	dir=$$(mktemp -d) && port=$$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo $$((20000 + $$$$ % 20000))) && \
	trap 'kill $$(cat $$dir/redis.pid) 2>/dev/null; rm -rf $$dir' EXIT && \
	redis-server --bind 127.0.0.1 --port $$port --save '' --appendonly no --daemonize yes --pidfile $$dir/redis.pid --dir $$dir --logfile $$dir/redis.log && \
	for i in $$(seq 50); do redis-cli -p $$port ping >/dev/null 2>&1 && break; sleep 0.1; done && \
	echo "redis-server $$(redis-server --version | grep -o 'v=[0-9.]*') on 127.0.0.1:$$port" && \
	export REDIS_ADDR=127.0.0.1:$$port && $(1)

.PHONY: test-redis peers-redis
test-redis:
ifneq ($(wildcard $(REDIS_REF)),)
	@$(call with_redis,$(GO) -C $(REDIS_REF) test -race -count 1 ./... && \
		$(GO) -C $(REDIS_REF) test -count 1 -run '^$$' -bench . -benchtime 2000x ./... | grep -E 'redis-server|^ok')
else
	@echo "this copy has no reference solutions, so no reference to test; make test-level-8 REDIS=1 runs your own Redis form on a real redis-server"
endif

peers-redis:
	@mkdir -p $(PEERS_OUT)
	@$(call with_redis,cd $(PEERS_DIR) && $(GO) test -run '^$$' -count $(PEERS_COUNT) -benchtime 2000x -bench '^BenchmarkRedis$$' . > $(PEERS_OUT)/redis.txt 2>&1 || { cat $(PEERS_OUT)/redis.txt; exit 1; })
	@GOBIN=$(PEERS_OUT) $(GO) install $(BENCHSTAT)
	@echo; echo "## 6. Redis: level 8's Redis form against go-redis/redis_rate, one real server"
	@$(PEERS_OUT)/benchstat -col /lib $(PEERS_OUT)/redis.txt
