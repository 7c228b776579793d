# OpenBench / fastchess style build: `make` builds the release binary; `make EXE=ox88-dev`
# also copies it to ./ox88-dev. `make native` builds with -C target-cpu=native (not portable:
# the binary may not run on an older CPU). The default build is portable.

CARGO ?= cargo
TARGET_DIR ?= $(or $(CARGO_TARGET_DIR),target)
BIN := $(TARGET_DIR)/release/ox88

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
