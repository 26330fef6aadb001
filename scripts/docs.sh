#!/usr/bin/env bash
# Builds the book (docs/) with mdBook and its offline link checker, mdbook-linkcheck, both from
# crates.io at pinned versions (installed when missing: about 4 minutes on 2 cores), then shows
# that the checker fails on a planted broken link. The generated pages' staleness is checked by
# `cargo test` (`gpusched docs --check`, tests/cli.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
MDBOOK=0.4.52      # mdbook-linkcheck 0.7.7 speaks mdBook 0.4's renderer protocol
LINKCHECK=0.7.7
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
if ! mdbook --version 2>/dev/null | grep -qx "mdbook v$MDBOOK"; then
  cargo install mdbook --version "=$MDBOOK" --no-default-features --locked -j2
fi
if ! mdbook-linkcheck --version 2>/dev/null | grep -qx "mdbook-linkcheck $LINKCHECK"; then
  cargo install mdbook-linkcheck --version "=$LINKCHECK" --locked -j2
fi
mdbook build docs
echo "book: docs/book/html/index.html"
# The planted link: a copy of the book beside docs/ (so that its links out of the book, such as
# ../../sim/src/block.rs, resolve as they do from docs/) with one page linking to a missing one.
planted=.docs-planted
rm -rf "$planted"
trap 'rm -rf "$planted"' EXIT
cp -r docs "$planted"
rm -rf "$planted/book"
printf '\nSee [a page that is not there](no-such-page.md).\n' >> "$planted/src/introduction.md"
if out=$(mdbook build "$planted" 2>&1); then
  echo "the link checker passed a book with a broken link" >&2
  exit 1
fi
if ! grep -q "no-such-page.md" <<<"$out"; then
  echo "the link checker failed, but not on the planted link:" >&2
  echo "$out" >&2
  exit 1
fi
echo "link checker: the planted broken link is caught"
