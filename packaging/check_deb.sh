#!/usr/bin/env bash
# Checks a built .deb the way a user's system sees it (CI: .ci/run; by hand after packaging/dev.sh deb):
#   packaging/check_deb.sh [build/release/steadyscope_<version>_amd64.deb]
# Unpacks it into a temporary root (dpkg-deb -x), runs the installed programs on the shipped sample,
# validates the desktop files, runs lintian (every warning must be justified in packaging/README.md)
# and asks GIO which type the installed shared-mime-info XML gives to trace and non-trace files.
set -euo pipefail
cd "$(dirname "$0")/.."
deb=${1:-$(ls build/release/steadyscope_*_amd64.deb 2>/dev/null | tail -n 1)}
[[ -f $deb ]] || { echo "check_deb: no .deb given or found (run packaging/dev.sh deb)" >&2; exit 2; }

readonly type=application/x-steadyscope-trace app_id=io.github.steadyscope.Steadyscope
readonly sample_events=41709  # resources/sample/README.md: the sample's event count
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
fails=0
ok() { echo "  ok   $1"; }
bad() { echo "  FAIL $1" >&2; fails=$((fails + 1)); }
check() {  # check DESCRIPTION COMMAND...: passes when the command succeeds
  local what=$1
  shift
  if "$@" >"$work/out" 2>&1; then ok "$what"; else bad "$what"; sed 's/^/       /' "$work/out" >&2; fi
}

echo "check_deb: $deb"
version=$(dpkg-deb -f "$deb" Version)
dpkg-deb -x "$deb" "$root"

echo "contents"
for f in usr/bin/steadyscope usr/bin/steadyscope-cli usr/bin/steadyscope-gen \
  usr/share/steadyscope/samples/vllm_sample.json.gz usr/share/doc/steadyscope/copyright \
  usr/share/doc/steadyscope/changelog.gz usr/share/man/man1/steadyscope.1.gz \
  usr/share/man/man1/steadyscope-cli.1.gz usr/share/man/man1/steadyscope-gen.1.gz \
  "usr/share/applications/$app_id.desktop" "usr/share/metainfo/$app_id.metainfo.xml" \
  usr/share/mime/packages/steadyscope.xml usr/share/icons/hicolor/scalable/apps/steadyscope.svg; do
  check "ships /$f" test -s "$root/$f"
done
for n in 16 24 32 48 64 128 256; do
  check "icon ${n}x${n} is a ${n} x ${n} PNG" \
    grep -q "PNG image data, $n x $n" <(file "$root/usr/share/icons/hicolor/${n}x${n}/apps/steadyscope.png")
done
depends=$(dpkg-deb -f "$deb" Depends)
echo "  Depends: $depends"
for lib in libqt6widgets6 libqt6charts6 libsimdjson libfmt libisal zlib1g libqt6svg6 libssl3 libc6; do
  check "Depends names $lib" grep -q "$lib" <<<"$depends"
done
check "changelog is for version $version" grep -q "^steadyscope ($version)" <(gzip -dc "$root/usr/share/doc/steadyscope/changelog.gz")

echo "installed programs"
check "steadyscope-cli info on the shipped sample counts $sample_events events" \
  grep -q "^  $sample_events events" <("$root/usr/bin/steadyscope-cli" info "$root/usr/share/steadyscope/samples/vllm_sample.json.gz")
check "steadyscope --version offscreen says $version" \
  grep -Eq "^steadyscope $version \(git [0-9a-z-]+\)$" <(QT_QPA_PLATFORM=offscreen "$root/usr/bin/steadyscope" --version)
check "steadyscope FILE opens the shipped sample (offscreen screenshot)" \
  grep -q "title: .*vllm_sample" <(QT_QPA_PLATFORM=offscreen "$root/usr/bin/steadyscope" \
    "$root/usr/share/steadyscope/samples/vllm_sample.json.gz" --screenshot "$work/shot.png" --size 800x600 2>&1)
check "man steadyscope-cli has an EXAMPLES section" grep -q '^\.SH EXAMPLES' <(gzip -dc "$root/usr/share/man/man1/steadyscope-cli.1.gz")

echo "desktop files"
check "desktop-file-validate" desktop-file-validate "$root/usr/share/applications/$app_id.desktop"
check "the .desktop file's MimeType= is $type" grep -qx "MimeType=$type;" "$root/usr/share/applications/$app_id.desktop"
check "appstreamcli validate --no-net" appstreamcli validate --no-net "$root/usr/share/metainfo/$app_id.metainfo.xml"

echo "lintian"
lintian --fail-on error --tag-display-limit 0 "$deb" >"$work/lintian" 2>/dev/null || bad "lintian reports errors"
sed 's/^/       /' "$work/lintian"
while read -r tag; do
  check "lintian warning $tag is justified in packaging/README.md" grep -q "\`$tag\`" packaging/README.md
done < <(sed -n 's/^W: [^:]*: \([a-z0-9-]*\).*/\1/p' "$work/lintian" | sort -u)

# As dpkg's triggers do on install: one MIME database of the base types and ours, the desktop
# database (GIO's "Open with" reads its mimeinfo.cache).
echo "shared-mime-info and \"Open with\" (GIO, in the temporary root)"
cp /usr/share/mime/packages/freedesktop.org.xml "$root/usr/share/mime/packages/"
check "update-mime-database" update-mime-database "$root/usr/share/mime"
check "update-desktop-database" update-desktop-database "$root/usr/share/applications"
f=$work/files
mkdir -p "$f" "$work/home"
gzip -dc "$root/usr/share/steadyscope/samples/vllm_sample.json.gz" | head -c 8192 >"$f/kineto.json" || true
printf '{"traceEvents": [{"ph": "X", "name": "k", "ts": 1, "dur": 2}]}\n' >"$f/chrome.json"
printf '{"name": "named like a trace"}\n' >"$f/x.pt.trace.json"
printf '{"name": "named like a trace"}\n' | gzip -n >"$f/x.pt.trace.json.gz"
printf '{"name": "not a trace", "events": [1, 2, 3]}\n' >"$f/plain.json"
printf '{\n  "schemaVersion": 2,\n  "mediaType": "application/vnd.docker.distribution.manifest.v2+json"\n}\n' >"$f/manifest.json"
printf '{"name": "not a trace"}\n' | gzip -n >"$f/plain.json.gz"
gio_env=(env "PATH=$root/usr/bin:$PATH" "XDG_DATA_HOME=$work/home" "XDG_DATA_DIRS=$root/usr/share"
  "XDG_CONFIG_HOME=$work/home" "XDG_CONFIG_DIRS=$work/home" GIO_USE_VFS=local)
mime_of() { "${gio_env[@]}" gio info -a standard::content-type "$1" | sed -n 's/.*standard::content-type: //p'; }
expect_type() {  # expect_type FILE TYPE WHY
  local got
  got=$(mime_of "$f/$1")
  if [[ $got == "$2" ]]; then ok "$1 -> $got ($3)"; else bad "$1 -> $got, expected $2 ($3)"; fi
}
expect_type x.pt.trace.json.gz "$type" "by name, whatever it holds"
expect_type x.pt.trace.json "$type" "by name, whatever it holds"
expect_type kineto.json "$type" "by content: Kineto's schemaVersion + deviceProperties"
expect_type chrome.json "$type" "by content: traceEvents"
expect_type plain.json application/json "a JSON that is no trace is not claimed"
expect_type manifest.json application/json "schemaVersion alone is not a trace"
expect_type plain.json.gz application/gzip "a gzip's content cannot be sniffed"
check "\"Open with\" offers $app_id for $type" grep -q "^Default application for .*: $app_id.desktop" \
  <("${gio_env[@]}" gio mime "$type")

if ((fails)); then
  echo "check_deb: $fails check(s) failed" >&2
  exit 1
fi
echo "check_deb: all checks passed"
