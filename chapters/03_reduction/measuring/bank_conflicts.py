#!/usr/bin/env python3
"""Which shared-memory bank each lane of a warp touches in the tree of stages 2 and 3, and the
bank-conflict count that follows, to compare with Nsight Compute's
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum.

    chapters/03_reduction/measuring/bank_conflicts.py picture          # the README's figure
    chapters/03_reduction/measuring/bank_conflicts.py count [N] [B]    # expected count, 1st pass

Model (the one the hardware documents): 32 banks of 4-byte words, word w lives in bank w % 32; a
warp's shared load needs one pass (wavefront) per distinct word in its busiest bank, and ncu
counts every pass beyond the first as a conflict. Both words a step reads (sdata[index] and
sdata[index + s]) are separate loads.
"""
import sys

BANKS = 32


def stage2_words(step, lanes):
    """Stage 2, step s: thread t works on index = 2*s*t when index < blockDim."""
    return {t: 2 * step * t for t in lanes}


def stage3_words(step, lanes):
    """Stage 3, step s: thread t < s works on index = t."""
    return {t: t for t in lanes if t < step}


def passes(words):
    """Wavefronts one warp-wide load needs: the most distinct words in any one bank."""
    per_bank = {}
    for word in set(words):
        per_bank.setdefault(word % BANKS, set()).add(word)
    return max((len(w) for w in per_bank.values()), default=0)


def stage2_block_conflicts(block):
    """Extra wavefronts of the loads of one block of stage 2 (first pass)."""
    total = 0
    rows = []
    step = 1
    while step < block:
        active = [t for t in range(block) if 2 * step * t < block]
        step_conflicts = 0
        worst = 0
        for warp in range(0, block, 32):
            lanes = [t for t in active if warp <= t < warp + 32]
            if not lanes:
                continue
            for offset in (0, step):  # sdata[index] and sdata[index + s]
                n = passes([2 * step * t + offset for t in lanes])
                worst = max(worst, n)
                step_conflicts += n - 1
        rows.append((step, len(active), worst, step_conflicts))
        total += step_conflicts
        step *= 2
    return total, rows


def picture():
    lanes = range(32)
    print("Bank (0-31) of the word each lane of warp 0 reads first in a step;")
    print("'.' = lane idle. Same bank, different word = the lanes are served one after the other.\n")
    for name, words_for, steps in (("stage 2, index = 2*s*t", stage2_words, (1, 2, 4, 8, 16)),
                                   ("stage 3, index = t (block 256)", stage3_words, (128, 64, 32, 16, 8))):
        print(name)
        print("  lane     " + "".join(f"{t % 100:>3}" for t in lanes))
        for s in steps:
            words = words_for(s, lanes)
            if words_for is stage2_words:
                words = {t: w for t, w in words.items() if w < 256}
            cells = "".join(f"{words[t] % BANKS:>3}" if t in words else "  ." for t in lanes)
            n = passes(words.values())
            print(f"  s = {s:<4} {cells}   {n}-way" if n > 1 else f"  s = {s:<4} {cells}   no conflict")
        print()


def count(n, block):
    first_grid = -(-n // block)
    per_block, rows = stage2_block_conflicts(block)
    print(f"stage 2, block {block}: per block and step (both loads of the step, all warps)")
    print("  step s  active threads  worst degree  extra wavefronts")
    for step, active, worst, extra in rows:
        print(f"  {step:>6}  {active:>14}  {worst:>10}-way  {extra:>16}")
    print(f"  per block: {per_block}; first pass of N = {n}: {first_grid} blocks x {per_block} = "
          f"{first_grid * per_block:,} conflicted-load wavefronts")
    late = sum(extra for step, _, _, extra in rows if step >= 16)
    print(f"  counting only the steps from s = 16 on (the old text): {first_grid * late:,}")


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "picture"
    if what == "picture":
        picture()
    elif what == "count":
        text = sys.argv[2] if len(sys.argv) > 2 else "2^25"
        base, _, exponent = text.partition("^")
        n = int(base) ** int(exponent) if exponent else int(base)
        block = int(sys.argv[3]) if len(sys.argv) > 3 else 256
        count(n, block)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
