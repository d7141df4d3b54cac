"""Sphinx configuration of MASE's documentation site (``make docs``; built in ``make test``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

import mase  # noqa: E402

project = "MASE"
release = mase.__version__
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "myst_parser",
    "mase_docs",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext", "training/*/*.json", "training/mappo-avalon/*/**"]
html_theme = "alabaster"
html_theme_options = {
    "description": "multi-agent collaboration tasks for LLM teams and MARL",
    "page_width": "1180px",  # the papers' tables and the argument tables need the room
    "sidebar_width": "230px",
}
html_title = f"MASE {release}"
# no copyright holder is named in the project (pyproject.toml: license MIT), so the footer
# states none rather than a bare "©."
html_show_copyright = False
html_static_path = ["_static"]  # custom.css, which alabaster reads
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "description"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = True  # a class's Attributes: section beside autodoc's own entries
myst_heading_anchors = 3
smartquotes = False  # "--flag" stays two hyphens, quotes stay as code writes them
