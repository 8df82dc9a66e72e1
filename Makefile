# gpbandit — the two commands of the README:
#   make demo   install missing Debian packages, build Release, run the default experiment
#   make test   same set-up, then the whole test suite (GPU tests skip without a GPU)
#   make docs   API documentation (Doxygen) into $(BUILD)/docs/html
BUILD      ?= build
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
DEMO_OUT   ?= results/demo
MAKEFLAGS  += --no-print-directory

DEB_PACKAGES := build-essential cmake pkg-config libeigen3-dev libcli11-dev nlohmann-json3-dev \
                libgtest-dev libgmock-dev libbenchmark-dev python3 python3-numpy python3-matplotlib \
                python3-dev python3-pytest pybind11-dev doxygen graphviz \
                libsvm-dev \
                openmpi-bin libopenmpi-dev \
                liblbfgspp-dev

.PHONY: all deps configure build demo test bench docs clean

all: build

deps:
	@bash tools/install_deps.sh $(DEB_PACKAGES)

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_ARGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

demo: build
	@./$(BUILD)/gpbandit run examples/demo.json --out $(DEMO_OUT)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	@./$(BUILD)/bench/bench_posterior --benchmark_counters_tabular=true

GPB_VERSION := $(shell awk '/^project.gpbandit VERSION/ {print $$3}' CMakeLists.txt)
docs: deps
	@mkdir -p $(BUILD)/docs
	@GPB_VERSION=$(GPB_VERSION) GPB_DOCS_OUT=$(BUILD)/docs \
	  GPB_HAVE_DOT=$$(command -v dot >/dev/null && echo YES || echo NO) doxygen docs/Doxyfile
	@echo "docs: $(BUILD)/docs/html/index.html ($$(wc -l < $(BUILD)/docs/warnings.log) warning lines," \
	  "$(BUILD)/docs/warnings.log)"

clean:
	@rm -rf $(BUILD)
