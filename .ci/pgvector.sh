#!/usr/bin/env bash
# pgvector for the installed PostgreSQL (episode search, #38). Debian's package where the
# release has it (postgresql-NN-pgvector: trixie and later); on bookworm, which lacks it, the
# same Debian source package (trixie's pgvector) is built against postgresql-server-dev-NN.
set -euo pipefail
ls /usr/share/postgresql/*/extension/vector.control >/dev/null 2>&1 && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
major=$(ls /usr/lib/postgresql | sort -n | tail -1)
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
if apt-cache show "postgresql-$major-pgvector" >/dev/null 2>&1; then
  $sudo apt-get install -y -qq --no-install-recommends "postgresql-$major-pgvector"
  exit 0
fi
$sudo apt-get install -y -qq --no-install-recommends "postgresql-server-dev-$major" make gcc dpkg-dev
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'deb-src http://deb.debian.org/debian trixie main\n' >"$work/sources.list"
mkdir -p "$work/lists/partial"
apt_opts=(-o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=/nonexistent
  -o "Dir::State::Lists=$work/lists")
$sudo apt-get "${apt_opts[@]}" update -qq
(cd "$work" && apt-get "${apt_opts[@]}" source --download-only pgvector)
tar -xzf "$work"/pgvector_*.orig.tar.gz -C "$work"
make -s -C "$work"/pgvector-*/ OPTFLAGS="" PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config"
$sudo make -s -C "$work"/pgvector-*/ install PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config"
