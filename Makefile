# OpenBench / fastchess style build: `make` builds the release binary; `make EXE=ox88-dev`
# also copies it to ./ox88-dev. `make native` builds with -C target-cpu=native (not portable:
# the binary may not run on an older CPU). The default build is portable.
# `make EVALFILE=path/to/net.nnue` embeds that network instead of the default one of nets/
# (OpenBench passes EVALFILE); the file must be a network file ox88 can read.

CARGO ?= cargo
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)
BIN := $(TARGET_DIR)/release/ox88

# Made absolute here: the build script takes a relative path from the package's root.
ifneq ($(strip $(EVALFILE)),)
export OX88_EVALFILE := $(abspath $(EVALFILE))
endif

.PHONY: all release native clean

all: release

release:
	$(CARGO) build --release --bin ox88
ifdef EXE
	cp $(BIN) $(EXE)
endif

native:
	RUSTFLAGS="$(RUSTFLAGS) -C target-cpu=native" $(CARGO) build --release --bin ox88
ifdef EXE
	cp $(BIN) $(EXE)
endif

clean:
	$(CARGO) clean
