# The two commands of the README: `make demo` and `make test`. Both install what is missing (Debian 12, as root),
# configure with Ninja, build with two jobs and ccache, then run.
BUILD ?= build
JOBS ?= 2
DEMO_LEVEL ?= O2
CMAKE_FLAGS ?=

# Debian 12 packages: build tools, the libraries Kiln links, and what the tests read (libonnx-testdata,
# python3-onnx for the model generator used by benchmarks and the demo's sample).
PACKAGES := cmake ninja-build g++ ccache pkg-config \
  libonnx-dev libprotobuf-dev protobuf-compiler libyaml-cpp-dev libspdlog-dev libboost-dev \
  libcli11-dev nlohmann-json3-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev \
  libmimalloc-dev libonnx-testdata python3-onnx python3-numpy

export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_NOHASHDIR := 1
export CCACHE_MAXSIZE ?= 5G

# `make fuzz`: the libFuzzer harnesses of tests/fuzz, built with clang, ASan and UBSan in their own folder, each run
# for FUZZ_SECONDS on seed corpora (bench/fuzz/run.sh; bench/fuzz/README.md has a longer run's counts).
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 300
FUZZ_PACKAGES := clang clang-14 libclang-rt-14-dev
FUZZ_TARGETS := model_loader_fuzzer pipeline_loader_fuzzer fusion_pack_fuzzer compile_diff_fuzzer

.PHONY: all install build demo test bench fuzz fuzz-install fuzz-build clean

all: build

install:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing:" $$missing; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS)

build: install $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@mkdir -p $(BUILD)/demo
	$(BUILD)/bin/kiln info examples/sample/model.onnx
	$(BUILD)/bin/kiln compile examples/sample/model.onnx -o $(BUILD)/demo/model.opt.onnx \
	  --oo.level=$(DEMO_LEVEL) --report $(BUILD)/demo/report.json
	@echo "--- report ($(BUILD)/demo/report.json)"
	@cat $(BUILD)/demo/report.json

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

bench: build
	bench/run_all.sh $(BUILD)

fuzz-install: install
	$(MAKE) install PACKAGES="$(FUZZ_PACKAGES)"

$(FUZZ_BUILD)/build.ninja: | fuzz-install
	cmake -S . -B $(FUZZ_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
	  -DCMAKE_CXX_COMPILER=clang++ -DKILN_FUZZ=ON -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_BENCH=OFF $(CMAKE_FLAGS)

fuzz-build: fuzz-install $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZ_TARGETS) kiln_kernels

fuzz: fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) bench/fuzz/run.sh

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)
