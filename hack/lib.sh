# Shared by hack/build-testbin.sh and hack/build-flux.sh; source it after
# setting log_prefix. It sets root, out and src, exports the Go settings for
# building throw-away wrapper modules, and defines log, stamp_ok,
# write_stamp, module_dir and module_gomod.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${SYLVA_PLANNER_TESTBIN:-$root/.cache/testbin}
src=$root/.cache/testbin-src

# Build outside of any workspace and of the project module, resolving the
# wrapper modules' missing requirements from the proxy.
export GOWORK=off
export GOFLAGS="-mod=mod -buildvcs=false"
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

log() { printf '%s: %s\n' "$log_prefix" "$*" >&2; }

go_version=$(go env GOVERSION)

# stamp_ok NAME VALUE FILE...: true when every FILE exists and the stamp of
# NAME records VALUE.
stamp_ok() {
	local name=$1 value=$2
	shift 2
	local f
	for f in "$@"; do
		[[ -e $f ]] || return 1
	done
	[[ -f $out/.stamp-$name ]] && [[ $(cat "$out/.stamp-$name") == "$value" ]]
}

write_stamp() {
	printf '%s\n' "$2" >"$out/.stamp-$1"
}

# module_dir MODULE@VERSION: downloads the module zip through the proxy and
# prints the directory it was extracted to.
module_dir() {
	local json dir
	json=$(cd "$src/download" && go mod download -json "$1")
	dir=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
	if [[ -z $dir || ! -d $dir ]]; then
		log "cannot download $1: $json"
		return 1
	fi
	printf '%s\n' "$dir"
}

# module_gomod MODULE@VERSION: prints the path of the module's go.mod file.
module_gomod() {
	local json file
	json=$(cd "$src/download" && go mod download -json "$1")
	file=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
	if [[ -z $file || ! -f $file ]]; then
		log "cannot download $1: $json"
		return 1
	fi
	printf '%s\n' "$file"
}

