"""Build the course site: python docs/build_site.py [OUTDIR]  (make site; OUTDIR defaults to build/site).

Sphinx reads its pages from one source folder, and the lessons live in
notebooks/ while the site's own pages live here in docs/.  So the build copies
both into a staging folder beside the output (OUTDIR.src: index.md, lessons/
and lessons/solutions/, keeping file times so a second build only redoes what
changed) and runs Sphinx on it with this folder's conf.py.  A symbolic link
would not do: MyST resolves a link between lessons through the link's target
and would no longer find the lesson it points to.
"""

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
NOTEBOOKS = ROOT / "notebooks"
PAGES = ["index.md"]  # the site's own pages, beside conf.py


def stage(source):
    """Mirror the site's pages and the notebooks into `source`, dropping files that went away."""
    wanted = {}
    for name in PAGES:
        wanted[Path(name)] = DOCS / name
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(NOTEBOOKS.glob("solutions/*.ipynb")):
        wanted[Path("lessons") / notebook.relative_to(NOTEBOOKS)] = notebook
    source.mkdir(parents=True, exist_ok=True)
    for path in source.rglob("*"):
        if path.is_file() and path.relative_to(source) not in wanted:
            path.unlink()
    for relative, original in wanted.items():
        target = source / relative
        if target.exists() and target.stat().st_mtime == original.stat().st_mtime:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(original, target)


def build(outdir, quiet=False):
    """Stage the pages and run Sphinx; returns Sphinx's exit code."""
    outdir = Path(outdir).resolve()
    source = outdir.with_name(outdir.name + ".src")
    stage(source)
    command = [
        sys.executable, "-m", "sphinx",
        "-b", "html",
        "-c", str(DOCS),
        "-d", str(source / ".doctrees"),
        str(source), str(outdir),
    ]
    if quiet:
        command.append("-q")
    return subprocess.call(command)


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
