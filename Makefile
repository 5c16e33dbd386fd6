# SnapSort — the two commands a newcomer needs: `make run` and `make test`.
SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= debug
BUILD_FLAGS ?=
BIN = .build/$(CONFIG)/snapsort

.PHONY: all deps build release run test clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	$(SWIFT) build -c $(CONFIG) $(BUILD_FLAGS)

release:
	$(MAKE) build CONFIG=release

# The main job: scan the user's photos (XDG_PICTURES_DIR), or the demo library when there are none.
run: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)
	@scripts/run.sh .build/release/snapsort

# Every test: unit and integration tests against real components.
test: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	$(SWIFT) test --skip-build --parallel --num-workers 2 $(TEST_FLAGS)

clean:
	rm -rf .build
