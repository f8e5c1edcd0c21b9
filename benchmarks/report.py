"""Turning measured figures into the printed table and the plot."""

DASH = "—"


def ratio(a, b):
    """a / b as a short 'N×': two significant figures, at most."""
    r = a / b
    if r >= 10:
        return f"{r:,.0f}×"
    return f"{r:.1f}×" if r >= 1 else f"{r:.2f}×"


def duration(seconds):
    """A long time in the unit a reader would use."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.0f} h"


def table(sections):
    """Fixed-width text from sections: (title, rows), a row a tuple of cells.

    Numbers are right-aligned; the last column (remarks) is left-aligned.  A
    row shorter than the longest one leaves its last cells empty; a row of
    one cell is a note printed as it is.
    """
    rows = [row for _, section_rows in sections for row in section_rows if len(row) > 1]
    columns = max(len(row) for row in rows)
    widths = [max(len(row[i]) for row in rows if len(row) > i) for i in range(columns)]
    lines = []
    for title, section_rows in sections:
        lines += ["", title]
        for row in section_rows:
            if len(row) == 1:
                lines.append("  " + row[0])
                continue
            cells = [row[0].ljust(widths[0])]
            cells += [cell if i == columns - 1 else cell.rjust(widths[i]) for i, cell in enumerate(row) if i > 0]
            lines.append(("  " + "   ".join(cells)).rstrip())
    return "\n".join(lines[1:])


def speed_plot(path, demo, mnist, steps):
    """Two bar charts on log scales: the demo's ms per step, MNIST-shaped samples/s.

    ``demo`` and ``mnist`` map a label to (value, colour, annotation).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(11, 3.6))
    panels = [
        (axes[0], demo, f"Karpathy's demo loop, {steps} steps:\nCPU ms per step (lower is better)",
         "CPU milliseconds per step (log scale)"),
        (axes[1], mnist, "MLP 784-30-10, one sample at a time:\nsamples per second (higher is better)",
         "training samples per second (log scale)"),
    ]
    for ax, bars, title, xlabel in panels:
        labels = list(bars)
        values = [bars[label][0] for label in labels]
        ax.barh(labels, values, color=[bars[label][1] for label in labels])
        ax.set_xscale("log")
        ax.set_xlim(min(values) / 3, max(values) * 30)
        ax.invert_yaxis()
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(xlabel, fontsize=9)
        for y, label in enumerate(labels):
            ax.annotate(bars[label][2], (values[y], y), xytext=(4, 0), textcoords="offset points",
                        va="center", fontsize=9)
        ax.spines[["top", "right"]].set_visible(False)
    figure.suptitle("Measured side by side in one run on one machine (CPU time)", fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
