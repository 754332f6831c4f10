"""Sphinx-Gallery's example pages, written from the example scripts as its generator writes them.

A project whose conf.py enables `sphinx_gallery.gen_gallery` publishes each script of its
examples folders (`examples_dirs`, default `../examples`) as a page of its gallery folder
(`gallery_dirs`, default `auto_examples`): `examples/edges/plot_canny.py` is
`auto_examples/edges/plot_canny.html`. Sphinx-Gallery writes that page's reST from the script
(gen_rst.py, py_source_parser.py) before Sphinx reads it: the module docstring is the page's
text, under the label `sphx_glr_auto_examples_edges_plot_canny.py`; then the rest of the script
is cut at each block marker (a line `# %%`, or one of 20 or more `#`) into code blocks, each a
`.. code-block::`, and text blocks, the comment lines right after a marker with their `#`
removed, which may hold titles of their own. Each block is shown without its ignore blocks
(the lines from `# sphinx_gallery_start_ignore` to `# sphinx_gallery_end_ignore`) and, where
sphinx_gallery_conf's `remove_config_comments` is set, without its `# sphinx_gallery_<option>`
comments (gen_rst's remove_ignore_blocks, remove_config_comments).

This module writes that reST, each line with the line of the script it comes from (so that a
passage quotes the script, and its lines are consecutive where the script's are), without
running the script: the figures and printed output a build of the site shows are left out, and
so are the download links and notes the generator adds around the page.
"""

import ast
import re
import textwrap
from dataclasses import dataclass

# Sphinx-Gallery's default examples and gallery folders (gen_gallery.DEFAULT_GALLERY_CONF).
DEFAULT_EXAMPLES = "../examples"
DEFAULT_GALLERY = "auto_examples"
# The files of an examples folder it never publishes (its default ignore_pattern).
DEFAULT_IGNORE = r"__init__\.py"
# The files that make a subfolder of an examples folder a section of its gallery (its
# README, GALLERY_HEADER.rst in later releases).
HEADERS = ("GALLERY_HEADER.rst", "README.txt", "README.rst", "README")
# A line that ends a block (py_source_parser's pattern): 20 or more `#`, or `# %%`.
_MARKER = re.compile(r"#{20,}.*|# ?%%.*")
# The language its generator gives a script's code blocks (codestr2rst).
_CODE_DIRECTIVE = ".. code-block:: default"
# Its in-file flags (py_source_parser's patterns): a `# sphinx_gallery_<option>[ = value]`
# comment, and the lines from `# sphinx_gallery_start_ignore` to `# sphinx_gallery_end_ignore`.
_FLAG = r"[ \t]*#\s*"
_CONFIG_COMMENT = re.compile(_FLAG + r"sphinx_gallery_[A-Za-z0-9_]+(?:\s*=\s*.+)?[ \t]*")
_IGNORE_START = re.compile(_FLAG + "sphinx_gallery_start_ignore")
_IGNORE_END = re.compile(_FLAG + "sphinx_gallery_end_ignore")


@dataclass(frozen=True)
class GalleryPage:
    """An example script's page as reST: each line, and the script's line it comes from."""

    lines: tuple
    script_lines: tuple  # per line of lines: the 1-based line of the script


def reference_name(gallery_dir: str, script: str) -> str:
    """Return the label Sphinx-Gallery gives an example's page: its path below the docs root
    with `/` as `_` (gen_rst's ref_fname), `sphx_glr_` before it."""
    return "sphx_glr_" + f"{gallery_dir}/{script}".strip("/").replace("/", "_")


def _docstring(script: str):
    """Return (the module docstring's lines as _cleaned, its first and last line), or None
    without one; SyntaxError (ValueError: a null byte) where the script does not parse."""
    tree = ast.parse(script)
    first = tree.body[0] if tree.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
            and isinstance(first.value.value, str) and first.end_lineno is not None):
        return None
    return _cleaned(first.value.value), first.lineno, first.end_lineno


def _cleaned(docstring: str) -> list:
    """Return a docstring's lines as py_source_parser reads them, with ast.get_docstring
    (inspect.cleandoc): tabs expanded, the first line's indentation removed and the common
    indentation of the others; its blank lines kept, so each stays at its script's line
    (leading and trailing ones are nothing to reST)."""
    lines = docstring.expandtabs().split("\n")
    margin = min((len(line) - len(line.lstrip()) for line in lines[1:] if line.strip()),
                 default=0)
    return [lines[0].lstrip(), *(line[margin:] for line in lines[1:])]


def gallery_page(script: str, label: str, remove_config_comments: bool = False
                 ) -> GalleryPage | None:
    """Return an example script's page as Sphinx-Gallery writes it (label: reference_name;
    remove_config_comments: sphinx_gallery_conf's), or None where it has no module docstring,
    which Sphinx-Gallery refuses to publish; SyntaxError (or ValueError) where it does not
    parse, which it publishes as a page titled "SyntaxError" and nothing of the script's text."""
    # parse_source_file reads Windows line ends as Unix ones (no "\r" on the page's lines).
    script = script.replace("\r\n", "\n")
    found = _docstring(script)
    if found is None:
        return None
    docstring, first, last = found
    lines: list[str] = []
    numbers: list[int] = []

    def put(text: str, number: int) -> None:
        lines.append(text)
        numbers.append(number)

    put(f".. _{label}:", first)
    put("", first)
    # The docstring's lines as the script's, where as many (no escaped line breaks): else
    # each at the docstring's first line on, none past its last.
    for index, text in enumerate(_shown(docstring, remove_config_comments)):
        if text is not None:
            put(text, min(first + index, last))
    put("", last)
    source = script.split("\n")
    number = last + 1  # the script's line read next
    while number <= len(source):
        if _MARKER.fullmatch(source[number - 1].rstrip()):
            put("", number)
            number = _text_block(source, number + 1, put, remove_config_comments)
            continue
        end = number  # a code block: the lines up to the next marker
        while end <= len(source) and not _MARKER.fullmatch(source[end - 1].rstrip()):
            end += 1
        in_code = False  # whether its directive has been written
        for offset, text in enumerate(_shown(source[number - 1:end - 1],
                                             remove_config_comments)):
            if text is None:
                continue
            if not in_code and text.strip():
                put(_CODE_DIRECTIVE, number + offset)
                put("", number + offset)
                in_code = True
            put("    " + text if text.strip() else "", number + offset)
        number = end
    return GalleryPage(tuple(lines), tuple(numbers))


def _shown(block: list, remove_config_comments: bool) -> list:
    """Return a block's lines as its page shows them, None for each left out: gen_rst
    removes each ignore block (from a start flag's line to its end flag, a line's text after
    that flag kept), then, with remove_config_comments, each config comment; an ignore block
    without its end is left as written (Sphinx-Gallery refuses the script)."""
    shown: list = list(block)
    index = 0
    while index < len(shown):
        if _IGNORE_START.match(shown[index]):
            end, flag = next(((at, found) for at in range(index + 1, len(shown))
                              if (found := _IGNORE_END.match(shown[at])) is not None),
                             (None, None))
            if end is None or flag is None:
                break
            rest = shown[end][flag.end():]
            shown[index:end + 1] = [None] * (end - index) + [rest or None]
            index = end
        index += 1
    if remove_config_comments:
        for index, text in enumerate(shown):
            found = _CONFIG_COMMENT.match(text) if text is not None else None
            if found is not None:
                shown[index] = text[found.end():] or None
    return shown


def _text_block(source: list, number: int, put, remove_config_comments: bool) -> int:
    """Write the text block whose comment lines start at a script's line (its `#` removed
    and its lines dedented, as py_source_parser does, then its flags as _shown) and return
    the line after it."""
    start = number
    while number <= len(source) and source[number - 1].startswith("#"):
        number += 1
    block = textwrap.dedent("\n".join(line[1:] for line in source[start - 1:number - 1]))
    for offset, text in enumerate(_shown(block.split("\n"), remove_config_comments)
                                  if number > start else ()):
        if text is not None:
            put(text.rstrip(), start + offset)
    put("", number - 1 if number > start else start)
    return number
