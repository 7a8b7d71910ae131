#!/usr/bin/env bash
# Make the working tree small enough to travel to a lent machine, and whole again afterwards.
#
#   bash scripts/generate/device_tree.sh size      # what would travel now, in bytes
#   bash scripts/generate/device_tree.sh slim      # before the device call
#   bash scripts/generate/device_tree.sh restore   # right after it
#
# A device call copies the tracked files and the untracked ones git does not ignore, 64 MiB at most;
# `records/` alone is about 60 MB. `slim` takes `records/` out of the index (the files stay on disk)
# and ignores it in .git/info/exclude, so it stays behind; `restore` puts the index back as HEAD has
# it and drops that line. Commit nothing in between: a commit would delete `records/`. `slim` refuses
# an index with staged changes, so that `restore` loses none.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
exclude=.git/info/exclude
line=/records/
size() {
    git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- 2>/dev/null | tail -1 | cut -f1
}
case "${1:-}" in
size)
    size
    ;;
slim)
    if ! git diff --cached --quiet; then
        echo "device_tree.sh: the index has staged changes; commit or unstage them first" >&2
        exit 1
    fi
    git rm -r -q --cached records
    mkdir -p .git/info
    grep -qxF "$line" "$exclude" 2>/dev/null || echo "$line" >>"$exclude"
    echo "slim: $(size) bytes would travel (limit 67108864); run 'restore' after the call"
    ;;
restore)
    git reset -q -- records
    [ ! -f "$exclude" ] || sed -i "\\#^${line}\$#d" "$exclude"
    echo "restored: $(size) bytes tracked and untracked"
    ;;
*)
    echo "usage: device_tree.sh size|slim|restore" >&2
    exit 2
    ;;
esac
