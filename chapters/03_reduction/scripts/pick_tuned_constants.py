#!/usr/bin/env python3
"""Reads the output of ReductionTuning.DISABLED_VectorizedSweep and writes tuned_constants.hpp
with the variant (loads in flight, load policy, layout, occupancy divisor) that is fastest
relative to CUB in the same process, averaged over the block sizes and the sizes of the sweep
(2^25 and 2^28): one noisy measurement cannot decide alone.

    pick_tuned_constants.py SWEEP_LOG HEADER
"""
import argparse
import collections
import re
import sys

ap = argparse.ArgumentParser()
ap.add_argument("sweep")
ap.add_argument("header")
args = ap.parse_args()

cub = {}
rows = collections.defaultdict(dict)  # (loads, policy, layout, divisor) -> {(n, block): ms}
per_sm_seen = collections.defaultdict(set)
variants = []
for line in open(args.sweep):
    f = line.split()
    if len(f) < 10 or not f[0].isdigit():
        continue
    n = int(f[0])
    if f[1] == "stagecub":
        cub[n] = float(f[8])
    elif f[1] == "variant":
        loads, block, per_sm = int(f[2]), int(f[3]), int(f[4])
        policy, layout, ms = f[6], f[7], float(f[8])
        variants.append((n, loads, block, policy, layout, per_sm, ms))
        per_sm_seen[(n, loads, block, policy, layout)].add(per_sm)

for n, loads, block, policy, layout, per_sm, ms in variants:
    divisor = 1 if per_sm == max(per_sm_seen[(n, loads, block, policy, layout)]) else 2
    rows[(loads, policy, layout, divisor)][(n, block)] = ms

cells = sorted({cell for times in rows.values() for cell in times})
scored = []
for key, times in rows.items():
    if all(cell in times for cell in cells):
        ratios = [times[cell] / cub[cell[0]] for cell in cells]
        scored.append((sum(ratios) / len(ratios), key, times))
if not scored or not cub:
    sys.exit("pick_tuned_constants: no usable sweep lines")
scored.sort()
print("score = mean over (n, block) of ms / CUB ms (same process); CUB: " +
      ", ".join(f"n={n}: {cub[n]:.4f} ms" for n in sorted(cub)))
print("  score   variant: " + ", ".join(f"n=2^{n.bit_length() - 1} b{b}" for n, b in cells))
for score, (loads, policy, layout, divisor), times in scored[:10]:
    print(f"  {score:.4f}  loads {loads}, {policy}, {layout}, resident/{divisor}: " +
          " ".join(f"{times[cell]:.4f}" for cell in cells))
score, (loads, policy, layout, divisor), _ = scored[0]
policy_id = {"plain": 0, "ldcs": 1, "L2::256B": 2}[policy]
layout_id = {"thread_stride": 0, "block_tiles": 1}[layout]

text = open(args.header).read()
for name, value in (("kLoadsInFlight", loads), ("kLoadPolicy", policy_id),
                    ("kLayout", layout_id), ("kOccupancyDivisor", divisor)):
    text, count = re.subn(rf"(inline constexpr int {name} = )\d+;", rf"\g<1>{value};", text)
    assert count == 1, name
open(args.header, "w").write(text)
print(f"chosen: loads {loads}, policy {policy} ({policy_id}), layout {layout} ({layout_id}), "
      f"occupancy divisor {divisor}")
