#!/usr/bin/env python3
"""Checks that every relative link in the built Doxygen site leads to a file of the site.

    docs/check_links.py build/docs/html

Walks every .html file under the folder, reads each href= and src= attribute, and reports the
relative ones whose target file does not exist (a README's link to a source file that the site
does not carry, an image that was not copied...). Links with a scheme (https:, mailto:...) and
pure in-page anchors (#section) are not checked. Exit code 0: every link resolves; 1: broken
links (each listed with the page it is on); 2: the folder holds no HTML.
"""
import html.parser
import pathlib
import sys
import urllib.parse


class LinkCollector(html.parser.HTMLParser):
    """Collects the href and src attribute values of one page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)


def relative_target(link):
    """The path part of a relative link, or None for links that are not checked."""
    parsed = urllib.parse.urlsplit(link)
    if parsed.scheme or parsed.netloc or not parsed.path:
        return None  # https://..., mailto:..., javascript:..., //host/..., #anchor
    return urllib.parse.unquote(parsed.path)


def broken_links(site):
    """[(page, link)] for every relative link under `site` whose target is missing."""
    broken = []
    for page in sorted(site.rglob("*.html")):
        collector = LinkCollector()
        collector.feed(page.read_text(encoding="utf-8", errors="replace"))
        for link in collector.links:
            target = relative_target(link)
            if target is None:
                continue
            resolved = (page.parent / target) if not target.startswith("/") else None
            if resolved is None or not resolved.exists():
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
