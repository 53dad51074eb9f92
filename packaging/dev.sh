#!/usr/bin/env bash
# One entry point for a fresh Debian 12 machine (run as root, or with sudo):
#   packaging/dev.sh gui    install packages, build (release), open the GUI on the bundled sample
#   packaging/dev.sh test   install packages, build (release with its tests, warnings as errors), run every test
#   packaging/dev.sh deb    install packages, build (release), make build/release/steadyscope_<version>_amd64.deb
#   packaging/dev.sh deps   install packages only
# Everything comes from Debian's apt; nothing is downloaded at build time.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++ pkg-config ccache python3 lld
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev  # (libqt6charts6-dev is a virtual name qt6-charts-dev provides)
  libsimdjson-dev libfmt-dev libisal-dev zlib1g-dev libzstd-dev libssl-dev
  xvfb xauth
  clang libclang-rt-14-dev  # the fuzz targets (.ci/run, docs/ROBUSTNESS.md)
  poppler-utils  # pdftotext, pdfinfo: the report tests (tests/app/tst_export_window.cpp)
  parallel  # docs/cluster.md's GNU parallel recipe (test cli_cluster_parallel_recipe)
  # the .deb and its checks (packaging/check_deb.sh)
  dpkg-dev file help2man lintian desktop-file-utils appstream shared-mime-info libglib2.0-bin
)

install_deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "steadyscope: installing ${missing[*]}" >&2
    local sudo=()
    [[ $(id -u) -ne 0 ]] && sudo=(sudo)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

jobs() { nproc 2>/dev/null || echo 2; }

case "${1:-}" in
  deps)
    install_deps
    ;;
  gui)
    install_deps
    cmake --preset release -DSTEADYSCOPE_BUILD_TESTS=OFF >/dev/null
    cmake --build --preset release -j "$(jobs)" --target steadyscope steadyscope-cli
    shift
    exec build/release/app/gui/steadyscope "${@:-resources/sample/vllm_sample.json.gz}"
    ;;
  deb)
    install_deps
    cmake --preset release -DSTEADYSCOPE_BUILD_TESTS=OFF >/dev/null
    cmake --build --preset release -j "$(jobs)"
    (cd build/release && cpack -G DEB)
    ;;
  test)
    install_deps
    # The suite runs on the build that ships (the .deb's tree, D-074); the ASan step and
    # the `dev` preset keep assertions on.
    cmake --preset release -DSTEADYSCOPE_BUILD_TESTS=ON >/dev/null
    cmake --build --preset release -j "$(jobs)"
    ctest --preset release -j "$(jobs)" --timeout 1200
    ;;
  *)
    echo "usage: packaging/dev.sh gui|test|deb|deps" >&2
    exit 2
    ;;
esac
