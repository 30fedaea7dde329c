"""Whether two drawings of a figure are the same picture, judged as matplotlib's own test suite
judges its figures: not byte for byte.

What is promised: the pinned matplotlib (style.PINNED) draws the same picture from the same
results on any x86-64 machine: the same texts, the same marks in the same places to well under a
pixel, the same colours. What is not: the same bytes. A last-bit difference in a float (another
CPU's math library, another order of a sum) can move a coordinate in its sixth decimal, change a
hashed SVG id, or push an anti-aliased line to the other side of a pixel boundary in the PNG.

- SVG (and the class page, which inlines the SVGs): matplotlib's hashed ids (clip paths, markers,
  hatches: a letter and ten hex digits, salted hashes of unrounded geometry) are renumbered in
  order of first appearance; the texts (the comment matplotlib writes before each text's glyphs),
  glyph names, colours and structure must be equal; every number must agree within
  SVG_TOLERANCE_PT points (a pixel of the PNG is 0.72 pt).
- PNG: the same size; the RMS of the pixel differences (0-255 scale) at most PNG_RMS_TOLERANCE
  (matplotlib.testing.compare.compare_images), which alone is coarse: a line one pixel lower
  across the plot weighs about as much as a changed digit; and at most PNG_UNEXPLAINED_PIXELS
  pixels of either image that no pixel of the other within one pixel of it comes close to (by
  PNG_PIXEL_LEVEL in any channel): a line that moved across a pixel boundary is explained by its
  neighbours, a bar that grew or a digit that changed is not. The SVG drawn beside each PNG is the
  precise check.
- Any other file (comparison.md): the same bytes; it is text the scripts format from the data.
"""
import pathlib
import re

SVG_TOLERANCE_PT = 0.01
PNG_RMS_TOLERANCE = 6.0
PNG_PIXEL_LEVEL = 64
PNG_UNEXPLAINED_PIXELS = 16

# matplotlib's RendererSVG._make_id: a type letter (p clip path, m marker, h hatch) and the first
# ten hex digits of a salted SHA-256 of the object's geometry; or the names number_ids() gives
# them; with the class page's prefix (f3-) where a page inlines several figures.
GENERATED_ID = re.compile(r"(?<![\w-])(f\d+-)?(?:([mph])[0-9a-f]{10}|(clip|marker|hatch)\d+)"
                          r"(?![\w-])")
COMMENT = re.compile(r"<!--.*?-->", re.S)
# A number that stands on its own: not part of a name (DejaVuSans-31, line2d_4) or a colour
# (#4c72b0).
NUMBER = re.compile(r"(?<![\w#.-])-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?![\w.])")
KIND_NAMES = {"p": "clip", "m": "marker", "h": "hatch"}


def number_ids(text):
    """`text` with matplotlib's hashed ids replaced by clip1, marker1, ... in order of first
    appearance (counted per figure of a page): ids that no longer depend on the last bits of a
    float. style.py writes its SVGs this way; older SVGs, numbered so, compare equal."""
    seen = {}
    counts = {}

    def renamed(match):
        key = match.group(0)
        if key not in seen:
            prefix = match.group(1) or ""
            kind = KIND_NAMES[match.group(2)] if match.group(2) else match.group(3)
            counts[prefix, kind] = counts.get((prefix, kind), 0) + 1
            seen[key] = f"{prefix}{kind}{counts[prefix, kind]}"
        return seen[key]

    return GENERATED_ID.sub(renamed, text)


def _tokens(text):
    """The text split into (kind, value): ("text", verbatim piece) or ("number", float). Comments
    stay whole: they hold the figure's texts, which must match exactly."""
    tokens = []
    position = 0
    for comment in COMMENT.finditer(text):
        tokens += _split_numbers(text[position:comment.start()])
        tokens.append(("text", comment.group(0)))
        position = comment.end()
    return tokens + _split_numbers(text[position:])


def _split_numbers(text):
    tokens = []
    position = 0
    for number in NUMBER.finditer(text):
        tokens.append(("text", text[position:number.start()]))
        tokens.append(("number", float(number.group(0))))
        position = number.end()
    tokens.append(("text", text[position:]))
    return tokens


def svg_difference(expected_text, actual_text, tolerance=SVG_TOLERANCE_PT):
    """None when the two SVG (or HTML) texts draw the same picture, else the first difference in
    words."""
    expected = _tokens(number_ids(expected_text))
    actual = _tokens(number_ids(actual_text))
    if len(expected) != len(actual):
        return f"different structure: {len(actual)} pieces, {len(expected)} expected"
    for (kind_e, value_e), (kind_a, value_a) in zip(expected, actual):
        if kind_e != kind_a:
            return f"different structure near {value_e!r}"
        if kind_e == "text" and value_e != value_a:
            return f"{value_a.strip()[:80]!r} where {value_e.strip()[:80]!r} was expected"
        if kind_e == "number" and abs(value_e - value_a) > tolerance:
            return f"{value_a} where {value_e} was expected (tolerance {tolerance})"
    return None


def unexplained_pixels(image, other, reach=1, level=PNG_PIXEL_LEVEL):
    """How many pixels of `image` (an H x W x 3 array) differ by more than `level` in some channel
    from every pixel of `other` within `reach` pixels of the same place."""
    import numpy as np
    height, width, _ = image.shape
    image, other = image.astype(np.int16), other.astype(np.int16)
    padded = np.pad(other, ((reach, reach), (reach, reach), (0, 0)), mode="edge")
    nearest = None
    for dy in range(2 * reach + 1):
        for dx in range(2 * reach + 1):
            shifted = padded[dy:dy + height, dx:dx + width]
            distance = np.abs(image - shifted).max(axis=2)
            nearest = distance if nearest is None else np.minimum(nearest, distance)
    return int((nearest > level).sum())


def png_difference(expected_path, actual_path, tolerance=PNG_RMS_TOLERANCE):
    """None when the PNGs are the same picture (the file comment's three tests), else why
    not."""
    from matplotlib.testing.compare import ImageComparisonFailure, compare_images
    try:
        result = compare_images(str(expected_path), str(actual_path), tolerance,
                                in_decorator=True)
    except ImageComparisonFailure as failure:  # sizes differ
        return str(failure).splitlines()[0]
    finally:
        # compare_images leaves a picture of the difference beside a failing image
        diff = pathlib.Path(actual_path).with_name(pathlib.Path(actual_path).stem +
                                                    "-failed-diff.png")
        diff.unlink(missing_ok=True)
    if result is not None:
        return f"RMS {result['rms']:.2f} > {tolerance}"
    import numpy as np
    from PIL import Image
    expected, actual = (np.asarray(Image.open(path).convert("RGB"))
                        for path in (expected_path, actual_path))
    if np.array_equal(expected, actual):
        return None
    unexplained = max(unexplained_pixels(expected, actual), unexplained_pixels(actual, expected))
    if unexplained > PNG_UNEXPLAINED_PIXELS:
        return (f"{unexplained} pixels differ from everything within a pixel of them "
                f"(at most {PNG_UNEXPLAINED_PIXELS})")
    return None


def file_difference(expected_path, actual_path):
    """None when `actual_path` is the same picture (or text) as `expected_path`, else why not."""
    expected_path, actual_path = pathlib.Path(expected_path), pathlib.Path(actual_path)
    if not actual_path.is_file():
        return "missing"
    if expected_path.read_bytes() == actual_path.read_bytes():
        return None  # the usual case, and quick
    suffix = expected_path.suffix
    if suffix == ".png":
        return png_difference(expected_path, actual_path)
    if suffix in (".svg", ".html"):
        return svg_difference(expected_path.read_text(encoding="utf-8"),
                              actual_path.read_text(encoding="utf-8"))
    return "different bytes"


def differing(expected_folder, actual_folder, names):
    """{name: why} for each of `names` that is not the same picture in the two folders."""
    found = {}
    for name in sorted(names):
        why = file_difference(pathlib.Path(expected_folder) / name,
                              pathlib.Path(actual_folder) / name)
        if why:
            found[name] = why
    return found
