"""The package's layout, as micrograd/README.md gives it: each module imports only what sits above it there.

The imports are read from the code (every ``import`` and ``from ... import`` of the package, those inside
functions included), so a module that starts importing upward, a new circle, a module the page does not
list or one past 400 lines fails here, naming the module.
"""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "micrograd"
PAGE = PACKAGE / "README.md"
MAX_LINES = 400
# The engine is read in one sitting: its lines but the drop-in section (micrograd 0.1.0's names,
# between DROP_IN_START and DROP_IN_END, markers included) stay within MAX_ENGINE_LINES, the
# section itself within MAX_DROP_IN_LINES, and the whole file within MAX_LINES as any module.
MAX_ENGINE_LINES = 300
MAX_DROP_IN_LINES = 40
DROP_IN_START = "# -- drop-in:"
DROP_IN_END = "# -- end of the drop-in names --"
ROW = re.compile(r"^\|\s*`(?P<path>[\w/]+\.py)`\s*\|(?P<what>.*)\|(?P<imports>[^|]*)\|\s*$")


def module_name(path):
    """'viz/graph.py' -> 'viz.graph'; 'viz/__init__.py' -> 'viz'; '__init__.py' -> 'micrograd'."""
    parts = list(Path(path).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or "micrograd"


def modules(package=PACKAGE):
    """{module name: path} of every Python file of the package."""
    return {module_name(path.relative_to(package)): path for path in sorted(package.rglob("*.py"))}


def package_imports(name, source):
    """(module, [names] or None) for each import of the package in ``source`` (module ``name``): ``from m import a,
    b`` gives (m, [a, b]), ``import micrograd.m`` gives (m, None); m relative to the package ("" for itself)."""
    is_package = name == "micrograd" or source.path_is_package
    here = [] if name == "micrograd" else name.split(".")
    for node in ast.walk(ast.parse(source.text)):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_package else here[:-1]
                base = base[:len(base) - (node.level - 1)]
                yield ".".join(base + ([node.module] if node.module else [])), [alias.name for alias in node.names]
            elif node.module and (node.module == "micrograd" or node.module.startswith("micrograd.")):
                yield node.module.removeprefix("micrograd").lstrip("."), [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "micrograd" or alias.name.startswith("micrograd."):
                    yield alias.name.removeprefix("micrograd").lstrip("."), None


def imports_of(name, source, known):
    """The package's modules that ``source`` (module ``name``) imports, as module names."""
    found = set()
    for prefix, names in package_imports(name, source):
        if names is None:
            found.add(prefix or "micrograd")
        for alias in names or ():
            dotted = f"{prefix}.{alias}" if prefix else alias
            found.add(dotted if dotted in known else (prefix or "micrograd"))
    return {module for module in found if module in known and module != name}


def unresolved_imports(name, source, known):
    """The package's modules ``source`` (module ``name``) imports from that do not exist: ``from .pieces import x``
    after pieces moved, say (imports_of leaves them out, as it does any name that is not a module)."""
    return {prefix for prefix, _ in package_imports(name, source) if prefix and prefix not in known}


class Source:
    def __init__(self, path):
        self.text = path.read_text(encoding="utf-8")
        self.path_is_package = path.name == "__init__.py"


def import_graph(package=PACKAGE):
    found = modules(package)
    return {name: imports_of(name, Source(path), found) for name, path in found.items()}


def page_rows(text):
    """[(module name, {modules it imports, as the page says})], in the page's order."""
    rows = []
    for line in text.splitlines():
        match = ROW.match(line)
        if match:
            listed = {item.strip().strip("`") for item in match["imports"].split(",") if item.strip()}
            rows.append((module_name(match["path"]), listed))
    return rows


def circles(graph):
    """The import circles of graph, each as a list of modules (Tarjan's strongly connected components)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def layout_problems(graph, rows, line_counts):
    """Everything in which the code and the page disagree, one sentence each; [] when they agree."""
    problems = []
    place = {name: k for k, (name, _) in enumerate(rows)}
    for name in sorted(set(graph) - set(place)):
        problems.append(f"{name} has no line in micrograd/README.md: add one saying what it is and what it imports")
    for name in sorted(set(place) - set(graph)):
        problems.append(f"micrograd/README.md lists {name}, which is not in the package")
    for name, listed in rows:
        actual = graph.get(name, set())
        for other in sorted(actual):
            if other.startswith("course") and not name.startswith("course"):
                problems.append(f"{name} is part of the library but imports the course's {other}")
            elif other in place and place[other] > place[name]:
                problems.append(f"{name} imports {other}, which sits below it in micrograd/README.md: an upward import")
        if actual != listed and name in graph:
            problems.append(f"{name} imports {sorted(actual)}, but micrograd/README.md says {sorted(listed)}")
    for circle in circles(graph):
        problems.append(f"an import circle: {' -> '.join(circle + circle[:1])}")
    for name, count in sorted(line_counts.items()):
        limit = MAX_ENGINE_LINES if name == "engine" else MAX_LINES
        if count > limit:
            problems.append(f"{name} has {count} lines, past {limit}: split it by what each part is")
    return problems


def drop_in_section(lines):
    """(first, last) index of the engine's drop-in section, markers included; a ValueError unless
    there is exactly one of each marker, in order."""
    starts = [i for i, line in enumerate(lines) if line.strip().startswith(DROP_IN_START)]
    ends = [i for i, line in enumerate(lines) if line.strip() == DROP_IN_END]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        raise ValueError(f"engine.py marks its drop-in section with one {DROP_IN_START!r} line and one "
                         f"{DROP_IN_END!r} line after it; found {len(starts)} and {len(ends)}")
    return starts[0], ends[0]


def engine_lines_read(text):
    """The lines of engine.py a learner reads: all but the drop-in section."""
    lines = text.splitlines()
    first, last = drop_in_section(lines)
    return len(lines) - (last - first + 1)


def line_counts(package=PACKAGE):
    """{module: its lines}; for the engine, the lines a learner reads (``engine_lines_read``)."""
    counts = {}
    for name, path in modules(package).items():
        text = path.read_text(encoding="utf-8")
        counts[name] = engine_lines_read(text) if name == "engine" else len(text.splitlines())
    return counts


def test_the_engine_is_read_in_one_sitting_and_its_drop_in_section_holds_the_drop_in_names_alone():
    lines = (PACKAGE / "engine.py").read_text(encoding="utf-8").splitlines()
    first, last = drop_in_section(lines)
    assert last - first + 1 <= MAX_DROP_IN_LINES, f"the drop-in section has {last - first + 1} lines"
    assert len(lines) <= MAX_LINES
    assert engine_lines_read("\n".join(lines)) <= MAX_ENGINE_LINES
    with pytest.raises(ValueError, match="one '# -- drop-in:' line"):
        engine_lines_read("\n".join(line for line in lines if line.strip() != DROP_IN_END))


def test_the_package_is_laid_out_as_micrograd_readme_says():
    assert layout_problems(import_graph(), page_rows(PAGE.read_text(encoding="utf-8")), line_counts()) == []


def test_the_library_and_the_course_are_the_two_things_ls_shows():
    top = sorted(path.name for path in PACKAGE.iterdir() if not path.name.startswith(("_", ".")) or path.name == "__init__.py")
    packages = [name for name in top if (PACKAGE / name).is_dir()]
    assert packages == ["course", "data", "viz", "widgets"], top


def test_the_course_shows_its_jobs_as_folders_and_few_files_beside_them():
    course = PACKAGE / "course"
    folders = sorted(path.name for path in course.iterdir() if path.is_dir() and not path.name.startswith(("_", ".")))
    files = sorted(path.name for path in course.iterdir() if path.is_file())
    assert folders == ["browser", "carry", "grading", "lessons"], folders
    assert len(files) <= 12, f"micrograd/course/ has {len(files)} files at its top level; a job of its own gets a folder: {files}"


def test_every_import_of_the_package_names_a_module_it_has():
    found = modules(PACKAGE)
    missing = {name: sorted(unresolved_imports(name, Source(path), found)) for name, path in found.items()}
    assert {name: gone for name, gone in missing.items() if gone} == {}


def test_an_import_from_a_module_that_moved_is_named(tmp_path):
    package = tmp_path / "micrograd"
    (package / "course" / "carry").mkdir(parents=True)
    for path in ("__init__.py", "course/__init__.py", "course/carry/__init__.py", "course/carry/saved.py"):
        (package / path).write_text("")
    (package / "course" / "grading.py").write_text("from .saved import store\nfrom .carry.saved import store\n"
                                                   "import micrograd.course.pieces\nfrom . import carry\n")
    found = modules(package)
    assert unresolved_imports("course.grading", Source(package / "course" / "grading.py"), found) == {
        "course.saved", "course.pieces"}


# The checks above, shown to fail: each broken layout below is a real one the test must refuse.

def _current():
    return import_graph(), page_rows(PAGE.read_text(encoding="utf-8")), line_counts()


def test_an_upward_import_is_named():
    graph, rows, counts = _current()
    graph["engine"] = graph["engine"] | {"graphs"}
    problems = layout_problems(graph, rows, counts)
    assert "engine imports graphs, which sits below it in micrograd/README.md: an upward import" in problems
    assert any(problem.startswith("an import circle:") and "engine" in problem for problem in problems)


def test_the_library_importing_the_course_is_named():
    graph, rows, counts = _current()
    graph["nn"] = graph["nn"] | {"course.carry.yours"}
    assert "nn is part of the library but imports the course's course.carry.yours" in layout_problems(graph, rows, counts)


def test_a_module_missing_from_the_page_or_too_long_is_named():
    graph, rows, counts = _current()
    graph["brand_new"] = {"engine"}
    counts = {**counts, "nn": 401, "engine": 301}
    problems = layout_problems(graph, rows, counts)
    assert any(problem.startswith("brand_new has no line") for problem in problems)
    assert "nn has 401 lines, past 400: split it by what each part is" in problems
    assert "engine has 301 lines, past 300: split it by what each part is" in problems


def test_imports_are_read_however_they_are_written(tmp_path):
    package = tmp_path / "micrograd"
    (package / "viz").mkdir(parents=True)
    (package / "__init__.py").write_text("from .engine import Value\n")
    (package / "engine.py").write_text("def f():\n    from . import errors  # inside a function too\n")
    (package / "errors.py").write_text("")
    (package / "viz" / "__init__.py").write_text("from .graph import x\n")
    (package / "viz" / "graph.py").write_text("from .. import engine\nfrom micrograd import Value\nimport micrograd.errors\n")
    assert import_graph(package) == {
        "micrograd": {"engine"}, "engine": {"errors"}, "errors": set(), "viz": {"viz.graph"},
        "viz.graph": {"engine", "micrograd", "errors"},
    }


@pytest.mark.parametrize("name", ["micrograd", "micrograd.viz", "micrograd.widgets"])
def test_importing_the_library_loads_nothing_of_the_course(name):
    code = f"import sys, {name}; print(sorted(m for m in sys.modules if m.startswith('micrograd.course')))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_import_micrograd_needs_only_the_standard_library():
    code = ("import sys; before = set(sys.modules); import micrograd; "
            "print(sorted(m.split('.')[0] for m in set(sys.modules) - before "
            "if m.split('.')[0] not in sys.stdlib_module_names and m.split('.')[0] != 'micrograd'))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
