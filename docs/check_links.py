#!/usr/bin/env python3
"""Checks that every relative link in the built Doxygen site leads to a file of the site, and
every fragment to an anchor of its page.

    docs/check_links.py build/docs/html

Walks every .html file under the folder, reads each href= and src= attribute, and reports the
relative ones whose target file does not exist (a README's link to a source file that the site
does not carry, an image that was not copied...) and those with a fragment (page.html#x, or #x
within a page) whose HTML page has no element with that id or name (a lesson's link to a glossary
term, md_docs_glossary.html#glossary-occupancy, that would open the top of the glossary). Links
with a scheme (https:, mailto:...) are not checked, nor fragments of files that are not HTML.
Exit code 0: every link resolves; 1: broken links (each listed with the page it is on); 2: the
folder holds no HTML.
"""
import html.parser
import pathlib
import sys
import urllib.parse


class LinkCollector(html.parser.HTMLParser):
    """Collects the href and src attribute values of one page, and the anchors it offers (the
    values of its id and name attributes)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []
        self.anchors = set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)
            elif name in ("id", "name") and value:
                self.anchors.add(value)


def relative_target(link):
    """(path, fragment) of a relative link (path "" for an in-page anchor), or None for links
    that are not checked."""
    parsed = urllib.parse.urlsplit(link)
    if parsed.scheme or parsed.netloc or not (parsed.path or parsed.fragment):
        return None  # https://..., mailto:..., javascript:..., //host/..., a bare "#"
    return urllib.parse.unquote(parsed.path), urllib.parse.unquote(parsed.fragment)


def broken_links(site):
    """[(page, link)] for every relative link under `site` whose target is missing, or whose
    fragment names no anchor of its HTML page."""
    collected = {}
    for page in sorted(site.rglob("*.html")):
        collector = LinkCollector()
        collector.feed(page.read_text(encoding="utf-8", errors="replace"))
        collected[page.resolve()] = (page, collector)
    broken = []
    for page, collector in collected.values():
        for link in collector.links:
            target = relative_target(link)
            if target is None:
                continue
            path, fragment = target
            resolved = page.parent / path if path and not path.startswith("/") else None
            if path and (resolved is None or not resolved.exists()):
                broken.append((page.relative_to(site), link))
                continue
            landing = collected.get((resolved or page).resolve())
            if fragment and landing is not None and fragment not in landing[1].anchors:
                broken.append((page.relative_to(site), link))
    return broken


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    site = pathlib.Path(argv[1])
    pages = list(site.rglob("*.html")) if site.is_dir() else []
    if not pages:
        print(f"no HTML pages under {site}: build the site first (make docs)", file=sys.stderr)
        return 2
    broken = broken_links(site)
    for page, link in broken:
        print(f"{page}: broken link {link}")
    if broken:
        print(f"{len(broken)} broken link(s) in {len(pages)} page(s) under {site}")
        return 1
    print(f"every relative link in {len(pages)} page(s) under {site} resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
