"""What the backprop stepper shows in its panel, and says to a screen reader after each press.

Each function reads a ``BackpropStepper`` (called ``self`` here, as it is where they are used).
"""

import html

from ._base import fmt, message_html

__all__ = ["end_sentence", "panel_html", "step_sentence", "warnings"]


def panel_html(self):
    """The panel under the buttons: where the pass is, the step just taken, what went wrong."""
    name = self.names
    root = name[self.root]
    total = len(self.schedule)
    if self.position == 0:
        how = (
            "calling each node's own _backward(), which adds local × upstream into each input's grad"
            if self.on_originals else "adding local × upstream into each input's grad"
        )
        unheld = f" Your nodes have no .grad to hold them ({self.unheld}): the gradients are shown here only." if self.unheld else ""
        return message_html(
            f"Every gradient is 0. Step sets {root}.grad = 1 (d{root}/d{root} = 1), then visits the nodes "
            f"from {root} back to the inputs ({total} with inputs), {how}.{unheld}"
        )
    step = self._steps[-1]
    node = step.node
    rows = []
    if self.position == 1:
        rows.append(f"<tr><td><code>{html.escape(root)}.grad = 1</code></td><td>(the seed: d{html.escape(root)}/d{html.escape(root)} = 1)</td></tr>")
    if step.own:
        for child, before, after in step.updates:
            rows.append(
                f"<tr><td style='padding-right:1.5em'><code>{html.escape(name[child])}.grad</code></td>"
                f"<td><code>{fmt(before)} → {fmt(after)}</code></td></tr>"
            )
    else:
        for child, local, upstream, before, after in step.updates:
            rows.append(
                "<tr>"
                f"<td style='padding-right:1.5em'><code>{html.escape(name[child])}.grad += {fmt(local)} × {fmt(upstream)}</code></td>"
                f"<td><code>{fmt(before)} → {fmt(after)}</code></td>"
                "</tr>"
            )
    op = f" ({html.escape(node.op)})" if node.op else ""
    did = f", its _backward() changed {len(step.updates)} gradient{'s' * (len(step.updates) != 1)}" if step.own and not step.error else ""
    head = (
        f"<b>node <span class='micrograd-position'>{self.position}</span> of {total}: "
        f"<span class='micrograd-current'>{html.escape(name[node])}</span></b>{op}, "
        f"upstream grad {fmt(node.grad)}{did}"
    )
    notes = [message_html(text, kind="error") for text in warnings(self, step)]
    tail = ""
    if self.done:
        failed = sum(1 for done in self._steps if done.error)
        if failed:
            tail = message_html(
                f"Reached the inputs, but {failed} of the {total} steps passed no gradient on (each said why), "
                f"so the gradients are not what {root}.backward() would give.", kind="error")
        elif self.on_originals:
            tail = message_html(f"Done: every node has passed its gradient on once, from {root} back to the inputs.")
        else:
            tail = message_html(f"Done: every gradient now equals what {root}.backward() gives.")
    return f"<div>{head}</div><table style='line-height:1.5'>{''.join(rows)}</table>{''.join(notes)}{tail}"

def step_sentence(self):
    """The step just taken, as a screen reader hears it: the node, then each gradient it changed."""
    step, name = self._steps[-1], self.names
    node = step.node
    seed = f"{name[self.root]}.grad = 1, the seed; " if self.position == 1 else ""
    op = f" ({node.op})" if node.op else ""
    head = f"{seed}node {self.position} of {len(self.schedule)}: {name[node]}{op}, upstream grad {fmt(node.grad)}"
    if step.own:
        changes = [f"{name[child]}.grad from {fmt(before)} to {fmt(after)}" for child, before, after in step.updates]
    else:
        changes = [f"{name[child]}.grad += {fmt(local)} × {fmt(upstream)}, now {fmt(after)}"
                   for child, local, upstream, before, after in step.updates]
    sentence = head + (": " + "; ".join(changes) if changes else "") + "."
    found = warnings(self, step)
    if found:
        sentence += f" Careful: {found[0]}"
    if self.done:
        sentence += f" {end_sentence(self)}"
    return sentence

def end_sentence(self):
    root = self.names[self.root]
    failed = sum(1 for done in self._steps if done.error)
    if failed:
        return f"Reached the inputs, but {failed} of the steps passed no gradient on."
    if self.on_originals:
        return f"Done: every node has passed its gradient on once, from {root} back to the inputs."
    return f"Done: every gradient now equals what {root}.backward() gives."

def warnings(self, step):
    """What the panel warns of after ``step``: an error, a gradient replaced, a stray or idle _backward()."""
    name = self.names
    if step.error:
        return [step.error]
    found = []
    for child, before, after, summed in step.overwritten:
        if summed is None or before == 0:  # set (=) by this node's _backward(), seen by calling it twice
            twice = (f"{name[child]} is used twice by this node, and holds one use's share, where adding gives "
                     f"{fmt(summed)}" if summed is not None else "a value used twice keeps only its last use's share")
            found.append(f"this node's _backward() sets {name[child]}.grad (=) where it must add to it (+=): {twice}.")
            continue
        found.append(
            f"{name[child]}.grad already held {fmt(before)} from an earlier use, and this step replaced it with "
            f"{fmt(after)}: gradients from two uses must add up (+=, not =), to {fmt(summed)} here."
        )
    if step.own:
        inputs = set(map(id, step.node.inputs))
        strays = [name[child] for child, _, _ in step.updates if id(child) not in inputs]
        if strays:
            found.append(f"_backward() changed {', '.join(strays)}, which {'is' if len(strays) == 1 else 'are'} not among this node's inputs.")
        if step.idle:
            found.append("_backward() changed no gradient: it should add local derivative × this node's grad into each input's grad.")
    return found
