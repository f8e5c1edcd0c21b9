"""Widgets on the static site: their static picture, and a note that they are live in JupyterLab.

A widget's display bundle carries the widget view (application/vnd.jupyter.widget-view+json)
beside a static picture of its state (an image, or HTML with one).  A static page has no
kernel to drive the widget, so this post-transform drops the view before myst-nb picks what
to show: the picture wins, and a note under it says where the widget is live.  A widget with
no picture shows the note alone rather than its text/plain repr.
"""

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
NOTE = "Interactive widget: this is a picture of its state. It is live in JupyterLab (make lab)."


class StaticWidgets(SphinxPostTransform):
    # myst-nb's SelectMimeType runs at priority 4 and keeps one entry per bundle.
    default_priority = 3

    def run(self, **kwargs):
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            views = [child for child in bundle.children if child.get("mime_type") == WIDGET_VIEW]
            if not views:
                continue
            for view in views:
                bundle.remove(view)
            pictures = [child for child in bundle.children if child.get("mime_type") != "text/plain"]
            if not pictures:
                for child in list(bundle.children):
                    bundle.remove(child)
            wrapper = nodes.container(classes=["static-widget"])
            bundle.replace_self(wrapper)
            if bundle.children:
                wrapper += bundle
            wrapper += nodes.paragraph(NOTE, NOTE, classes=["widget-note"])


def setup(app):
    app.add_post_transform(StaticWidgets)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
