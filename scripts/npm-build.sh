#!/usr/bin/env bash
# Build toolnorm's npm packages, laid out like Biome's: the `toolnorm` package (a Node launcher,
# packaging/npm/toolnorm/) whose optionalDependencies name one package per platform, and the platform
# package `@toolnorm/cli-<os>-<cpu>[-musl]` holding the native binary, with `os`, `cpu` (and on
# Linux `libc`) fields so npm installs only the one that fits.
#
#   scripts/npm-build.sh [--binary PATH] [--platform KEY] [--out DIR]
#
# --binary    the binary to package (default: `cargo build --profile dist --no-default-features
#             --features cli`, then target/dist/toolnorm)
# --platform  the platform it was built for: linux-x64, linux-arm64, linux-x64-musl,
#             linux-arm64-musl, darwin-x64, darwin-arm64 (default: this machine's)
# --out       where the two package folders go (default: target/npm): DIR/toolnorm and
#             DIR/cli-<platform>; `npm pack` or `npm publish` each. The binary is packaged
#             stripped; its debug info goes to DIR/debug-<platform>/ (not published on npm).
#
# One run packages one platform. A release builds every platform on its own runner (or with a
# cross toolchain: `cargo build --release --target aarch64-unknown-linux-musl`), runs this script
# there with --binary and --platform, publishes each `cli-<platform>` folder, then publishes the
# `toolnorm` folder last (it is the same from every run). docs/npm.md describes the release.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=""
platform=""
out="target/npm"
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary="$2"; shift 2 ;;
        --platform) platform="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "npm-build: unknown argument $1" >&2; exit 2 ;;
    esac
done

all_platforms="linux-x64 linux-arm64 linux-x64-musl linux-arm64-musl darwin-x64 darwin-arm64"

if [ -z "$platform" ]; then
    case "$(uname -s)" in
        Linux) os=linux ;;
        Darwin) os=darwin ;;
        *) echo "npm-build: no npm platform for $(uname -s) (toolnorm needs a Unix)" >&2; exit 2 ;;
    esac
    case "$(uname -m)" in
        x86_64|amd64) cpu=x64 ;;
        aarch64|arm64) cpu=arm64 ;;
        *) echo "npm-build: no npm platform for CPU $(uname -m)" >&2; exit 2 ;;
    esac
    platform="$os-$cpu"
    if [ "$os" = linux ] && ldd --version 2>&1 | grep -qi musl; then
        platform="$platform-musl"
    fi
fi
case " $all_platforms " in
    *" $platform "*) ;;
    *) echo "npm-build: unknown platform $platform (one of: $all_platforms)" >&2; exit 2 ;;
esac

if [ -z "$binary" ]; then
    # The npm binaries leave out the HTTPS page server of `scenario run` (feature `https-pages`:
    # rustls, ring, rcgen), which only the Claude scenarios with pages use (docs/npm.md).
    # The shipped profile (`dist` in Cargo.toml: fat LTO, one code generation unit).
    cargo build --profile dist --locked --no-default-features --features cli
    binary="${CARGO_TARGET_DIR:-target}/dist/toolnorm"
fi
if [ ! -x "$binary" ]; then
    echo "npm-build: $binary is not an executable file" >&2
    exit 2
fi

version="$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)"
if [ -z "$version" ]; then
    echo "npm-build: no version in Cargo.toml" >&2
    exit 2
fi

main="$out/toolnorm"
plat="$out/cli-$platform"
rm -rf "$main" "$plat"
mkdir -p "$main/bin" "$plat"

# The launcher package: its version, and every platform package at the same version.
cp packaging/npm/toolnorm/bin/toolnorm.js "$main/bin/toolnorm.js"
chmod 755 "$main/bin/toolnorm.js"
cp packaging/npm/toolnorm/README.md "$main/README.md"
VERSION="$version" PLATFORMS="$all_platforms" node -e '
const fs = require("fs");
const pkg = JSON.parse(fs.readFileSync("packaging/npm/toolnorm/package.json", "utf8"));
pkg.version = process.env.VERSION;
pkg.optionalDependencies = {};
for (const p of process.env.PLATFORMS.split(" ")) {
  pkg.optionalDependencies[`@toolnorm/cli-${p}`] = process.env.VERSION;
}
fs.writeFileSync(process.argv[1], JSON.stringify(pkg, null, 2) + "\n");
' "$main/package.json"

# The platform package: the binary, stripped, and the fields npm matches the machine with. The
# debug info (line tables: file and line in backtraces) is kept beside the packages, not in them:
# DIR/debug-<platform>/toolnorm.debug (Linux; the binary names it in its .gnu_debuglink) or
# toolnorm.dSYM (macOS). docs/npm.md says how to use it.
debug="$out/debug-$platform"
rm -rf "$debug"
mkdir -p "$debug"
case "$platform" in
    darwin-*)
        cp "$binary" "$plat/toolnorm"
        if command -v dsymutil >/dev/null 2>&1; then
            dsymutil "$binary" -o "$debug/toolnorm.dSYM"
        fi
        ${STRIP:-strip} -S -x "$plat/toolnorm"
        ;;
    *)
        objcopy=${OBJCOPY:-objcopy}
        if ! command -v "$objcopy" >/dev/null 2>&1; then
            echo "npm-build: $objcopy not found (binutils; or set OBJCOPY, e.g. llvm-objcopy): the binary must ship stripped" >&2
            exit 2
        fi
        "$objcopy" --only-keep-debug "$binary" "$debug/toolnorm.debug"
        "$objcopy" --strip-all --add-gnu-debuglink="$debug/toolnorm.debug" "$binary" "$plat/toolnorm"
        ;;
esac
chmod 755 "$plat/toolnorm"
VERSION="$version" PLATFORM="$platform" node -e '
const fs = require("fs");
const [os, cpu, libc] = process.env.PLATFORM.split("-");
const pkg = {
  name: `@toolnorm/cli-${process.env.PLATFORM}`,
  version: process.env.VERSION,
  description: `The toolnorm binary for ${process.env.PLATFORM} (installed by the toolnorm package)`,
  license: "MIT OR Apache-2.0",
  os: [os],
  cpu: [cpu],
  files: ["toolnorm", "README.md"],
  preferUnplugged: true,
};
if (os === "linux") pkg.libc = [libc === "musl" ? "musl" : "glibc"];
fs.writeFileSync(process.argv[1], JSON.stringify(pkg, null, 2) + "\n");
' "$plat/package.json"
cat > "$plat/README.md" <<README
# @toolnorm/cli-$platform

The toolnorm $version binary for $platform. Install \`toolnorm\`, not this package: its launcher
picks this one on $platform.
README

echo "npm-build: $main (toolnorm $version)"
echo "npm-build: $plat (@toolnorm/cli-$platform $version, $(wc -c < "$plat/toolnorm") bytes stripped)"
echo "npm-build: $debug (debug info, not in the packages)"
