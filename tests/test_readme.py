"""README.md is the front door: short, and every guide it points to is there and on the course site.

The guides themselves are pages of the course site (docs/guide/, docs/teaching/, staged by
docs/build_site.py); tests/test_site.py builds the site and checks that each guide the README names
became a page of it.  Here, without a build: the README's length, that every local link of the README
and of benchmarks/README.md names a file, and that every page the README sends a reader to is one the
site stages and lists in a table of contents of its front page.
"""

import re
import sys
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_LINES = 200
# [text](target) and ![alt](target): Markdown's inline links and images.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")

sys.path.insert(0, str(ROOT / "docs"))
import build_site  # noqa: E402

sys.path.remove(str(ROOT / "docs"))


def local_links(page):
    """(target as written, the file it names) for every relative link of a Markdown page."""
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        parts = urllib.parse.urlsplit(target)
        if parts.scheme or parts.netloc or not parts.path:
            continue  # another site, or a place in this page
        yield target, (page.parent / urllib.parse.unquote(parts.path)).resolve()


def readme_guides():
    """The site's own pages the README links to, as paths under docs/ (guide/setup.md, ...)."""
    docs = (ROOT / "docs").resolve()
    return sorted({file.relative_to(docs).as_posix() for _, file in local_links(README) if docs in file.parents})


def toctree_entries(index):
    """Every document named in a toctree of a MyST page: guide/setup, lessons/[0-9]*, ..."""
    entries = []
    for block in re.findall(r"```\{toctree\}\n(.*?)```", index.read_text(encoding="utf-8"), re.DOTALL):
        entries += [line.strip() for line in block.splitlines() if line.strip() and not line.startswith(":")]
    return entries


def test_the_readme_is_at_most_200_lines():
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"README.md has {lines} lines: move the detail to a guide on the site (docs/guide, docs/teaching)"


@pytest.mark.parametrize("page", ["README.md", "benchmarks/README.md"])
def test_every_local_link_of_the_page_names_a_file(page):
    missing = [target for target, file in local_links(ROOT / page) if not file.exists()]
    assert not missing, f"{page} links to what is not in the repository: {missing}"


def test_the_readme_points_to_each_guide_the_site_has():
    guides = readme_guides()
    staged = build_site.site_pages()
    assert [page for page in guides if page not in staged] == [], "the README points to pages the site does not build"
    unlisted = [page for page in staged if page != "index.md" and page not in guides]
    assert unlisted == [], f"guides on the site the README does not point to: {unlisted}"


def test_every_guide_is_in_a_table_of_contents_of_the_front_page():
    entries = toctree_entries(ROOT / "docs" / "index.md")
    pages = [page for page in build_site.site_pages() if page != "index.md"]
    assert pages, "the site has no guide pages"
    assert [page for page in pages if page.removesuffix(".md") not in entries] == []


def test_teaching_with_it_is_one_section_of_the_front_page_with_every_teacher_guide():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    (section,) = re.findall(r"```\{toctree\}\n:caption: Teaching with it\n(.*?)```", index, re.DOTALL)
    listed = [line.strip() for line in section.splitlines() if line.strip() and not line.startswith(":")]
    teaching = sorted(path.stem for path in (ROOT / "docs" / "teaching").glob("*.md"))
    assert sorted(entry.removeprefix("teaching/") for entry in listed) == teaching
    assert {"checking_a_fork", "publishing", "browser_app", "accessibility", "grading"} <= set(teaching)


@pytest.mark.parametrize("guide", build_site.site_pages())
def test_every_link_between_the_site_s_pages_names_a_page(guide):
    # Sphinx only warns about a link to a page it does not have; the link then leads nowhere.
    missing = [target for target, file in local_links(ROOT / "docs" / guide)
               if file.suffix == ".md" and not file.is_file()]
    assert not missing, f"docs/{guide} links to pages that do not exist: {missing}"


# A merge left unresolved: git's markers at the start of a line (a line of "=" alone is Markdown's heading rule).
CONFLICT = re.compile(r"^(<{7} |>{7} )", re.MULTILINE)


def conflicted(root):
    """The tracked text files under root that hold a conflict marker, with the first such line's number."""
    import subprocess

    names = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout.split(b"\0")
    found = []
    for name in filter(None, names):
        path = root / name.decode()
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue  # a picture, a wheel, or a file the working tree has deleted
        match = CONFLICT.search(text)
        if match:
            found.append(f"{name.decode()}:{text.count(chr(10), 0, match.start()) + 1}")
    return found


def test_no_file_keeps_a_merge_conflict():
    assert conflicted(ROOT) == [], "resolve these merge conflicts (git's <<<<<<< and >>>>>>> lines)"


def test_a_merge_conflict_is_found(tmp_path):
    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "notes.md").write_text("# Title\n\n<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> branch\n", encoding="utf-8")
    (tmp_path / "fine.md").write_text("Heading\n=======\n", encoding="utf-8")
    subprocess.run(["git", "-C", str(tmp_path), "add", "."], check=True)
    assert conflicted(tmp_path) == ["notes.md:3"]
