# make build     compile bin/pricewatch (cgo: needs gcc, for SQLite)
# make test      run every test with the race detector
# make loadtest  the shipped load test (issue 30): builds the scale database
#                (internal/scalegen, share 0.25; the first build takes a
#                while), serves it with bin/pricewatch and runs the load
#                profiles on SQLite and PostgreSQL ($PRICEWATCH_TEST_POSTGRES),
#                printing docs/scale.md's table (LOADTEST_FLAGS adds flags)
# make install   install as a systemd service (see systemd/README.md);
#                run as root after `make build`:  make build && sudo make install
#                DESTDIR=/tmp/stage make install  stages the files only

GO ?= go
BIN := bin/pricewatch

.PHONY: build test install loadtest

build:
	$(GO) build -o $(BIN) ./cmd/pricewatch

test:
	$(GO) test -race ./...

loadtest: build
	$(GO) run ./cmd/pricewatch-load -binary $(BIN) -share 0.25 $(LOADTEST_FLAGS)

# No dependency on build: under sudo, Go is often not on PATH and a build
# would leave root-owned files in the tree. install.sh says what to do if
# the binary is missing.
install:
	BINARY=$(BIN) sh systemd/install.sh
