#!/bin/sh
# Widens test_memcontrol.c's two sibling checks in test_memcg_protection()
# (test_memcg_min and test_memcg_low) to the tolerance upstream adopted in
# 2025: "selftests: memcg: Increase error tolerance of child memory.current
# check in test_memcg_protection()" (Waiman Long): child 0 within 15% of
# 29M, child 1 within 20% of 21M, both 10% in Debian's 6.1 and 6.12. With
# 10%, upstream saw test_memcg_min fail 17 times and test_memcg_low 22 times
# in 100 runs; here test_memcg_min failed twice in a row in one loaded CI run
# (2026-12-04). Fails if either line is not found, so a source that changed
# them is noticed rather than built as it is.
set -eu
file=$1
sed -i -e 's/values_close(c\[0\], MB(29), 10)/values_close(c[0], MB(29), 15)/' \
       -e 's/values_close(c\[1\], MB(21), 10)/values_close(c[1], MB(21), 20)/' "$file"
grep -q 'values_close(c\[0\], MB(29), 15)' "$file" && grep -q 'values_close(c\[1\], MB(21), 20)' "$file" || {
  echo "memcontrol_tolerance.sh: $file has no test_memcg_protection() sibling checks to widen" >&2
  exit 1
}
