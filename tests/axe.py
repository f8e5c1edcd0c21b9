"""axe-core, run inside a page the browser tests already opened.

axe-core (npm, pinned in package.json, installed by `npm ci`) is injected into the page
with Playwright and run on part of it: what the project writes (a lesson's outputs and
prose, the site's article), not the interface around it (JupyterLab's menus and panels,
the Sphinx theme's header and sidebars), which the project does not make.  The same rules
run on the whole page too, so a report can list what comes from that interface.

Only serious and critical violations fail a test: those block a learner (no name on a
control, text below 4.5:1, an image with no text alternative); moderate and minor ones are
counted in the report.
"""

from pathlib import Path

AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
# WCAG 2.0, 2.1 and 2.2 at levels A and AA: what universities must publish to.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]

RUN = """
async ([include, exclude, tags]) => {
    const context = include === null ? document : {include, exclude};
    const result = await axe.run(context, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']});
    return result.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160),
                                  summary: (n.failureSummary || '').slice(0, 300)})),
    }));
}
"""


def axe_source():
    if not AXE.is_file():
        raise AssertionError(f"axe-core is not installed ({AXE} is missing): run `npm ci` in {AXE.parents[2]}")
    return AXE


def run_axe(page, include=None, exclude=()):
    """axe's violations in ``page`` (a list of dicts: id, impact, help, nodes), limited to the CSS
    selectors ``include`` (every element matching any of them; None: the whole document)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(axe_source()))
    include = None if include is None else [[selector] for selector in include]
    return page.evaluate(RUN, [include, [[selector] for selector in exclude], TAGS])


def blocking(violations):
    """The serious and critical ones."""
    return [v for v in violations if v["impact"] in BLOCKING]


def counts(violations):
    """{impact: number of elements} over the violations."""
    found = {}
    for violation in violations:
        found[violation["impact"]] = found.get(violation["impact"], 0) + len(violation["nodes"])
    return found


def described(violations, limit=6):
    """One line per violation, with the first elements it was found on."""
    lines = []
    for v in violations:
        where = "; ".join(f"{n['target']} {n['html'][:90]!r}" for n in v["nodes"][:limit])
        lines.append(f"{v['impact']} {v['id']} ({v['help']}) on {len(v['nodes'])}: {where}")
    return lines
