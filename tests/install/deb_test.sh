#!/usr/bin/env bash
# The .deb: cpack builds it from the binary already built (nothing is compiled again); its
# control fields and file list are what a Debian maintainer expects; lintian finds no error;
# unpacked with dpkg -x into a throwaway root, and when run as root also installed for real with
# dpkg -i (then removed with dpkg -r), the installed binary run from an empty folder, with the
# build tree out of reach, gives the same report as the build tree's binary.
# Usage: deb_test.sh BINARY BUILD_DIR SOURCE_DIR JSON_GET
. "$(dirname "$0")/lib.sh"

cpack_cmd=(cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg")
"${cpack_cmd[@]}" >"$tmp/cpack.log" 2>&1 || { cat "$tmp/cpack.log"; echo "FAIL cpack"; exit 1; }
debs=("$tmp"/pkg/megatriage_*.deb)
[[ ${#debs[@]} -eq 1 && -f ${debs[0]} ]] || { ls -R "$tmp/pkg"; echo "FAIL no single megatriage_*.deb"; exit 1; }
deb=${debs[0]}
version=$("$binary" --version | head -1)
version=${version#megatriage }

# Control fields, read one by one with dpkg-deb -f.
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == megatriage ]] || bad "Package: $(field Package)"
[[ $(field Version) == "$version-1" ]] || bad "Version: $(field Version), want $version-1"
[[ $(field Architecture) == "$(dpkg --print-architecture)" ]] || bad "Architecture: $(field Architecture)"
[[ $(field Section) == utils ]] || bad "Section: $(field Section)"
[[ $(field Priority) == optional ]] || bad "Priority: $(field Priority)"
[[ $(field Maintainer) == *@* ]] || bad "Maintainer: $(field Maintainer)"
description=$(field Description)
[[ $(head -1 <<<"$description") == "root cause of a failed Megatron-LM / SLURM training job" ]] ||
  bad "Description's first line: $(head -1 <<<"$description")"
[[ $(wc -l <<<"$description") -ge 5 ]] || bad "no long description"
# Depends: one package per runtime library the binary links, as dpkg-shlibdeps names them.
IFS=',' read -ra depends <<<"$(field Depends)"
names=()
for d in "${depends[@]}"; do d=${d# }; names+=("${d%% *}"); done
want=(libc6 libstdc++6 libgcc-s1 libboost-iostreams1.74.0 zlib1g libbz2-1.0 liblzma5 libzstd1)
for w in "${want[@]}"; do
  [[ " ${names[*]} " == *" $w "* ]] || bad "Depends lacks $w: $(field Depends)"
done
# RE2 and Vectorscan by their soname packages (libre2-9, libvectorscan5 on Debian 12); Vectorscan
# exactly when --version says it is in.
[[ " ${names[*]} " =~ \ libre2-[0-9]+\  ]] || bad "Depends lacks RE2: $(field Depends)"
vectorscan_in=0
[[ $("$binary" --version | sed -n 's/^Vectorscan: //p') == yes* ]] && vectorscan_in=1
has_vectorscan=0
[[ " ${names[*]} " =~ \ libvectorscan[0-9]+\  ]] && has_vectorscan=1
[[ $has_vectorscan -eq $vectorscan_in ]] || bad "Vectorscan in the binary: $vectorscan_in, in Depends: $has_vectorscan"

# The files: the prefix layout under /usr, docs where Debian puts them, nothing else.
dpkg-deb --fsys-tarfile "$deb" | tar -t | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/bin/megatriage /usr/share/megatriage/rules/cuda.json /usr/share/man/man1/megatriage.1.gz \
         /usr/share/bash-completion/completions/megatriage /usr/share/zsh/site-functions/_megatriage \
         /usr/share/doc/megatriage/copyright /usr/share/doc/megatriage/changelog.Debian.gz \
         /usr/share/doc/megatriage/README.md /usr/share/doc/megatriage/schema/report.schema.json \
         "/usr/share/megatriage/modulefiles/megatriage/$version.lua"; do
  grep -qxF "$f" "$tmp/files" || bad "the .deb lacks $f"
done
grep -qxF /etc/megatriage/rules.d/ "$tmp/files" || bad "the .deb lacks the site rules folder /etc/megatriage/rules.d/"
while read -r f; do
  [[ $f == /usr/* || $f == / || $f == /etc/ || $f == /etc/megatriage/* ]] || bad "the .deb installs outside /usr: $f"
done <"$tmp/files"

# lintian: no error (warnings and info are printed for the record).
if [[ $sanitized -eq 1 ]]; then
  echo "note: an ASan build: lintian not run"
elif command -v lintian >/dev/null; then
  lintian --fail-on error --tag-display-limit 0 "$deb" >"$tmp/lintian.log" 2>&1 || bad "lintian reports errors"
  cat "$tmp/lintian.log"
else
  echo "note: lintian is not installed (tools/setup test installs it); not run"
fi

# Unpacked into a throwaway root: the binary reads the rules beside it and reports as the
# build tree's binary does, from an empty folder.
dpkg-deb -x "$deb" "$tmp/root"
unpacked=$tmp/root/usr/bin/megatriage
# A sanitizer build names its sources in its instrumentation (not debug info, so strip keeps
# them): the check is for real builds.
if [[ $sanitized -eq 1 ]]; then
  echo "note: an ASan build: the check for build-tree paths in the binary is skipped"
elif grep -c -F -e "$build" -e "$source" "$unpacked" >/dev/null; then
  bad "the packaged binary names the build tree or checkout"
fi
run=$(fixture_copy gpu-oom-torchrun-logdir)
(cd "$run" && "$binary" --format json logs >"$tmp/build.json")
rc=$?
[[ $rc -eq 1 ]] || bad "build-tree binary: exit $rc, want 1"
# The build tree and the checkout hidden under empty folders (a private mount namespace, when
# root can make one); else the binary still must read only the rules beside it.
hide=(unshare --mount --propagation private -- bash -c
      'mount -t tmpfs none "$1" && mount -t tmpfs none "$2" && shift 2 && exec "$@"' hide "$build" "$source")
if [[ $(id -u) -eq 0 ]] && "${hide[@]}" test ! -e "$build/CMakeCache.txt" 2>/dev/null; then
  echo "the build tree and the checkout are hidden from the installed binary"
else
  hide=()
  echo "note: not root: the build tree stays visible; its absence from the rule list is checked instead"
fi
(cd "$run" && "${hide[@]}" "$unpacked" --format json logs >"$tmp/unpacked.json")
rc=$?
[[ $rc -eq 1 ]] || bad "unpacked binary: exit $rc, want 1"
same_report "$tmp/build.json" "$tmp/unpacked.json" || bad "unpacked binary: another report than the build tree's"
(cd "$run" && "${hide[@]}" "$unpacked" rules list >"$tmp/list.tsv") || bad "unpacked binary: rules list failed"
while IFS=$'\t' read -r id file; do
  [[ $file == "$tmp/root/usr/share/megatriage/rules/"* ]] || { bad "rule $id read from $file"; break; }
done <"$tmp/list.tsv"
[[ -s $tmp/list.tsv ]] || bad "unpacked binary: rules list is empty"

# A real dpkg -i / dpkg -r, as root, when no megatriage package is installed already (a
# machine's own is left alone). One test at a time on a machine: dpkg takes a global lock.
if [[ $(id -u) -ne 0 ]]; then
  echo "note: not root: dpkg -i / dpkg -r not run"
elif dpkg-query -W -f='${Status}' megatriage 2>/dev/null | grep -q 'ok installed'; then
  echo "note: a megatriage package is installed on this machine already: dpkg -i / dpkg -r not run"
else
  exec 9>/tmp/megatriage-deb-test.lock
  flock 9
  trap 'dpkg -r megatriage >/dev/null 2>&1; rm -rf "$tmp"' EXIT
  had_site_dir=0
  [[ -e /etc/megatriage/rules.d ]] && had_site_dir=1
  dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; bad "dpkg -i failed"; }
  (cd "$run" && "${hide[@]}" /usr/bin/megatriage --format json logs >"$tmp/installed.json")
  rc=$?
  [[ $rc -eq 1 ]] || bad "dpkg-installed binary: exit $rc, want 1"
  same_report "$tmp/build.json" "$tmp/installed.json" || bad "dpkg-installed binary: another report"
  # (Slim container images tell dpkg not to unpack manuals: path-exclude in dpkg.cfg.d.)
  if grep -rqs '^path-exclude=/usr/share/man' /etc/dpkg/dpkg.cfg /etc/dpkg/dpkg.cfg.d/; then
    echo "note: this machine's dpkg leaves manuals out: man -w not tried"
  elif command -v man >/dev/null; then
    [[ $(man -w megatriage 2>/dev/null) == /usr/share/man/man1/megatriage.1.gz ]] ||
      bad "man -w megatriage: $(man -w megatriage 2>&1)"
  fi
  dpkg -r megatriage >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; bad "dpkg -r failed"; }
  [[ ! -e /usr/bin/megatriage && ! -e /usr/share/megatriage ]] || bad "dpkg -r left files behind"
  [[ $had_site_dir -eq 1 || ! -e /etc/megatriage/rules.d ]] || bad "dpkg -r left /etc/megatriage/rules.d behind"
fi
finish
