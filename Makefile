# SnapSort — the two commands a newcomer needs: `make run` and `make test`.
SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= debug
BUILD_FLAGS ?=
BIN = .build/$(CONFIG)/snapsort

VERSION = 0.1.0
DESTDIR ?=
# `make install PREFIX=~/.local` from a shell that leaves the ~ alone (zsh, dash) still means $HOME,
# and a trailing slash does not hide the .local below.
override PREFIX := $(patsubst ~/%,$(HOME)/%,$(patsubst %/,%,$(PREFIX)))
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
# systemd looks for user units in <prefix>/lib/systemd/user, and for ~/.local in ~/.local/share/systemd/user.
ifeq ($(notdir $(PREFIX)),.local)
USERUNITDIR ?= $(DATADIR)/systemd/user
else
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
endif
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR ?= $(DATADIR)/fish/vendor_completions.d
# The installed binary: optimized, the Swift runtime linked statically (no dependency on the
# toolchain's folder), no $ORIGIN rpath, full RELRO. The .deb, the PKGBUILD and the spec build it
# with `make release-static RELEASE_SCRATCH=…` and install it with `make install-files`.
RELEASE_SCRATCH ?= .build
RELEASE_COMMON = -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now
RELEASE_FLAGS = $(RELEASE_COMMON) --product snapsort
INSTALLED_BIN ?= $(RELEASE_SCRATCH)/release/snapsort
# The vision helper (dlib; the local models of tier 2) runs as snapsort's child from libexec.
INSTALLED_VISION ?= $(RELEASE_SCRATCH)/release/snapsort-vision
LIBEXECDIR ?= $(PREFIX)/libexec

.PHONY: all deps build release release-static run test format clean install install-files uninstall deb package-check

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

# Suites to leave out, as a regular expression (e.g. SKIP_TESTS='WebBrowserTests' on a machine
# without chromium); empty runs all.
SKIP_TESTS ?=

# The package check (scripts/check-package.sh: build the .deb, lintian, dpkg -i, verify, purge,
# make install/uninstall) runs as root, as in CI, and adds about 3 minutes on 2 cores;
# PACKAGE_CHECK=0 skips it.
PACKAGE_CHECK ?= 1

# Formats every Swift file (.swift-format); `make test` fails on a file that differs.
format:
	SWIFT=$(SWIFT) scripts/format.sh

# Every test: the format check, unit and integration tests against real components, then the
# package check.
test: deps
	SWIFT=$(SWIFT) scripts/format.sh --lint
	SWIFT=$(SWIFT) scripts/build-checked.sh --build-tests $(BUILD_FLAGS)
	$(SWIFT) test --skip-build $(if $(SKIP_TESTS),--skip "$(SKIP_TESTS)") $(TEST_FLAGS)
	@if [ "$(PACKAGE_CHECK)" = 1 ]; then scripts/check-package.sh $(VERSION); else echo "package check skipped (PACKAGE_CHECK=$(PACKAGE_CHECK))"; fi

# The binary `make install` and the packages install (see RELEASE_FLAGS).
release-static:
	$(SWIFT) build $(RELEASE_FLAGS) --scratch-path $(RELEASE_SCRATCH) $(BUILD_FLAGS)
	$(SWIFT) build $(RELEASE_COMMON) --product snapsort-vision --scratch-path $(RELEASE_SCRATCH) $(BUILD_FLAGS)

# Install from source: a release build with the Swift runtime linked statically.
install: deps
	$(MAKE) release-static
	$(MAKE) install-files
	@echo "Installed. Enable the service with: systemctl --user daemon-reload && systemctl --user enable --now snapsort"

# The shipped data in $(DATADIR)/snapsort: demo sources, the web page, models.
SHIPPED_DATA = demo web models

# Copies the built binary and shipped files (used by install, the .deb, the PKGBUILD and the spec).
install-files:
	install -D -m 0755 $(INSTALLED_BIN) $(DESTDIR)$(BINDIR)/snapsort
	install -D -m 0755 $(INSTALLED_VISION) $(DESTDIR)$(LIBEXECDIR)/snapsort/snapsort-vision
	install -d $(DESTDIR)$(USERUNITDIR)
	sed 's|@bindir@|$(BINDIR)|g' systemd/snapsort.service.in > $(DESTDIR)$(USERUNITDIR)/snapsort.service
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/snapsort.service
	install -d $(DESTDIR)$(DATADIR)/snapsort
	for d in $(SHIPPED_DATA); do \
	    if [ -d share/$$d ]; then cp -R share/$$d $(DESTDIR)$(DATADIR)/snapsort/; fi; \
	done
	chmod -R u+rwX,go+rX,go-w $(DESTDIR)$(DATADIR)/snapsort
	install -D -m 0644 share/man/snapsort.1 $(DESTDIR)$(MANDIR)/man1/snapsort.1
	install -D -m 0644 share/man/snapsort.conf.5 $(DESTDIR)$(MANDIR)/man5/snapsort.conf.5
	install -D -m 0644 share/completions/snapsort.bash $(DESTDIR)$(BASHCOMPDIR)/snapsort
	install -D -m 0644 share/completions/_snapsort $(DESTDIR)$(ZSHCOMPDIR)/_snapsort
	install -D -m 0644 share/completions/snapsort.fish $(DESTDIR)$(FISHCOMPDIR)/snapsort.fish
	install -D -m 0644 share/applications/snapsort.desktop $(DESTDIR)$(DATADIR)/applications/snapsort.desktop
	@# SnapSort's icon and its tray states (TrayIcon): a scalable SVG and PNGs at 16–48 px each.
	cd share/icons && find hicolor -type f | while IFS= read -r f; do \
	    install -D -m 0644 "$$f" "$(DESTDIR)$(DATADIR)/icons/$$f" || exit 1; \
	done

# Removes what install-files installed (the service's enable links are the user's: disable it first).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/snapsort $(DESTDIR)$(USERUNITDIR)/snapsort.service
	rm -f $(DESTDIR)$(LIBEXECDIR)/snapsort/snapsort-vision
	rmdir $(DESTDIR)$(LIBEXECDIR)/snapsort 2>/dev/null || true
	@# File by file, never rm -rf: with PREFIX=~/.local, $(DATADIR)/snapsort is also the user's
	@# $$XDG_DATA_HOME/snapsort, where `snapsort demo` writes its library.
	for d in $(SHIPPED_DATA); do \
	    if [ -d share/$$d ]; then \
	        (cd share && find $$d ! -type d) | while IFS= read -r f; do rm -f "$(DESTDIR)$(DATADIR)/snapsort/$$f"; done; \
	        (cd share && find $$d -depth -type d) | while IFS= read -r f; do rmdir "$(DESTDIR)$(DATADIR)/snapsort/$$f" 2>/dev/null || true; done; \
	    fi; \
	done
	rmdir $(DESTDIR)$(DATADIR)/snapsort 2>/dev/null || true
	rm -f $(DESTDIR)$(MANDIR)/man1/snapsort.1 $(DESTDIR)$(MANDIR)/man5/snapsort.conf.5
	rm -f $(DESTDIR)$(BASHCOMPDIR)/snapsort $(DESTDIR)$(ZSHCOMPDIR)/_snapsort $(DESTDIR)$(FISHCOMPDIR)/snapsort.fish
	rm -f $(DESTDIR)$(DATADIR)/applications/snapsort.desktop
	cd share/icons && find hicolor -type f | while IFS= read -r f; do rm -f "$(DESTDIR)$(DATADIR)/icons/$$f"; done

# A Debian package: packaging/debian copied to ./debian in a scratch tree, built with dpkg-buildpackage.
deb: deps
	scripts/build-deb.sh $(VERSION)

# Builds the .deb, installs it, checks it, purges it (CI; needs root).
package-check: deps
	scripts/check-package.sh $(VERSION)

clean:
	rm -rf .build
