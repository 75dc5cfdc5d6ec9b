# Shared by scripts/start and scripts/test: install what a fresh Debian 12 machine lacks, idempotently.
# Source it, then call need_debian_packages / need_node_modules. Fast when everything is already there.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export NODE_PATH=/usr/share/nodejs  # emscripten 3.1.6 needs Debian's acorn; the preinstalled node does not look there

log() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# The native SIMD level when MHA_NATIVE_SIMD is not set: avx512 where this CPU has AVX-512F, else avx2. So on such a
# machine the main native build (build/native) runs the 16-lane kernels and the ASan build (scripts/test, which
# keeps avx2) the 8-lane ones: both paths are tested in every run of scripts/test.
default_native_simd() {
  if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then echo avx512; else echo avx2; fi
}

# the packages the build needs everywhere
BUILD_PACKAGES=(cmake make g++ emscripten libxtensor-dev libxsimd-dev catch2 wabt)
# and those only the tests need (python3-torch: the checkpoint interop test loads our files in PyTorch;
# libopenblas0-pthread: without it Debian's torch falls back to the reference BLAS, ~10x slower, for the bench)
TEST_PACKAGES=(chromium python3 python3-torch libopenblas0-pthread)
# and the fuzz targets (scripts/fuzz, scripts/test): clang with libFuzzer; the runtime that -fsanitize=fuzzer links
# (libclang_rt.fuzzer) is in libclang-rt-14-dev, which clang-14 only recommends, so it is named here
FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev libfuzzer-14-dev)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

need_debian_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  command -v node >/dev/null 2>&1 || missing+=(nodejs npm)
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# npm ci from the committed lock file, again only when the lock file changed
need_node_modules() {
  local stamp="$ROOT/node_modules/.lock-stamp"
  if [ ! -f "$stamp" ] || ! cmp -s "$ROOT/package-lock.json" "$stamp"; then
    log "installing npm packages from package-lock.json"
    (cd "$ROOT" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$ROOT/package-lock.json" "$stamp"
  fi
}
