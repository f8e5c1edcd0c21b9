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

import time
from pathlib import Path

AXE = Path(__file__).resolve().parent.parent / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = ("serious", "critical")
# WCAG 2.0, 2.1 and 2.2 at levels A and AA: what universities must publish to.
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]

# Violations inside our outputs in what third-party code draws there, which no option of it reaches:
# (rule, the element it comes from, why it is not ours).  They are reported, never hidden.
# ipywidgets 8.1 names neither a slider's handle nor the Play widget's buttons; the course's widgets name them
# from the page (micrograd/widgets/accessible.py), so those are checked as the course's own.  What stays
# ipywidgets' own: the controls of an ipywidget the course does not make (none in the lessons), and each
# control's own look (a slider's track, a button's face, the readout's box), drawn in JupyterLab's colours.
NOT_OURS = (
    ("image-alt", ".jp-RenderedImage",
     "JupyterLab's image renderer writes no alt for a PNG output (a matplotlib figure); the site gives each its text"),
)

RUN = """
async ([include, exclude, tags, rules, notOurs]) => {
    const context = include === null ? document : {include, exclude};
    const runOnly = rules === null ? {type: 'tag', values: tags} : {type: 'rule', values: rules};
    // resultTypes keeps every element of these two results (axe cuts the others' down to their first element).
    const result = await axe.run(context, {runOnly, resultTypes: ['violations', 'incomplete']});
    const whose = (rule, target) => {
        const el = document.querySelector(target[0]);
        const found = notOurs.find(([id, selector]) => id === rule && el && el.closest(selector));
        return found ? found[2] : null;
    };
    // axe leaves text in the very colour of its background (1:1) "to review" (it might be hidden on
    // purpose), although it measured both colours: the worst contrast of all.  Text the page shows is
    // never hidden that way, so a measured ratio under the threshold is a violation.
    const unreadable = result.incomplete.filter(v => v.id === 'color-contrast').map(v => ({
        ...v, id: 'color-contrast', help: v.help + ' (axe: to review; its measured ratio is below the threshold)',
        nodes: v.nodes.filter(n => n.any.some(check => check.data && check.data.fgColor && check.data.bgColor
            && check.data.contrastRatio < parseFloat(check.data.expectedContrastRatio))),
    })).filter(v => v.nodes.length);
    return result.violations.concat(unreadable).map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => ({target: n.target.join(' '), html: n.html.slice(0, 160), notOurs: whose(v.id, n.target),
                                  summary: (n.failureSummary || '').slice(0, 300)})),
    }));
}
"""


def axe_source():
    if not AXE.is_file():
        raise AssertionError(f"axe-core is not installed ({AXE} is missing): run `npm ci` in {AXE.parents[2]}")
    return AXE


def run_axe(page, include=None, exclude=(), rules=None):
    """axe's violations in ``page`` (a list of dicts: id, impact, help, nodes), limited to the CSS
    selectors ``include`` (every element matching any of them; None: the whole document), under
    every rule of ``TAGS`` or only the axe rules named in ``rules``.
    None when no element matches ``include``."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(axe_source()))
    if include is not None and not page.locator(", ".join(include)).count():
        return None  # nothing of ours on this page (Sphinx's search page, say)
    include = None if include is None else [[selector] for selector in include]
    start = time.perf_counter()
    rules = None if rules is None else list(rules)
    found = page.evaluate(RUN, [include, [[selector] for selector in exclude], TAGS, rules, [list(rule) for rule in NOT_OURS]])
    SECONDS[0] += time.perf_counter() - start
    return found


SECONDS = [0.0]  # time spent in axe, for the report of what the check costs


def blocking(violations):
    """The serious and critical ones, on elements the project makes (see NOT_OURS)."""
    found = []
    for v in violations:
        nodes = [n for n in v["nodes"] if n["notOurs"] is None]
        if v["impact"] in BLOCKING and nodes:
            found.append(dict(v, nodes=nodes))
    return found


def not_ours(violations):
    """{why: number of elements} of the violations NOT_OURS names."""
    found = {}
    for v in violations:
        for n in v["nodes"]:
            if n["notOurs"] is not None:
                key = f"{v['impact']} {v['id']}: {n['notOurs']}"
                found[key] = found.get(key, 0) + 1
    return found


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
