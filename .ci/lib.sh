# Shared by the .ci installers (sourced, not run): one build per cache folder at a time, Go tools
# installed without half-written binaries, and the throw-away Go module that kube-apiserver,
# kube-controller-manager, kube-scheduler and kwok are built in.

# wait_for_lock <out> <label>: holds <out>.lock (fd 9) until the script ends; a second caller waits for
# the first, then finds its result.
wait_for_lock() {
  mkdir -p "$(dirname "$1")"
  command -v flock >/dev/null 2>&1 || return 0 # util-linux; absent on macOS, where builds are not serialized
  exec 9>"$1.lock"
  if ! flock -n 9; then
    echo "$2: another build of $1 is running; waiting for it" >&2
    flock 9
  fi
}

# Where the installers keep the tools they build (outside the repository).
TOOLS_CACHE="${OPGEN_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/opgen/tools}"

# reuse_or_lock <label> <out> <bin>: prints <bin> and ends the script when it is built; otherwise takes
# <out>'s lock (waiting for a build already running) and ends the same way if that build made it.
reuse_or_lock() {
  if [ -x "$3" ]; then echo "$3"; exit 0; fi
  wait_for_lock "$2" "$1"
  if [ -x "$3" ]; then echo "$3"; exit 0; fi
}

# reuse_complete_or_lock <label> <out> <what go is needed for>: prints <out> and ends the script when the
# folder is complete (<out>/.complete, written last by publish_complete); otherwise needs go, takes <out>'s
# lock (waiting for a fill already running) and ends the same way if that fill completed it.
reuse_complete_or_lock() {
  if [ -f "$2/.complete" ]; then echo "$2"; exit 0; fi
  need_go "$1" "$3"
  wait_for_lock "$2" "$1"
  if [ -f "$2/.complete" ]; then echo "$2"; exit 0; fi
}

# publish_complete <tmp> <out>: marks the folder <tmp> complete, puts it in place of <out> (a partial one is
# replaced), drops the EXIT trap that would remove <tmp>, and prints <out>.
publish_complete() {
  touch "$1/.complete"
  rm -rf "$2"
  mv "$1" "$2"
  trap - EXIT
  echo "$2"
}

# go_module_dir <label> <module@version>: downloads the module into the Go module cache and prints its
# folder there. `go mod download` needs no go.mod; -json prints the extracted module's folder.
go_module_dir() {
  local dir
  dir="$(GOFLAGS=-mod=mod go mod download -json "$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')" || exit 1
  [ -n "$dir" ] || { echo "$1: go mod download printed no folder for $2" >&2; exit 1; }
  echo "$dir"
}

# need_go <label> <what go is needed for>: a one-line error and exit 1 when go is missing.
need_go() {
  command -v go >/dev/null 2>&1 || { echo "$1: go is not installed; it is needed to $2" >&2; exit 1; }
}

# go_install <label> <package@version> <binary>: `go install` into a temporary folder beside <binary>
# first, so an interrupted build never leaves a half-written binary behind.
go_install() {
  local label="$1" pkg="$2" bin="$3" tmp
  need_go "$label" "build ${pkg%@*}"
  echo "$label: installing $pkg (first run only)" >&2
  mkdir -p "$(dirname "$bin")"
  tmp="$(mktemp -d "$(dirname "$bin")/.install-XXXXXX")"
  if ! CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$tmp" go install -trimpath "$pkg" >&2; then rm -rf "$tmp"; exit 1; fi
  mv "$tmp/$(basename "${pkg%@*}")" "$bin"
  rm -rf "$tmp"
}

# go_build_local <label> <folder> <binary> <what>: builds the Go main in <folder> of this repository
# (its go.mod pins the libraries) into <binary>, through a temporary name, so an interrupted build never
# leaves a half-written binary behind.
go_build_local() {
  local label="$1" dir="$2" bin="$3"
  need_go "$label" "build $4"
  echo "$label: building $4 (first run only)" >&2
  mkdir -p "$(dirname "$bin")"
  (cd "$dir" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -o "$bin.tmp" . >&2)
  mv "$bin.tmp" "$bin"
}

# k8s_module <module name>: go.mod, in the current folder, of a module requiring
# k8s.io/kubernetes@v$K8S_VERSION. That module requires its staging modules (k8s.io/api, client-go, …) at
# v0.0.0 with replace directives into its own tree, which a dependency cannot use: each is pinned to the
# matching v0.<minor>.<patch> instead.
k8s_module() {
  local gomod staging
  gomod="$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
  [ -n "$gomod" ] || { echo "could not download k8s.io/kubernetes@v$K8S_VERSION" >&2; exit 1; }
  staging="v0.${K8S_VERSION#1.}"
  {
    echo "module $1"
    echo
    echo "go 1.26"
    echo
    echo "require k8s.io/kubernetes v$K8S_VERSION"
    echo
    echo "replace ("
    sed -n 's|^[[:space:]]*k8s.io/\([^ ]*\) => ./staging/src/k8s.io/.*|\tk8s.io/\1 => k8s.io/\1 '"$staging"'|p' "$gomod"
    echo ")"
  } >go.mod
}

# k8s_ldflags: the version stamps that `kube-apiserver --version` (and the API server's /version) report.
k8s_ldflags() {
  local pkg ldf=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf="$ldf -X $pkg.gitVersion=v$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$(echo "$K8S_VERSION" | cut -d. -f2) -X $pkg.gitTreeState=clean"
  done
  echo "$ldf"
}
