# Sourced by the packaging scripts (dist, test, registries): what they share. Needs cargo and node.

# The crate that builds the `baton` binary. pyproject.toml's `manifest-path` names its Cargo.toml for
# maturin: change the two together.
cli_package=baton-cli
# The crates published to crates.io, in dependency order (packaging/crates checks them).
library_crates=(baton-feel baton-engine baton-testing baton-cpt baton-rest baton-serve baton-remote baton-providers baton-cli)

# Cargo says where it puts what it builds (CARGO_TARGET_DIR, build.target-dir in a config, or
# target/) and what version the workspace is at.
read -r target_dir version < <(cargo metadata --format-version 1 --no-deps --locked | node -e '
  let s = "";
  process.stdin.on("data", (d) => (s += d)).on("end", () => {
    const m = JSON.parse(s);
    const cli = m.packages.find((p) => p.name === process.argv[1]);
    if (!cli) { console.error(`packaging: no package ${process.argv[1]} in the workspace`); process.exit(1); }
    console.log(m.target_directory, cli.version);
  });' "$cli_package")
[ -n "$version" ] || exit 1
# Git Bash on Windows: cargo answers with a Windows path.
if command -v cygpath >/dev/null; then target_dir=$(cygpath -u "$target_dir"); fi

# Python 3 by the name it has here (Windows has no python3).
python=$(command -v python3 || command -v python)

# The Python tools of packaging (maturin, twine, pypiserver), in a virtual environment
# of their own under the target directory, installed from PyPI once.
python_tools="$target_dir/packaging/tools"
python_tool() {
  local bin="$python_tools/bin"
  [ -d "$python_tools/Scripts" ] && bin="$python_tools/Scripts"
  echo "$bin/$1"
}
ensure_python_tools() {
  if [ ! -f "$python_tools/tools-1" ]; then
    "$python" -m venv "$python_tools" >&2 || return 1
    "$(python_tool python)" -m pip install --quiet --disable-pip-version-check \
      'maturin>=1.9,<2' 'twine>=6,<8' 'pypiserver>=2.3,<3' >&2 || return 1
    touch "$python_tools/tools-1"
  fi
}

# The target a release binary is built for on this machine: static (musl) on Linux, where the musl
# target can be had (`rustup target add`), otherwise the host's own.
default_target() {
  local host
  host=$(rustc -vV | sed -n 's/^host: //p')
  case "$host" in
    *-unknown-linux-gnu)
      local musl=${host%-gnu}-musl
      if rustup target list --installed 2>/dev/null | grep -qx "$musl" || rustup target add "$musl" >&2; then
        echo "$musl"
        return
      fi
      echo "note: the $musl target is not available; building for $host" >&2
      ;;
  esac
  echo "$host"
}

# The npm platform (`<os>-<cpu>` as Node names them, platforms.json) of a Rust target.
npm_platform_of() {
  case "$1" in
    x86_64-*-linux-*) echo linux-x64 ;;
    aarch64-*-linux-*) echo linux-arm64 ;;
    x86_64-apple-darwin) echo darwin-x64 ;;
    aarch64-apple-darwin) echo darwin-arm64 ;;
    x86_64-pc-windows-*) echo win32-x64 ;;
    *) echo "packaging: no npm platform package for $1" >&2; return 1 ;;
  esac
}

# sha256 FILE: the digest in the format of `sha256sum` (also on macOS, which has shasum).
sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi
}
