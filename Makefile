# Thin wrapper over CMake/CTest for the common tasks. `make help` lists the targets.
BUILD_DIR   ?= build
BUILD_TYPE  ?= Release
CMAKE_ARGS  ?=
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
ARGS        ?=
# Chapters in course order, by executable name: the second column of chapters/chapters.txt.
CHAPTERS    := $(shell awk '/^[0-9]/ {print $$2}' chapters/chapters.txt)
# The configure preset of CMakePresets.json: default, or ci (the fallback GPU architectures).
PRESET      ?= default
# The presets ask for Ninja; without it, CMake's Makefiles.
GENERATOR   := $(if $(shell command -v ninja 2>/dev/null),,-G "Unix Makefiles")
CTEST       := ctest --test-dir $(BUILD_DIR) --output-on-failure
# A Python that has matplotlib, for the plots: first one with the version the committed figures are
# drawn with (Debian bookworm's python3-matplotlib 3.6.3, /usr/bin/python3), else any; another
# version draws into build folders only (scripts/plot_results.py refuses docs/results/ unless FORCE=1).
PLOT_PYTHON ?= $(shell for p in /usr/bin/python3 python3; do $$p -c 'import sys, matplotlib; sys.exit(matplotlib.__version__ != "3.6.3")' 2>/dev/null && echo $$p && exit; done; \
                 for p in python3 /usr/bin/python3; do $$p -c 'import matplotlib' 2>/dev/null && echo $$p && break; done)
RESULTS     ?= docs/results
# Where `make plots` and `make compare` write unless OUT= says otherwise: a build folder, so that
# the committed figures under $(RESULTS) change only when asked (OUT=$(RESULTS) for plots,
# OUT=$(RESULTS)/compare for compare).
PLOTS_OUT   ?= $(BUILD_DIR)/plots
COMPARE_OUT ?= $(BUILD_DIR)/compare
CHAPTER     ?= reduction
# What `make deps` installs (Debian/Ubuntu); through sudo when not run as root.
DEPS        := cmake ninja-build g++ libgtest-dev libcli11-dev libopenmpi-dev doxygen graphviz python3 \
               python3-matplotlib
SUDO        := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: all build configure test test-cpu test-quick test-gpu run $(addprefix run-,$(CHAPTERS)) \
	$(addprefix build-,$(CHAPTERS)) docs \
        docs-tables plots compare pack bench sanitize profile clean deps format help

# CMake 3.24 or newer, checked before anything reads CMakePresets.json (an older CMake stops
# there with a parse error, before CMakeLists.txt can say what to do), and only for the targets
# that run CMake: `make deps`, `make help` and the like work with any CMake.
NO_CMAKE_GOALS := help deps clean format exercise-list docs-tables plots compare pack
ifneq ($(filter-out $(NO_CMAKE_GOALS),$(or $(MAKECMDGOALS),all)),)
CMAKE_FOUND := $(shell cmake --version 2>/dev/null | sed -n 's/^cmake version \([0-9]*\.[0-9]*\).*/\1/p')
ifeq ($(CMAKE_FOUND),)
$(error cmake not found: this project needs CMake 3.24 or newer (make deps, or see the README's Prerequisites))
endif
ifneq ($(shell printf '3.24\n$(CMAKE_FOUND)\n' | sort -V | head -1),3.24)
$(error CMake $(CMAKE_FOUND) is too old: this project needs 3.24 or newer (pip install --user cmake, https://apt.kitware.com or https://cmake.org/download/; see the README's Prerequisites))
endif
endif

all: build

# Configures (with the preset PRESET, into BUILD_DIR) on the first build or after a configure
# that failed (no build files were generated), and again whenever CMAKE_ARGS or PRESET is given or
# BUILD_TYPE differs from the cached one (so that `make CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=86`
# takes effect). First, that the build folder (or the nearest folder above it that exists) can be
# written: otherwise CMake stops with a message about its own internal folders.
configure:
	@dir="$(BUILD_DIR)"; while [ ! -e "$$dir" ]; do dir=$$(dirname "$$dir"); done; \
	if [ ! -d "$$dir" ]; then why="is not a folder"; \
	elif [ ! -w "$$dir" ] || [ ! -x "$$dir" ]; then why="is not writable"; else why=; fi; \
	if [ -n "$$why" ]; then \
	  echo "error: build folder $(BUILD_DIR) $$why (BUILD_DIR=<another folder> to build elsewhere)" >&2; \
	  exit 2; \
	fi
	@if [ ! -f $(BUILD_DIR)/CMakeFiles/TargetDirectories.txt ] || [ -n "$(CMAKE_ARGS)" ] || \
	    [ "$(origin PRESET)" != file ] || \
	    ! grep -q "^CMAKE_BUILD_TYPE:STRING=$(BUILD_TYPE)$$" $(BUILD_DIR)/CMakeCache.txt; then \
	  cmake --preset $(PRESET) -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS); \
	fi

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# ctest with its own output and exit status untouched, then a line or two on what did not run
# and why (ctest lists skipped and disabled tests bare; scripts/test_summary.sh gives the reasons).
define run_ctest
@mkdir -p $(BUILD_DIR)/Testing; echo "$(CTEST) $(1)"; \
{ $(CTEST) $(1) 2>&1; echo $$? > $(BUILD_DIR)/Testing/make-ctest.status; } \
  | tee $(BUILD_DIR)/Testing/make-ctest.log; \
sh scripts/test_summary.sh $(BUILD_DIR) $(BUILD_DIR)/Testing/make-ctest.log; \
exit $$(cat $(BUILD_DIR)/Testing/make-ctest.status)
endef

test: build
	$(call run_ctest,-j $(JOBS))

test-cpu: build
	$(call run_ctest,-j $(JOBS) -L cpu)

# The CPU tests without those labelled slow (the Doxygen site and its links, the figures' tests,
# the skeletons' compilation: most of test-cpu's time): seconds, for a loop while editing.
test-quick: build
	$(call run_ctest,-j $(JOBS) -L cpu -LE slow)

test-gpu: build
	$(call run_ctest,-L gpu)

# A program's exit code (README, "Exit codes"), said after it fails. GNU make then reports the
# failed command as "Error <code>" and itself exits with 2, whatever the code was.
explain_exit = case $(2) in \
  1) why="a result did not match the CPU reference";; \
  2) why="bad usage or input, nothing ran on the GPU";; \
  3) why="no usable GPU, or a CUDA error";; \
  *) why="see the README's exit codes";; esac; \
  echo "=> $(1) exited with $(2): $$why (make reports it as Error $(2) and exits with 2)"

# Without a usable GPU every chapter would say so in turn: scripts/gpu_check.sh asks once and
# prints the chapters' own message once (exit 3).
run: build
	@sh scripts/gpu_check.sh $(BUILD_DIR) || exit $$?; \
	status=0; for chapter in $(CHAPTERS); do \
	  if [ -x $(BUILD_DIR)/bin/$$chapter ]; then \
	    echo; echo "######## $$chapter ########"; \
	    $(BUILD_DIR)/bin/$$chapter; code=$$?; \
	    if [ $$code -ne 0 ]; then $(call explain_exit,$$chapter,$$code); status=$$code; fi; \
	  fi; \
	done; exit $$status

# One chapter: its executable and what it links (common/ and its own libraries), nothing else.
$(addprefix build-,$(CHAPTERS)): build-%: configure
	cmake --build $(BUILD_DIR) -j $(JOBS) --target $*

$(addprefix run-,$(CHAPTERS)): run-%: build-%
	@echo "$(BUILD_DIR)/bin/$* $(ARGS)"; $(BUILD_DIR)/bin/$* $(ARGS); code=$$?; \
	if [ $$code -ne 0 ]; then $(call explain_exit,$*,$$code); fi; exit $$code

docs: configure
	cmake --build $(BUILD_DIR) --target docs
	@echo "open $(BUILD_DIR)/docs/html/index.html"

docs-tables:
	python3 scripts/results_tables.py

# One folder per GPU under $(RESULTS); a folder without result JSON (nothing measured yet, or
# compare/ and history/) is passed over. Each folder's figures go to $(PLOTS_OUT)/<gpu>/;
# `make plots OUT=$(RESULTS)` writes them beside their JSON: the committed figures, regenerated on
# purpose, with the pinned matplotlib only (FORCE=1 overrides). The files are reproducible:
# unchanged results and versions give unchanged files.
plots:
	@test -n "$(PLOT_PYTHON)" || { echo "matplotlib not found: make deps"; exit 2; }
	@out="$(or $(OUT),$(PLOTS_OUT))"; for dir in $(RESULTS)/*/; do \
	  name=$$(basename $$dir); \
	  case "$$name" in compare|history) continue;; esac; \
	  if ls $$dir*.json >/dev/null 2>&1; then \
	    $(PLOT_PYTHON) scripts/plot_results.py plot $$dir --out "$$out/$$name" $(if $(FORCE),--force,) >/dev/null || exit $$?; \
	    echo "$$dir -> $$out/$$name/"; \
	  else echo "$$dir: no result JSON, skipped"; fi; \
	done

# The comparison (Markdown tables, figures, class.html: one page to open and project, the summary
# first) goes to $(COMPARE_OUT)/; the committed one is regenerated with OUT=$(RESULTS)/compare.
# GPUS: any number of results folders or `make pack` archives; one column per GPU kind.
compare:
	@test -n "$(PLOT_PYTHON)" || { echo "matplotlib not found: make deps"; exit 2; }
	@test -n "$(GPUS)" || { echo 'usage: make compare GPUS="$(RESULTS)/a $(RESULTS)/b archive.tar.gz ..." [OUT=dir, default $(COMPARE_OUT); the committed one: OUT=$(RESULTS)/compare]'; exit 2; }
	@$(PLOT_PYTHON) scripts/plot_results.py compare $(GPUS) --out $(or $(OUT),$(COMPARE_OUT)) $(if $(FORCE),--force,) >/dev/null
	@echo "open $(or $(OUT),$(COMPARE_OUT))/class.html"

# A student's `make bench` folder as one archive to hand in, <gpu-slug>_<name>_<date>.tar.gz in
# $(BUILD_DIR)/ (OUT=dir elsewhere): RESULTS_DIR= the folder (default: this machine's GPU's folder
# under $(RESULTS)), NAME= the student (default: the host name).
pack:
	@python3 scripts/plot_results.py pack $(RESULTS_DIR) --root $(RESULTS) $(if $(NAME),--name "$(NAME)",) --out $(or $(OUT),$(BUILD_DIR))

bench: build
	scripts/bench.sh $(BUILD_DIR) $(RESULTS)
	python3 scripts/results_tables.py

profile: build
	scripts/profile.sh $(CHAPTER) $(BUILD_DIR) $(ARGS)

sanitize: build
	scripts/sanitize.sh $(BUILD_DIR)

# Exercises (docs/exercises.md): the first run copies the skeleton to exercises/student/ (never
# over a file that is there); each run builds the chapter with that file in place of the stage
# (in build-exercise/: only that chapter, for this machine's GPU, or without one for the
# architectures of $(BUILD_DIR)) and, on a GPU, runs the stage's checks. SANITIZE=1 adds
# compute-sanitizer.
.PHONY: exercise exercise-list
# The grader's exit code (docs/exercises.md) is said on the last line when it is not 0; GNU make
# then reports "Error <code>" and itself exits with 2, whatever the code was.
GRADE := python3 scripts/exercise.py grade $(CHAPTER) $(STAGE) --reference-build $(BUILD_DIR) \
  -j $(JOBS) $(if $(SANITIZE),--sanitize,) $(if $(CMAKE_ARGS),$(addprefix --cmake-arg=,$(CMAKE_ARGS)),)
exercise:
	@test -n "$(STAGE)" || { echo "usage: make exercise CHAPTER=<chapter> STAGE=<stage> [SANITIZE=1] (make exercise-list)"; exit 2; }
	@echo "$(strip $(GRADE))"; $(GRADE); code=$$?; \
	case $$code in \
	  0) exit 0;; \
	  1) why="RESULT: FAIL, a check did not pass";; \
	  2) why="bad usage: no such exercise, or a bad option";; \
	  3) why="compiled, not checked: no usable GPU";; \
	  4) why="the build failed";; \
	  *) why="see docs/exercises.md";; esac; \
	echo "=> the grader exited with $$code: $$why (make reports it as Error $$code and exits with 2)"; \
	exit $$code

exercise-list:
	@python3 scripts/exercise.py list

format:
	find common chapters tests -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \
	  | xargs clang-format -i

deps:
	@echo "installing with apt-get$(if $(SUDO), through sudo,) (needs root): $(DEPS)"
	$(SUDO) apt-get update && $(SUDO) apt-get install -y --no-install-recommends $(DEPS)

clean:
	rm -rf $(BUILD_DIR)

help:
	@echo "make               configure (preset $(PRESET) of CMakePresets.json) and build everything, every chapter and test (Release; GPU architectures: native if a GPU is visible)"
	@echo "make test          build, then run every test (GPU tests skip without a GPU)"
	@echo "make test-cpu      only the tests that need no GPU"
	@echo "make test-quick    the tests that need no GPU, less those labelled slow (the docs site, the figures, the skeletons' compilation): seconds"
	@echo "make test-gpu      only the GPU tests"
	@echo "make run           build, then run every chapter once with its default options"
	@echo "make run-<chapter> ARGS=\"...\"   build that chapter alone (and what it links), then run it: $(CHAPTERS)"
	@echo "make build-<chapter>   build that chapter alone, without running it"
	@echo "make docs          the Doxygen site in $(BUILD_DIR)/docs/html"
	@echo "make bench         every chapter with the class options -> $(RESULTS)/<gpu>/ (JSON, CSV, output, plots, summary)"
	@echo "make docs-tables   regenerate the README tables from the committed results"
	@echo "make plots         the figures (PNG for slides, SVG for the site) of every results folder -> $(PLOTS_OUT)/<gpu>/"
	@echo "make plots OUT=$(RESULTS)   regenerate the committed figures beside their JSON"
	@echo "make compare GPUS=\"$(RESULTS)/a $(RESULTS)/b\"   the same stages on several GPUs: tables, figures, class.html -> $(COMPARE_OUT)/"
	@echo "make compare GPUS=\"...\" OUT=$(RESULTS)/compare   regenerate the committed comparison"
	@echo "make pack [NAME=you] [RESULTS_DIR=$(RESULTS)/<gpu>]   your make bench folder as one archive to hand in -> $(BUILD_DIR)/"
	@echo "make sanitize      the GPU tests under compute-sanitizer (memcheck, racecheck, synccheck, initcheck)"
	@echo "make profile CHAPTER=reduction   Nsight Compute metrics (the textbook's nvprof ones) as a table"
	@echo "make exercise CHAPTER=reduction STAGE=3 [SANITIZE=1]   write a stage yourself: skeleton in exercises/student/, graded on the GPU"
	@echo "make exercise-list the exercises"
	@echo "make format        clang-format every source file"
	@echo "make deps          install the system packages (Debian/Ubuntu; root or sudo): $(DEPS)"
	@echo "make clean         remove $(BUILD_DIR)"
	@echo "variables, with their current values: BUILD_DIR=$(BUILD_DIR) BUILD_TYPE=$(BUILD_TYPE) PRESET=$(PRESET) JOBS=$(JOBS) CMAKE_ARGS=\"$(CMAKE_ARGS)\" ARGS=\"$(ARGS)\" CHAPTER=$(CHAPTER) RESULTS=$(RESULTS) PLOTS_OUT=$(PLOTS_OUT) COMPARE_OUT=$(COMPARE_OUT)"
	@echo "  for example: make BUILD_TYPE=Debug, make CMAKE_ARGS=\"-DCMAKE_CUDA_ARCHITECTURES=90\", make test PRESET=ci, make run-reduction ARGS=\"--n 2^28\""
