"""An llms-full.txt, or a directory holding an llms.txt and the Markdown pages it links.

Each file is Markdown, one unit per section under its heading's anchor (markdown.py), published
under the base URL by its own name (the pages an llms.txt lists are the .md files).
"""

import os

from ..readers import llms_index
from ..tree import Progress, SourceTree, read_file
from .plain import markdown_drafts


def is_llms_tree(root: str) -> bool:
    """Tell whether a source is an llms-full.txt, or a directory holding llms.txt or one."""
    if os.path.isfile(root):
        return os.path.basename(root) == llms_index.FULL
    return any(os.path.isfile(os.path.join(root, name))
               for name in (llms_index.INDEX, llms_index.FULL))


def read_llms_contents(tree: SourceTree, progress: Progress) -> list:
    """Read an llms-full.txt, or a directory's llms.txt and the Markdown pages it links."""
    if os.path.isfile(tree.root):
        # Read under its real name, published under the name it was given.
        names = {os.path.basename(tree.root): os.path.basename(os.path.realpath(tree.root))}
    elif os.path.isfile(os.path.join(tree.root, llms_index.INDEX)):
        names = {llms_index.INDEX: llms_index.INDEX}
        index = read_file(tree, llms_index.INDEX, progress)
        for link in llms_index.read_index(index[0] if index else ""):
            path = llms_index.local_path(link.url, tree.base_url)
            # lexists: a link is kept, for its read to say why it is not followed.
            if path is None or not os.path.lexists(os.path.join(tree.root, *path.split("/"))):
                progress.skip(f"{tree.label}/{link.url}", "linked page not in the tree")
            else:
                names.setdefault(path, path)
    else:
        names = {llms_index.FULL: llms_index.FULL}
    contents = []
    for name, path in names.items():
        read = read_file(tree, path, progress, name)
        if read is not None:
            found = markdown_drafts(tree, name, name, read[1], read[0], "github")
            contents.extend(found)
            progress.passages += len(found)
    progress.tick(tree.label, force=True)
    return contents
