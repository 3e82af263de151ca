#!/bin/sh
# Entry point of the image (docker/Dockerfile): starts Node with its heap sized from the container's
# memory limit, then runs the given script, by default this image's app:
#   node-entry                        -> node ... dist/apps/$APP/src/main.js
#   node-entry dist/apps/migrate.js   -> the migrations, then exit (Kubernetes Job, compose `migrate`)
#
# Heap: V8's old space gets NODE_HEAP_PERCENT (default 70) % of the cgroup memory limit (v2
# memory.max, else v1 memory.limit_in_bytes), e.g. 358 MiB of a 512 MiB container; the rest is for
# what is not old space (young generation, code, buffers, sockets, the thread pool). Without a limit,
# or when NODE_OPTIONS already sets --max-old-space-size, Node's own default applies.
# `--max-semi-space-size=4`: a 4 MB young generation keeps idle memory near 133 MB instead of
# ~155 MB for a few percent of throughput (bench/).
set -eu

heap_flag=""
case " ${NODE_OPTIONS:-} " in
  *max-old-space-size* | *max_old_space_size*) ;;
  *)
    for file in ${MEMORY_LIMIT_FILES:-/sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes}; do
      [ -r "$file" ] || continue
      limit=$(cat "$file")
      case "$limit" in
        '' | *[!0-9]*) ;; # "max": no limit
        *)
          mib=$((limit / 1048576))
          # cgroup v1 reports "no limit" as a huge number: anything beyond 1 TiB is no limit.
          if [ "$mib" -gt 0 ] && [ "$mib" -lt 1048576 ]; then
            heap_flag="--max-old-space-size=$((mib * ${NODE_HEAP_PERCENT:-70} / 100))"
          fi
          ;;
      esac
      break
    done
    ;;
esac

if [ "$#" -eq 0 ]; then
  set -- "dist/apps/${APP:?the image sets APP (todo-api or feedback-export)}/src/main.js"
fi
exec node --max-semi-space-size=4 ${heap_flag} "$@"
