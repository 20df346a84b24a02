#!/usr/bin/env bash
# Quick start: installs the build's Debian packages, builds rtcosim (Release),
# installs the library, headers, pkg-config file, example models, the
# `rtcosim` CLI and the Python package (for /usr/bin/python3) under /usr/local,
# then runs the built-in demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build/install -G Ninja -DCMAKE_BUILD_TYPE=Release -DRTCOSIM_TESTS=OFF \
  -DCMAKE_INSTALL_PREFIX=/usr/local >/dev/null
cmake --build build/install -j "$(nproc)"
cmake --install build/install >/dev/null
ldconfig
echo "installed: $(command -v rtcosim) ($(rtcosim --version)); pkg-config: $(pkg-config --libs rtcosim)"
/usr/bin/python3 -c "import rtcosim; print('python: rtcosim', rtcosim.__version__, 'in', rtcosim.__file__)"
rtcosim demo
