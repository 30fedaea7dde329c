#!/usr/bin/env python3
"""Makes the READMEs' links to source files work in the Doxygen site as they do in the repository.

A chapter README links to its files relative to itself (`[stage 1](stages/stage01_x.cu)`), which
is right in the repository and on a code host, but the site's pages all sit in one html/ folder,
where that path leads nowhere. So:

    docs/source_pages.py pages OUT_DIR DOCUMENT.md...
        writes into OUT_DIR/pages one Markdown page per source file that the documents link to
        (showing the file, copied into OUT_DIR/files) and per linked folder (a list of its
        files), plus an index page, for Doxygen to read;
    docs/source_pages.py filter FILE.md
        (Doxygen's FILTER_PATTERNS for *.md) prints FILE.md with every such link pointing to the
        page made for it, and the top README's title, which repeats the project name that heads
        every page of the site, as "Overview". The README files themselves are not changed.

Links to Markdown pages, to images, to anything under docs/results/ (copied beside the site by
the docs target) and to web addresses are left as they are, with one exception: a link to a term
of the glossary, `[occupancy](../../docs/glossary.md#occupancy)`. On a code host the fragment is
the slug that the host makes of the heading `## Occupancy` (lowercase, spaces to hyphens, other
punctuation dropped); Doxygen makes no such ids and would open the top of the glossary. So the
filter gives every `## ` heading of docs/glossary.md the explicit id `glossary-<slug>`
(`## Occupancy {#glossary-occupancy}`) and turns each link to `glossary.md#<slug>`, from any page,
into `[occupancy](md_docs_glossary.html#glossary-occupancy)`, the glossary's page in the site and
that heading's anchor. docs/check_links.py then checks that every link of the built site
resolves, fragments included, so a fragment that names no term fails docs.site_links_resolve.
"""
import os
import pathlib
import re
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"(!?)\[((?:[^\[\]]|\[[^\]]*\])*)\]\(([^()\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")
IMAGE_SUFFIXES = {".png", ".svg", ".jpg", ".jpeg", ".gif"}
CODE_SUFFIXES = {".cu", ".cuh", ".cpp", ".hpp", ".h", ".py"}
SKIPPED_PARTS = {"__pycache__"}
GLOSSARY = "docs/glossary.md"  # relative to ROOT
# The HTML page Doxygen makes of it ("md_" and its path from the repository root, STRIP_FROM_PATH).
GLOSSARY_PAGE = "md_docs_glossary.html"
TERM_HEADING = re.compile(r"^## +(.+?)\s*$")


def heading_slug(title):
    """The id a code host (GitHub) gives a heading: lowercase, every character that is not a
    letter, digit, underscore, hyphen or space dropped, spaces made hyphens.
    `algbw and busbw` -> `algbw-and-busbw`, `Little's law` -> `littles-law`."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def glossary_label(slug):
    """The Doxygen id of the glossary heading whose slug is `slug`."""
    return "glossary-" + slug


def glossary_slugs(path=None):
    """The slugs of the glossary's terms (its `## ` headings), in the order of the page; a repeated
    slug gets -1, -2... as on a code host."""
    path = path or ROOT / GLOSSARY
    slugs = []
    for line, fenced in outside_fences(path.read_text(encoding="utf-8")):
        match = None if fenced else TERM_HEADING.match(line)
        if match:
            slug = base = heading_slug(match.group(1))
            count = 0
            while slug in slugs:
                count += 1
                slug = f"{base}-{count}"
            slugs.append(slug)
    return slugs


def glossary_fragment(document, link):
    """The fragment of a link of `document` to a term of the glossary (`glossary.md#occupancy`,
    or `#occupancy` within the glossary itself), or None for any other link."""
    if "#" not in link or re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", link):
        return None
    path, fragment = link.split("#", 1)
    glossary = ROOT / GLOSSARY
    if not path:
        return fragment if document == glossary and fragment else None
    if pathlib.Path(os.path.normpath(document.parent / path)) != glossary:
        return None
    return fragment or None


def page_label(target):
    """The Doxygen page name for a repository path: src_chapters_03_reduction_stages_x_cu."""
    return "src_" + re.sub(r"[^A-Za-z0-9]", "_", target.strip("/"))


def source_target(document, link):
    """The repository path (relative to ROOT, "/" separated) a link of `document` shows on a
    source page, or None when the link is left alone."""
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", link) or link.startswith(("#", "/", "@")):
        return None  # https:, mailto:, an anchor, an absolute path, a Doxygen @ref
    path = link.split("#", 1)[0].split("?", 1)[0]
    if not path:
        return None
    resolved = pathlib.Path(os.path.normpath(document.parent / path))
    try:
        relative = resolved.relative_to(ROOT).as_posix()
    except ValueError:
        return None  # outside the repository
    if not resolved.exists() or resolved.suffix.lower() == ".md":
        return None
    if resolved.suffix.lower() in IMAGE_SUFFIXES or relative.startswith("docs/results"):
        return None
    return relative + ("/" if resolved.is_dir() else "")


def outside_fences(text):
    """Yields (line, inside_fence) for every line, so code blocks are never rewritten."""
    inside = None
    for line in text.splitlines(keepends=True):
        match = FENCE.match(line)
        if match:
            if inside is None:
                inside = match.group(1)
                yield line, True
                continue
            if match.group(1) == inside:
                inside = None
                yield line, True
                continue
        yield line, inside is not None


def paragraphs(text):
    """Yields (chunk, inside_fence) that together make `text`: the lines outside code blocks
    grouped into paragraphs, since a link's text may wrap onto the next line (`[tail\nlaunch](...)`),
    and each blank line, heading and line of a code block on its own."""
    chunk = []
    for line, fenced in outside_fences(text):
        if fenced or not line.strip() or line.startswith("#"):
            if chunk:
                yield "".join(chunk), False
                chunk = []
            yield line, fenced
        else:
            chunk.append(line)
    if chunk:
        yield "".join(chunk), False


def linked_targets(document):
    targets = []
    for line, fenced in paragraphs(document.read_text(encoding="utf-8")):
        if fenced:
            continue
        for match in LINK.finditer(line):
            if match.group(1):
                continue  # an image
            target = source_target(document, match.group(3))
            if target and target not in targets:
                targets.append(target)
    return targets


def filter_document(path):
    """The text of `path` with links to source files pointing to their pages."""
    document = pathlib.Path(os.path.abspath(path))
    main_page = document == ROOT / "README.md"
    glossary_page = document == ROOT / GLOSSARY
    out = []
    slugs = iter(glossary_slugs(document)) if glossary_page else None
    for line, fenced in paragraphs(document.read_text(encoding="utf-8")):
        heading = None if fenced or not glossary_page else TERM_HEADING.match(line)
        if main_page and not out and line.startswith("# "):
            line = "# Overview\n"  # the site's header already names the project
        elif heading:
            # The id a code host gives this heading, made explicit for Doxygen.
            line = f"## {heading.group(1)} {{#{glossary_label(next(slugs))}}}\n"
        elif not fenced:
            def replace(match):
                bang, text, link = match.groups()
                fragment = None if bang else glossary_fragment(document, link)
                if fragment is not None:
                    # A plain link to the page, not [text](@ref label): Doxygen 1.9.4 breaks the
                    # latter when the text wraps onto the next line.
                    return f"[{text}]({GLOSSARY_PAGE}#{glossary_label(fragment)})"
                target = None if bang else source_target(document, link)
                if target is None:
                    return match.group(0)
                return f"[{text}]({page_label(target)}.html)"
            line = LINK.sub(replace, line)
        out.append(line)
    return "".join(out)


def folder_files(target):
    folder = ROOT / target
    return sorted(p.relative_to(ROOT).as_posix() for p in folder.rglob("*")
                  if p.is_file() and not SKIPPED_PARTS.intersection(p.parts))


def copy_name(target):
    """The name under which `target` is copied into OUT_DIR/files (unique, extension kept)."""
    return target.replace("/", "__")


def file_page(target):
    """A page that shows the file through Doxygen's \\include (highlighted, numbered lines) or,
    for what is not code, \\verbinclude: never as Markdown, whose commands it could contain."""
    suffix = pathlib.PurePosixPath(target).suffix.lower()
    command = "\\include{lineno}" if suffix in CODE_SUFFIXES else "\\verbinclude"
    return (f"# {target} {{#{page_label(target)}}}\n\n"
            f"The file `{target}` of the repository, as it was when the site was built.\n\n"
            f"{command} {copy_name(target)}\n")


def folder_page(target, files):
    lines = [f"# {target} {{#{page_label(target)}}}", "",
             f"The files in `{target}` of the repository:", ""]
    lines += [f"- [{f[len(target):]}]({page_label(f)}.html)" for f in files]
    return "\n".join(lines) + "\n"


def write_pages(out_dir, documents):
    pages = pathlib.Path(out_dir) / "pages"  # one of Doxygen's INPUT
    copies = pathlib.Path(out_dir) / "files"  # Doxygen's EXAMPLE_PATH
    for folder in (pages, copies):
        if folder.is_dir():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    targets = []
    for document in documents:
        for target in linked_targets(document):
            if target not in targets:
                targets.append(target)
    files, folders = [], {}
    for target in targets:
        if target.endswith("/"):
            folders[target] = folder_files(target)
            files += folders[target]
        else:
            files.append(target)
    files = sorted(set(files))
    for target in files:
        shutil.copyfile(ROOT / target, copies / copy_name(target))
        (pages / f"{page_label(target)}.md").write_text(file_page(target), encoding="utf-8")
    for target, contents in folders.items():
        (pages / f"{page_label(target)}.md").write_text(folder_page(target, contents),
                                                          encoding="utf-8")
    index = ["# Source files {#source_files}", "",
             "The repository files that the chapters link to, as they were when this site was "
             "built.", ""]
    index += [f"- \\subpage {page_label(t)}" for t in sorted(list(folders) + files)]
    (pages / "src_index.md").write_text("\n".join(index) + "\n", encoding="utf-8")
    return len(files), len(folders)


def main(argv):
    if len(argv) >= 3 and argv[1] == "pages":
        documents = [pathlib.Path(os.path.abspath(path)) for path in argv[3:]]
        files, folders = write_pages(argv[2], documents)
        print(f"{files} source page(s) and {folders} folder page(s) in {argv[2]}")
        return 0
    if len(argv) == 3 and argv[1] == "filter":
        sys.stdout.write(filter_document(argv[2]))
        return 0
    print("usage: source_pages.py pages OUT_DIR DOCUMENT.md... | source_pages.py filter FILE.md", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
