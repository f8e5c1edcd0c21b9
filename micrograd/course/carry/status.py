"""What the learner reads about their carried code: one line per piece, the reason one click away."""

from micrograd.palette import SUMMARY_STYLE
from .pieces import COMPANIONS

__all__ = ["Status", "show", "row"]

def row(name, result, results):
    """(the line saying what runs, the reason behind it, or None) for one piece."""
    lesson = result.key.split(":")[0]
    shows = f'yours.answer("{result.key}") shows the worked answer'
    if result.status == "passed":
        replaced = [results[k] for k in COMPANIONS.get(result.key, []) if k in results and results[k].status != "passed"]
        if not replaced:
            return f"✓ {name}: using yours, from {lesson} (it passes {lesson}'s check)", None
        what = " and ".join(other.key.split(": ", 1)[1] for other in replaced)
        reasons = [f"Yours passes {lesson}'s check; here it runs with the worked answer's {what}."]
        for other in replaced:
            piece = other.key.split(": ", 1)[1]
            if other.status == "missing":
                reasons.append(f"Your {piece} ({other.key.split(':')[0]}) is not written yet.")
            else:
                reasons.append(f"Your {piece} fails its check: {other.message}.")
        return f"✓ {name}: using yours, from {lesson}, with the worked answer's {what}", " ".join(reasons)
    if result.status == "missing":
        return (f"… {name}: using the worked answer, as {lesson}'s is not written yet",
                f"{shows}. Write yours in {lesson} and run its cell: from then on, this lesson runs on it.")
    lead = getattr(result, "lead", None) or f"yours fails {lesson}'s check"
    return (f"✗ {name}: using the worked answer, as {lead}",
            f"{result.message.rstrip('.')}. {shows}; fix yours in {lesson} and run its cell again.")


class Status:
    """Lines for the learner, each with an optional reason one click away (a <details> in a notebook): what a
    lesson runs on, one line per piece, or what a %%my_micrograd cell did."""

    def __init__(self, rows):
        self.rows = rows

    def text(self):
        return "\n".join(line + (f"\n    {reason}" if reason else "") for line, reason in self.rows)

    def __repr__(self):
        return self.text()

    def _repr_html_(self):
        from html import escape

        # Proportional type, wrapped between words: a monospace output box breaks lines mid-word.
        parts = ['<div class="micrograd-yours" style="font-family: var(--jp-content-font-family, sans-serif); '
                 'font-size: 13px; line-height: 1.5; white-space: normal; word-break: normal; overflow-wrap: break-word">']
        for line, reason in self.rows:
            if reason is None:
                parts.append(f"<div>{escape(line)}</div>")
            else:
                parts.append(f'<details><summary style="{SUMMARY_STYLE}">{escape(line)}</summary>'
                             f'<div style="margin: 2px 0 4px 1.4em">{escape(reason)}</div></details>')
        parts.append("</div>")
        return "".join(parts)


def show(status):
    try:
        from IPython import get_ipython
        from IPython.display import display
    except ImportError:  # pragma: no cover - IPython comes with the notebooks
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None:
        display(status)
    else:
        print(status.text())
