# make build     compile bin/pricewatch (cgo: needs gcc, for SQLite)
# make test      run every test with the race detector
# make install   install as a systemd service (see systemd/README.md);
#                run as root after `make build`:  make build && sudo make install
#                DESTDIR=/tmp/stage make install  stages the files only

GO ?= go
BIN := bin/pricewatch

.PHONY: build test install

build:
	$(GO) build -o $(BIN) ./cmd/pricewatch

test:
	$(GO) test -race ./...

# No dependency on build: under sudo, Go is often not on PATH and a build
# would leave root-owned files in the tree. install.sh says what to do if
# the binary is missing.
install:
	BINARY=$(BIN) sh systemd/install.sh
