"""Sphinx configuration of the course site: `make site` builds it into build/site.

The pages are the lessons and their solutions exactly as stored in notebooks/
(docs/build_site.py stages them beside this folder's pages): strict nbval has already proved that
the stored outputs are what a fresh run gives, so nothing is executed here.

Everything a page needs is bundled into the build, so the site works from a
course server with no internet, or opened from disk: MathJax comes from the
sphinx-mathjax-offline package, the theme ships its fonts and icons, and the
ipywidgets scripts that myst-nb would take from a CDN are switched off (each
widget shows its static picture instead; see _ext/static_widgets.py).
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

project = "micrograd lessons"
author = "the micrograd lessons authors"
copyright = "the micrograd lessons authors"

extensions = [
    "myst_nb",
    "sphinx-mathjax-offline",  # MathJax 3 copied into _static/mathjax, no CDN
    "static_widgets",
    "browser_links",  # "Run in your browser" on every lesson page, to the app in lite/
    "sphinx.ext.githubpages",  # .nojekyll: GitHub Pages then serves _static/ as it is
]

root_doc = "index"

# Notebooks are rendered from their stored outputs, never re-executed.
nb_execution_mode = "off"
# myst-nb would load require.js and @jupyter-widgets/html-manager from a CDN
# for every notebook with widget state: no scripts, the static picture shows.
nb_ipywidgets_js = {}
# The checker's structured verdict (application/vnd.micrograd.verdict+json)
# sits beside its text/html in the same bundle; the HTML is what is shown, so
# the unknown JSON type is not worth a warning.
suppress_warnings = ["mystnb.unknown_mime_type"]

myst_enable_extensions = ["dollarmath", "amsmath"]
# MathJax makes every formula a Tab stop by default (for its menu and explorer): lesson 3 has
# dozens, and a keyboard reader would tab through them all to reach the next link.  A screen
# reader reads each formula from the MathML MathJax puts beside it, which needs no focus.
# (A display formula too wide for the column scrolls, and course.js makes that box a Tab stop.)
mathjax3_config = {"options": {"menuOptions": {"settings": {"inTabOrder": False}}}}
myst_heading_anchors = 3

html_theme = "sphinx_book_theme"
html_title = "micrograd lessons"
html_static_path = ["_static"]
html_css_files = ["course.css"]
html_js_files = ["course.js"]
# A favicon of our own: without one the browser asks for /favicon.ico and gets a 404.
html_favicon = "_static/favicon.svg"
# Light unless the reader switches: the lessons' drawings, figures and verdicts
# are coloured for a white page.  (Left empty, the theme's script also logs
# "invalid theme mode" on a reader's first visit.)
html_context = {"default_mode": "light"}
html_theme_options = {
    "home_page_in_toc": False,  # the title above the contents already leads home
    "show_navbar_depth": 1,
    "use_download_button": True,
    "use_fullscreen_button": False,
    "use_repository_button": False,
    "launch_buttons": {},
    "show_prev_next": True,
}
html_last_updated_fmt = None
# The download menu's .ipynb entry links to _sources/: the copied source of a
# lesson page is its notebook, stored outputs and all, which is what a learner
# downloading a lesson wants (index.md comes along for the index page's entry).
# No suffix appended, so the file keeps its own name: 07_classifier.ipynb.
html_copy_source = True
html_sourcelink_suffix = ""
