"""How a row on one GPU compares with the same row on another, judged against the noise the
runs themselves showed, and which rows are the fastest of a case: read by the comparison
(compare.py) and the class page (classpage.py) alike."""
from .results import fastest_row, row_groups, row_key

NOISY = 0.10    # a range wider than this share of its median: too noisy to call a small gap same
CLOSE = 0.02    # medians this close are the same, noisy or not


def spread(row):
    lo, hi = row.get("min_ms", row["median_ms"]), row.get("max_ms", row["median_ms"])
    return (hi - lo) / row["median_ms"] if row["median_ms"] else 0


def verdict(first, other):
    """(word, ratio) for `other` against `first`: ratio = first's median / other's (> 1: other
    is faster); 'faster' or 'slower' where the two min-max ranges do not meet, 'same' where
    they do and neither range is wider than NOISY of its median (or the medians are within
    CLOSE), else 'ambiguous': the runs varied too much to tell. None where a row is missing."""
    if not first or not other or first.get("median_ms") is None or other.get("median_ms") is None:
        return None
    ratio = first["median_ms"] / other["median_ms"]
    overlap = (first.get("min_ms", first["median_ms"]) <= other.get("max_ms", other["median_ms"])
               and other.get("min_ms", other["median_ms"]) <= first.get("max_ms", first["median_ms"]))
    if not overlap:
        return ("faster" if ratio > 1 else "slower"), ratio
    if abs(ratio - 1) <= CLOSE or max(spread(first), spread(other)) <= NOISY:
        return "same", ratio
    return "ambiguous", ratio


def verdict_words(judged):
    """'1.38× faster', '1.39× slower', 'same (1.01×)', 'ambiguous (1.12×, noisy)', '–'."""
    if judged is None:
        return "–"
    word, ratio = judged
    if word == "faster":
        return f"{ratio:.2f}× faster"
    if word == "slower":
        return f"{1 / ratio:.2f}× slower"
    return f"same ({ratio:.2f}×)" if word == "same" else f"ambiguous ({ratio:.2f}×, noisy)"


def fastest_keys(doc):
    """Row keys of the fastest correct stage of each group (one in a plain table)."""
    keys = set()
    for _, rows in row_groups(doc):
        best, _ = fastest_row(doc, rows)
        if best is not None:
            keys.add(row_key(best))
    return keys
