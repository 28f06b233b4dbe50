# rateladder: make targets. `make` alone lists them.
#
# Every level target finds its folder by number (ladder/03-*), so a new
# level needs no change here.

GO          ?= go
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@2025.1.1
# Levels whose tests run under the race detector, because they are about
# concurrency: make test-level-7 is go test -race.
RACE_LEVELS := 7 8

# The packages of level N: its folder and subfolders, without the spec.
level_dir  = $(firstword $(wildcard ladder/0$(1)-*))
level_pkgs = $(shell $(GO) list ./$(call level_dir,$(1))/... | grep -v '/spec')
race_flag  = $(if $(filter $(1),$(RACE_LEVELS)),-race)

.DEFAULT_GOAL := help
LADDER_PHONY := student-copy class-report
.PHONY: help test progress check $(LADDER_PHONY) vet test-harness test-solutions test-specs test-stubs test-benchmarks

help: ## list the targets
	@echo "rateladder: eight katas on rolling windows and rate limiters."
	@echo
	@echo "For learners (N is a level, 1 to 8):"
	@echo "  make progress           the ladder: what you have done, and what comes next"
	@echo "  make test-level-N       level N's tests against your code in ladder/"
	@echo "  make watch-level-N      rerun level N's tests whenever you save a file"
	@echo "  make hint-N             the next hint for level N (make hints-N: all seen so far)"
	@echo "  make fuzz-level-N       fuzz your level N against its model (FUZZTIME=30s)"
	@echo "  make bench-level-N      your benchmarks beside the reference's"
	@echo "  make compare-level-N    your code beside the reference"
	@echo "  make reset-level-N      put level N's stub back as it was (FORCE=1: no question)"
	@echo
	@echo "For instructors:"
	@echo "  make student-copy DEST=dir          the ladder without solutions/, to hand out"
	@echo "  make class-report DIRS=\"a b c\"      every student's progress in one table (FORMAT=csv)"
	@echo
	@echo "For the repository:"
	@echo "  make test               everything that must stay green (what CI runs)"
	@echo "  make check              gofmt, go vet and staticcheck"
	@echo "  make help               this list"

progress: ## the whole ladder at a glance; always exits 0
	@$(GO) run ./harness/cmd/ladder progress

test-level-%: ## one level's spec against the learner's code
	@if [ -z "$(call level_dir,$*)" ]; then \
		echo "Level $* is not built yet: it is coming. Run make progress to see the levels you can climb."; exit 1; fi
	$(GO) test $(call race_flag,$*) $(call level_pkgs,$*)

# Built once into the git-ignored .ladder/ folder: go run would add
# "exit status 1" to every answer that is not a plain yes.
LADDER = $(GO) build -o .ladder/ladder ./harness/cmd/ladder && ./.ladder/ladder
FUZZTIME ?= 30s

hint-%: ## the next hint of a level
	@$(LADDER) hint $*

hints-%: ## every hint of a level seen so far
	@$(LADDER) hints $*

reset-level-%: ## restore a level's stub, keeping a backup
	@FORCE=$(FORCE) $(LADDER) reset $*

watch-level-%: ## rerun a level's tests on every change
	@$(LADDER) watch $(call race_flag,$*) $*

fuzz-level-%: ## fuzz a level for FUZZTIME per target
	@$(LADDER) fuzz --time $(FUZZTIME) $*

bench-level-%: ## a level's benchmarks, yours beside the reference's
	@$(LADDER) bench $*

compare-level-%: ## your code beside the reference
	@$(LADDER) compare $*

student-copy: ## a copy without solutions/ to hand out: make student-copy DEST=dir
	@if [ -z "$(DEST)" ]; then echo "usage: make student-copy DEST=dir"; exit 2; fi
	@$(LADDER) student-copy "$(DEST)"

class-report: ## one table for a class: make class-report DIRS="a b c" [FORMAT=csv]
	@$(LADDER) class-report --format $(or $(FORMAT),markdown) $(DIRS)

test: vet test-harness test-specs test-solutions test-benchmarks test-stubs ## everything that must pass
	@echo "make test: all green"

vet:
	$(GO) vet ./...

test-harness: ## the clock, the timeline runner and the ladder command
	$(GO) test ./harness/...

test-specs: ## each spec's own tests: the wrong implementations it must catch
	$(GO) test $$($(GO) list ./ladder/... | grep '/spec$$')

# A workshop's student copy has no solutions/: these two then say so and pass.
test-solutions: ## every reference solution against its spec, with the race detector
ifneq ($(wildcard solutions),)
	$(GO) test -race ./solutions/...
else
	@echo "no solutions/ here (a student copy): skipping the reference tests"
endif

test-benchmarks: ## every benchmark once, so that none of them rots
ifneq ($(wildcard solutions),)
	@out=$$($(GO) test -run '^$$' -bench . -benchtime 1x ./solutions/... 2>&1) || { echo "$$out"; exit 1; }; echo "benchmarks: each ran once"
endif

test-stubs: ## the untouched stubs compile, and every case fails as not implemented
	LADDER_STUBCHECK=1 $(GO) test $$($(GO) list ./ladder/... | grep -v '/spec')

check: vet ## gofmt, go vet and staticcheck (run at a pinned version, nothing to install)
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) run $(STATICCHECK) ./...
