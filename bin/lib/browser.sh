# shellcheck shell=bash
# Sourced by bin/test, after bin/lib/containers.sh (whose package installer it reuses). Sets up what the browser tests
# need (dev.gantry.testkit.Browser and Accessibility): Debian's Chromium at /usr/bin/chromium, which Playwright drives
# instead of the browsers it would download (that download cannot reach the internet here), a font so that pages and
# the docs' screenshots render the same on every machine, and axe-core's axe.min.js from the npm registry, kept in
# $HOME/.cache/gantry/axe-core-VERSION/ and checked against its pinned SHA-256.
#
# gantry_browser_setup exports GANTRY_CHROMIUM and GANTRY_AXE_JS. It is idempotent and, when everything is there,
# takes a few milliseconds and reaches no network. Written for callers under set -euo pipefail; messages go to stderr.
# A GANTRY_CHROMIUM or GANTRY_AXE_JS already set is used as it is, after checking that it exists. Installing needs
# root (apt-get); others are told what to install.

# Keep in step with Accessibility.AXE_VERSION in gantry-testkit (BrowserSetupTest checks it).
GANTRY_AXE_VERSION=4.14.1
GANTRY_AXE_SHA256=29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c
GANTRY_BROWSER_CHROMIUM=/usr/bin/chromium
# file:package, as gantry_containers_need_tools takes them. Without recommends: chromium-common's pull in a desktop
# (upower, udev, mesa, a notification daemon). DejaVu is the font the screenshots are taken with.
GANTRY_BROWSER_PACKAGES=("$GANTRY_BROWSER_CHROMIUM:chromium"
  /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf:fonts-dejavu-core)

gantry_browser_log() {
  echo "gantry-browser: $*" >&2
}

gantry_browser_fail() {
  gantry_browser_log "$*"
  return 1
}

gantry_browser_axe_dir() {
  echo "$HOME/.cache/gantry/axe-core-$GANTRY_AXE_VERSION"
}

# Exports GANTRY_CHROMIUM: the one given, else Debian's, installed (as root) when missing.
gantry_browser_chromium() {
  if [ -n "${GANTRY_CHROMIUM:-}" ]; then
    [ -x "$GANTRY_CHROMIUM" ] || gantry_browser_fail "GANTRY_CHROMIUM=$GANTRY_CHROMIUM is not an executable file"
    return
  fi
  gantry_containers_need_tools --no-install-recommends "${GANTRY_BROWSER_PACKAGES[@]}" ||
    gantry_browser_fail "browser tests need Chromium at $GANTRY_BROWSER_CHROMIUM (install it as above, or set \
GANTRY_NO_BROWSER=1 to skip this set-up; the browser tests then fail)" || return
  [ -x "$GANTRY_BROWSER_CHROMIUM" ] ||
    gantry_browser_fail "apt-get installed chromium but there is no $GANTRY_BROWSER_CHROMIUM" || return
  export GANTRY_CHROMIUM=$GANTRY_BROWSER_CHROMIUM
}

# Succeeds when file $1 has the pinned SHA-256 of axe.min.js.
gantry_browser_axe_ok() {
  [ -s "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$GANTRY_AXE_SHA256" ]
}

# Writes axe-core's npm tarball into directory $1: with npm (which follows the user's .npmrc: registry, proxy), else
# straight from the registry with curl.
gantry_browser_axe_download() {
  local dir=$1 registry=${npm_config_registry:-https://registry.npmjs.org}
  if command -v npm >/dev/null 2>&1; then
    (cd "$dir" && npm pack --silent "axe-core@$GANTRY_AXE_VERSION" >/dev/null </dev/null)
  else
    gantry_containers_need_tools curl:curl &&
      curl -sSf --max-time 120 -o "$dir/axe-core-$GANTRY_AXE_VERSION.tgz" \
        "${registry%/}/axe-core/-/axe-core-$GANTRY_AXE_VERSION.tgz"
  fi
}

# Exports GANTRY_AXE_JS: the one given, else the cached axe.min.js, fetched from the npm registry when missing or not
# the pinned file. Files are renamed into place, so concurrent set-ups never see half a file.
gantry_browser_axe() {
  local dir file work rc=0
  if [ -n "${GANTRY_AXE_JS:-}" ]; then
    [ -s "$GANTRY_AXE_JS" ] || gantry_browser_fail "GANTRY_AXE_JS=$GANTRY_AXE_JS is missing or empty"
    return
  fi
  dir=$(gantry_browser_axe_dir)
  file=$dir/axe.min.js
  if ! gantry_browser_axe_ok "$file"; then
    gantry_browser_log "fetching axe-core $GANTRY_AXE_VERSION from the npm registry into $dir"
    mkdir -p "$dir"
    work=$(mktemp -d "$dir/.fetch.XXXXXX")
    {
      gantry_browser_axe_download "$work" &&
        tar -xzf "$work/axe-core-$GANTRY_AXE_VERSION.tgz" -C "$work" package/axe.min.js package/LICENSE &&
        gantry_browser_axe_ok "$work/package/axe.min.js" &&
        mv -f "$work/package/LICENSE" "$dir/LICENSE" &&
        mv -f "$work/package/axe.min.js" "$file"
    } || rc=$?
    rm -rf "$work"
    [ "$rc" = 0 ] || gantry_browser_fail "could not get axe-core $GANTRY_AXE_VERSION with SHA-256 $GANTRY_AXE_SHA256 \
(npm pack axe-core@$GANTRY_AXE_VERSION; see above)" || return
  fi
  export GANTRY_AXE_JS=$file
}

# Everything: Chromium, its font and axe-core. Exports GANTRY_CHROMIUM and GANTRY_AXE_JS.
gantry_browser_setup() {
  gantry_browser_chromium && gantry_browser_axe
}
