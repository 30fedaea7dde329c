# Thin wrapper over CMake/CTest for the common tasks. `make help` lists the targets.
BUILD_DIR   ?= build
BUILD_TYPE  ?= Release
CMAKE_ARGS  ?=
JOBS        ?= $(shell nproc 2>/dev/null || echo 2)
ARGS        ?=
# Chapters in course order: folder name -> executable name.
CHAPTERS    := execution_model divergence reduction nested_reduction histogram streams multi_gpu
GENERATOR   := $(if $(shell command -v ninja 2>/dev/null),-G Ninja,)
CTEST       := ctest --test-dir $(BUILD_DIR) --output-on-failure
# A Python that has matplotlib, for the plots (Debian's python3-matplotlib lives in /usr/bin/python3).
PLOT_PYTHON ?= $(shell for p in python3 /usr/bin/python3; do $$p -c 'import matplotlib' 2>/dev/null && echo $$p && break; done)
RESULTS     ?= docs/results
CHAPTER     ?= reduction

.PHONY: all build configure test test-cpu test-gpu run $(addprefix run-,$(CHAPTERS)) docs \
        docs-tables plots compare bench sanitize profile clean deps format help

all: build

# Configures on the first build, and again whenever CMAKE_ARGS is given or BUILD_TYPE differs
# from the cached one (so `make CMAKE_ARGS=-DCMAKE_CUDA_ARCHITECTURES=86` takes effect).
configure:
	@if [ ! -f $(BUILD_DIR)/CMakeCache.txt ] || [ -n "$(CMAKE_ARGS)" ] || \
	    ! grep -q "^CMAKE_BUILD_TYPE:STRING=$(BUILD_TYPE)$$" $(BUILD_DIR)/CMakeCache.txt; then \
	  cmake -S . -B $(BUILD_DIR) $(GENERATOR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) $(CMAKE_ARGS); \
	fi

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	$(CTEST) -j $(JOBS)

test-cpu: build
	$(CTEST) -j $(JOBS) -L cpu

test-gpu: build
	$(CTEST) -L gpu

run: build
	@status=0; for chapter in $(CHAPTERS); do \
	  if [ -x $(BUILD_DIR)/bin/$$chapter ]; then \
	    echo; echo "######## $$chapter ########"; \
	    $(BUILD_DIR)/bin/$$chapter || status=$$?; \
	  fi; \
	done; exit $$status

$(addprefix run-,$(CHAPTERS)): run-%: build
	$(BUILD_DIR)/bin/$* $(ARGS)

docs: configure
	cmake --build $(BUILD_DIR) --target docs
	@echo "open $(BUILD_DIR)/docs/html/index.html"

docs-tables:
	python3 scripts/results_tables.py

plots:
	@test -n "$(PLOT_PYTHON)" || { echo "matplotlib not found: make deps"; exit 2; }
	for dir in $(RESULTS)/*/; do $(PLOT_PYTHON) scripts/plot_results.py plot $$dir; done

compare:
	@test -n "$(PLOT_PYTHON)" || { echo "matplotlib not found: make deps"; exit 2; }
	@test -n "$(GPUS)" || { echo 'usage: make compare GPUS="docs/results/a docs/results/b" [OUT=dir]'; exit 2; }
	$(PLOT_PYTHON) scripts/plot_results.py compare $(GPUS) --out $(or $(OUT),$(RESULTS)/compare)

bench: build
	scripts/bench.sh $(BUILD_DIR) $(RESULTS)
	python3 scripts/results_tables.py

profile: build
	scripts/profile.sh $(CHAPTER) $(BUILD_DIR) $(ARGS)

sanitize: build
	scripts/sanitize.sh $(BUILD_DIR)

format:
	find common chapters tests -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.cuh' \
	  | xargs clang-format -i

deps:
	apt-get update && apt-get install -y --no-install-recommends \
	  cmake ninja-build g++ libgtest-dev libcli11-dev doxygen graphviz python3 python3-matplotlib

clean:
	rm -rf $(BUILD_DIR)

help:
	@echo "make               configure and build everything (Release; GPU architectures: native if a GPU is visible)"
	@echo "make test          build, then run every test (GPU tests skip without a GPU)"
	@echo "make test-cpu      only the tests that need no GPU"
	@echo "make test-gpu      only the GPU tests"
	@echo "make run           build, then run every chapter once with its default options"
	@echo "make run-<chapter> ARGS=\"...\"   run one chapter: $(CHAPTERS)"
	@echo "make docs          the Doxygen site in $(BUILD_DIR)/docs/html"
	@echo "make bench         every chapter with the class options -> $(RESULTS)/<gpu>/ (JSON, CSV, output, plots, summary)"
	@echo "make docs-tables   regenerate the README tables from the committed results"
	@echo "make plots         bar charts (PNG, SVG) for every results folder"
	@echo "make compare GPUS=\"$(RESULTS)/a $(RESULTS)/b\"   the same stages on several GPUs, side by side"
	@echo "make sanitize      the GPU tests under compute-sanitizer (memcheck, racecheck, synccheck, initcheck)"
	@echo "make profile CHAPTER=reduction   Nsight Compute metrics (the textbook's nvprof ones) as a table"
	@echo "make format        clang-format every source file"
	@echo "make deps          install the system packages (Debian/Ubuntu, as root)"
	@echo "make clean         remove $(BUILD_DIR)"
	@echo "variables: BUILD_DIR=$(BUILD_DIR) BUILD_TYPE=$(BUILD_TYPE) JOBS=$(JOBS) CMAKE_ARGS=\"-DCMAKE_CUDA_ARCHITECTURES=90\""
