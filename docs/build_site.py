"""Build the course site: python docs/build_site.py [OUTDIR]  (make site; OUTDIR defaults to build/site).

Sphinx reads its pages from one source folder, and the lessons live in
notebooks/ while the site's own pages live here in docs/ (index.md, and the
guides in guide/ and teaching/).  So the build copies both into a staging
folder (index.md, guide/, teaching/, lessons/ and lessons/solutions/) and
runs Sphinx on it with this folder's conf.py.  A symbolic link would not do:
MyST resolves a link between lessons through the link's target and would no
longer find the lesson it points to.

A build writes nothing outside OUTDIR.  The staging folder, Sphinx's doctrees
and the jupyter_execute folder myst-nb always puts beside Sphinx's output
folder all live in a temporary folder, removed afterwards; the finished site
then takes OUTDIR's place (only a folder this script built before, or an
empty one, is replaced).  A build takes seconds, so nothing is kept for an
incremental one.
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
NOTEBOOKS = ROOT / "notebooks"
PAGES = ["index.md"]  # the site's own pages, beside conf.py
GUIDES = ["guide", "teaching"]  # folders of guide pages beside conf.py: every .md in them is a page
BUILT_MARK = ".buildinfo"  # Sphinx writes it into every HTML build


def site_pages():
    """The site's own pages, by their path under docs/: index.md and every guide."""
    return PAGES + sorted(path.relative_to(DOCS).as_posix() for folder in GUIDES for path in (DOCS / folder).glob("*.md"))


def stage(source):
    """Copy the site's pages and the notebooks into `source`."""
    wanted = {Path(name): DOCS / name for name in site_pages()}
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(NOTEBOOKS.glob("solutions/*.ipynb")):
        wanted[Path("lessons") / notebook.relative_to(NOTEBOOKS)] = notebook
    for relative, original in wanted.items():
        target = source / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(original, target)


def replaceable(outdir):
    """Whether the site may take `outdir`'s place: absent, empty, or a site built before."""
    return not outdir.exists() or (outdir.is_dir() and (not any(outdir.iterdir()) or (outdir / BUILT_MARK).is_file()))


def build(outdir, quiet=False):
    """Stage the pages and run Sphinx; returns Sphinx's exit code.  OUTDIR changes only if it succeeds."""
    outdir = Path(outdir).resolve()
    if not replaceable(outdir):
        print(f"{outdir} exists and is not a site this script built: not replacing it", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="micrograd-site-") as work:
        work = Path(work)
        source, html = work / "source", work / "html"
        stage(source)
        command = [
            sys.executable, "-m", "sphinx",
            "-b", "html",
            "-c", str(DOCS),
            "-d", str(work / "doctrees"),
            str(source), str(html),
        ]
        if quiet:
            command.append("-q")
        code = subprocess.call(command)
        if code == 0:
            if outdir.exists():
                shutil.rmtree(outdir)
            outdir.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(html, outdir)
    return code


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", nargs="?", default=str(ROOT / "build" / "site"), help="where the HTML goes")
    parser.add_argument("-q", "--quiet", action="store_true", help="print only warnings and errors")
    args = parser.parse_args(argv)
    if not NOTEBOOKS.is_dir():
        parser.error(f"no notebooks folder at {NOTEBOOKS}")
    code = build(args.outdir, quiet=args.quiet)
    if code == 0:
        print(f"Site built: open {Path(args.outdir).resolve() / 'index.html'}")
    return code


if __name__ == "__main__":
    sys.exit(main())
