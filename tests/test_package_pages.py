"""A docs folder's autodoc'd objects built as its rendered site's reader builds them, and searched.

A small release tree (a docs folder of autodoc directives beside its package) is built into a
snapshot in process and searched through the app: which pages are reference pages (those
describing an object at an id of its own, as objects.inv lists them), the context an object is
indexed in (its page title and section path), a long docstring described on a page being one
unit (quoting its first piece, indexed by all of it), and the links to it by the name it is
defined at, as the reader of a published Sphinx site (tests/test_sphinx_build.py) makes them.
"""

import io
import json
import os
import sqlite3
import unittest

from retrieval.ingest.builder import Progress, SourceTree, build_snapshot
from retrieval.ingest.readers.blocks import MAX_PASSAGE_BYTES
from retrieval.ingest.tree import PackageLayout
from retrieval.wsgi import create_app
from tests.support import (
    call,
    class_temporary_directory,
    quiet_settings,
    temporary_directory,
)
from tests.test_sphinx_source import write

TIER = "inprocess"

DOCS = "https://docs.example/herd/1.0/"


def _paragraph(number: int) -> str:
    return (f"    Paragraph {number}: the herd grazes each pasture in turn, and a goat that "
            "strays is counted again.\n") * 4


# graze's docstring (about 3 KiB) is over one passage's bytes; only its last sentence says
# "nightfall".
HERD = ('"""Herd: goats."""\n\nfrom .barn import Barn, build, repair\n\n\n'
        + 'def graze(herd):\n    """Graze a herd.\n\n'
        + "\n".join(_paragraph(number) for number in range(8))
        + '\n    Bring the goats home at nightfall.\n    """\n\n\n'
        + 'def milk(herd):\n    """Milk a herd that came back from pasture."""\n\n\n'
        + 'def shear(herd):\n    """Shear a herd in spring."""\n')

# A class defined in a module of its own, documented under the package's name: a docstring
# of its module refers to it as that module reads it (`Barn`, i.e. herd.barn.Barn).
BARN = ('"""Barns."""\n\n\nclass Barn:\n    """Where the herd sleeps."""\n\n\n'
        'def build(size):\n    """Build a :class:`Barn` of that size."""\n\n\n'
        'def repair(barn: "Barn") -> None:\n    """Mend the roof."""\n')

FILES = {
    "docs/conf.py": "project = 'herd'\n",
    "docs/index.rst": "Herd\n====\n\n.. toctree::\n\n   guide\n   api\n   modules\n",
    # A guide showing a function's description without indexing it (`:noindex:`): no id of
    # its own, no entry in objects.inv; the page is no reference page on the rendered site.
    "docs/guide.rst": "Guide\n=====\n\nMilking\n-------\n\nMilk the herd every evening.\n\n"
                      ".. autofunction:: herd.milk\n   :noindex:\n",
    # A module's description alone (objects.inv's py:module entries do not count either).
    "docs/modules.rst": "Modules\n=======\n\nThe herd module.\n\n.. automodule:: herd\n",
    "docs/api.rst": "API\n===\n\nGrazing\n-------\n\n.. autofunction:: herd.graze\n\n"
                    "Shearing\n--------\n\n.. autofunction:: herd.shear\n\n"
                    "Barns\n-----\n\n.. autoclass:: herd.Barn\n\n.. autofunction:: herd.build\n\n"
                    ".. autofunction:: herd.repair\n",
    "herd/__init__.py": HERD, "herd/barn.py": BARN,
}

# An api.rst that describes nothing, where a test's own page is to describe the objects first.
NO_API = "API\n===\n\nNothing here.\n"


def built(root: str, files: dict, modules: tuple = (),
          report: io.StringIO | None = None) -> tuple:
    """Build a release tree of files into ROOT/snapshot (modules: more than herd's two; report:
    where the build's progress lines go); return it and its passages' rows."""
    write(root, files)
    out = os.path.join(root, "snapshot")
    tree = SourceTree("1.0", root, DOCS, "herd", "package", package=PackageLayout(
        (("herd/__init__.py", "herd"), ("herd/barn.py", "herd.barn"), *modules), "docs", DOCS,
        "pypi:herd==1.0/"))
    build_snapshot([tree], out, progress=Progress(report or io.StringIO()))
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        return out, conn.execute(
            "SELECT p.url, p.title, p.start_line, p.end_line, p.byte_count, "
            "i.reference_page, x.context, i.in_links FROM passages p "
            "JOIN passage_facts i ON i.id = p.id JOIN passage_fields x ON x.id = p.id "
            "ORDER BY p.id").fetchall()
    finally:
        conn.close()


def sheds_names(test: unittest.TestCase, files: dict) -> set:
    """Return the ids below `herd.` of docs/sheds.html built from FILES with files over them
    (api.rst describing nothing)."""
    _, rows = built(temporary_directory(test), FILES | files | {"docs/api.rst": NO_API})
    return {url.removeprefix(DOCS + "sheds.html#") for url, *_ in rows
            if url.startswith(DOCS + "sheds.html#herd.")}


def stub_urls(out: str) -> list:
    """Return the URLs below `api/` of a built snapshot's units, sorted, without DOCS/api/."""
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        return sorted(url.removeprefix(DOCS + "api/") for url, in conn.execute(
            "SELECT url FROM passages WHERE url LIKE ?", (DOCS + "api/%",)))
    finally:
        conn.close()


def sheds_page(*tables) -> str:
    """Return a page of herd.barn's autosummary tables with `:toctree: api/`, each (its
    template below autosummary/, None for none; the names it lists)."""
    return "Sheds\n=====\n\n.. currentmodule:: herd.barn\n" + "".join(
        "\n.. autosummary::\n   :toctree: api/\n"
        + (f"   :template: autosummary/{template}.rst\n" if template else "")
        + "\n" + "".join(f"   {name}\n" for name in names) for template, *names in tables)


def stub_units(out: str) -> list:
    """Return (URL below api/, kind, quoted text, indexed body) of a snapshot's stub units."""
    conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
    try:
        return [(url.removeprefix(DOCS + "api/"), kind, text, body) for url, kind, text, body in
                conn.execute("SELECT p.url, i.kind, p.text, x.body FROM passages p JOIN "
                             "passage_facts i ON i.id = p.id JOIN passage_fields x "
                             "ON x.id = p.id WHERE p.url LIKE ? ORDER BY p.url",
                             (DOCS + "api/%",))]
    finally:
        conn.close()


class AutodocPagesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        root = class_temporary_directory(cls)
        cls.out, cls.rows = built(root, FILES)
        cls.app = create_app(snapshot_path=cls.out, settings=quiet_settings())

    @classmethod
    def tearDownClass(cls):
        cls.app.close()

    def search(self, query: str) -> list:
        reply = call(self.app, "POST", "/search", json.dumps(
            {"query": query, "version": "1.0", "collection": "herd", "limit": 10}).encode())
        self.assertEqual(reply.code, 200, reply.body)
        return [hit["url"] for hit in reply.json()["hits"]]

    def test_a_reference_page_describes_an_object_at_an_id_of_its_own(self):
        reference = {url.removeprefix(DOCS).partition("#")[0]: bool(flag)
                     for url, _, _, _, _, flag, _, _ in self.rows if url.startswith(DOCS)}
        self.assertEqual(reference, {"index.html": False, "guide.html": False,
                                     "modules.html": False, "api.html": True})

    def test_a_page_of_more_objects_of_other_domains_is_no_reference_page(self):
        # objects.inv's count: Sphinx's autodoc page describes two functions beside its
        # `rst:directive`s, more: no reference page; as many (or an example's, in a literal
        # block, aside) is one.
        _, rows = built(temporary_directory(self), FILES | {
            "docs/api.rst": NO_API,
            "docs/markup.rst": "Markup\n======\n\n.. rst:directive:: herd\n\n   Herd.\n\n"
                               ".. rst:directive:option:: size\n\n   Its size.\n\n"
                               ".. autofunction:: herd.graze\n",
            "docs/roles.rst": "Roles\n=====\n\n.. rst:role:: goat\n\n   A goat.\n\n"
                              "Written::\n\n   .. rst:role:: kid\n\n"
                              ".. autofunction:: herd.shear\n"})
        reference = {url.removeprefix(DOCS).partition("#")[0]: bool(flag)
                     for url, _, _, _, _, flag, _, _ in rows if url.startswith(DOCS)}
        self.assertEqual((reference["markup.html"], reference["roles.html"]), (False, True))

    def test_an_object_is_indexed_in_its_page_title_and_section_path(self):
        context = {title: context for _, title, _, _, _, _, context, _ in self.rows}
        self.assertEqual(context["herd.graze"], "API Grazing")
        self.assertEqual(context["herd.shear"], "API Shearing")
        self.assertEqual(self.search("shear herd spring")[0], DOCS + "api.html#herd.shear")
        # "Shearing" is only the section's title: the object is found in its context too.
        self.assertIn(DOCS + "api.html#herd.shear", self.search("shearing"))

    def test_a_long_description_on_a_page_is_one_unit_indexed_whole(self):
        graze = [row for row in self.rows if row[1] == "herd.graze"]
        self.assertEqual(len(graze), 1)
        url, _, start, end, size, _, _, _ = graze[0]
        self.assertEqual(url, DOCS + "api.html#herd.graze")
        # It quotes its first piece of lines (the verifiable passage), and is found by the
        # words of its last, as a rendered page's description is.
        self.assertLessEqual(size, MAX_PASSAGE_BYTES)
        self.assertLess(end, HERD.split("\n").index("    Bring the goats home at nightfall.") + 1)
        self.assertEqual(self.search("nightfall"), [DOCS + "api.html#herd.graze"])

    def test_references_by_canonical_name_and_annotations_link_a_description(self):
        # autodoc's `:canonical:` name: Sphinx links build's :class:`Barn` (herd.barn.Barn) to
        # the description of herd.Barn; and repair's annotation `"Barn"`, shown as a link.
        in_links = {title: links for _, title, _, _, _, _, _, links in self.rows}
        self.assertEqual(in_links["herd.Barn"], 2)
        # `autodoc_typehints = "none"` shows no annotation: the reference alone links it.
        _, rows = built(temporary_directory(self), FILES | {
            "docs/conf.py": "project = 'herd'\nautodoc_typehints = 'none'\n"})
        self.assertEqual({title: links for _, title, _, _, _, _, _, links in rows}["herd.Barn"],
                         1)

    def test_a_description_target_of_documented_shows_documented_annotations_only(self):
        # repair's `barn: "Barn"` has no `:param:`: with autodoc_typehints = "description" and
        # autodoc_typehints_description_target = "documented", autodoc shows no link for it.
        for conf, expected in (("", 2), ("autodoc_typehints = 'description'\n", 2), (
                "autodoc_typehints = 'description'\n"
                "autodoc_typehints_description_target = 'documented'\n", 1)):
            _, rows = built(temporary_directory(self), FILES | {
                "docs/conf.py": "project = 'herd'\n" + conf})
            self.assertEqual({title: links for _, title, _, _, _, _, _, links in rows}[
                "herd.Barn"], expected, conf)

    def test_a_docstring_refers_by_the_module_its_object_is_documented_in(self):
        # Barn, defined in herd/barn.py, is documented as herd.Barn (autodoc's `:module: herd`):
        # its method's `:func:`graze`` is looked up in herd, where graze is.
        barn = BARN.replace('    """Where the herd sleeps."""\n',
                            '    """Where the herd sleeps."""\n\n    def open(self):\n'
                            '        """Open it, then :func:`graze`."""\n')
        api = FILES["docs/api.rst"].replace(".. autoclass:: herd.Barn\n",
                                            ".. autoclass:: herd.Barn\n   :members:\n")
        _, rows = built(temporary_directory(self), FILES | {"herd/barn.py": barn,
                                                           "docs/api.rst": api})
        in_links = {title: links for _, title, _, _, _, _, _, links in rows}
        self.assertIn("herd.Barn.open", in_links)
        self.assertEqual(in_links["herd.graze"], 1)

    def test_an_annotation_links_the_object_it_evaluates_to(self):
        # `"Barn"` in a module that imports it for type checking only: autodoc evaluates it
        # to herd.barn.Barn, whose description (herd.Barn) it links, wherever it is written.
        pen = ('import typing as t\n\nif t.TYPE_CHECKING:\n    from .barn import Barn\n\n\n'
               'def lock(barn: "Barn", spare: t.Optional["Barn"] = None) -> None:\n'
               '    """Lock a barn."""\n')
        _, rows = built(temporary_directory(self), FILES | {
            "herd/pen.py": pen,
            "docs/pens.rst": "Pens\n====\n\n.. autofunction:: herd.pen.lock\n"},
            modules=(("herd/pen.py", "herd.pen"),))
        self.assertEqual({title: links for _, title, _, _, _, _, _, links in rows}["herd.Barn"],
                         4)



class HandWrittenDescriptionsTest(unittest.TestCase):

    def test_a_description_on_a_page_is_known_by_the_names_python_binds_its_object_to(self):
        # Django's querysets.txt describes `.. method:: filter` of `.. class:: QuerySet` under
        # `.. currentmodule:: django.db.models.query`; users call it django.db.models.QuerySet.
        manual = ("Barns by hand\n=============\n\n.. currentmodule:: herd.barn\n\n"
                  ".. class:: Barn\n\n   Where the herd sleeps, described by hand.\n\n"
                  ".. function:: build(size)\n\n   Build a barn by hand.\n\n"
                  ".. function:: burn(barn)\n\n   Not in the source.\n")
        out, _ = built(temporary_directory(self), FILES | {"docs/manual.rst": manual})
        conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
        try:
            names = dict(conn.execute(
                "SELECT p.url, x.names FROM passages p JOIN passage_fields x ON x.id = p.id "
                "WHERE p.url LIKE ?", (DOCS + "manual.html#%",)))
        finally:
            conn.close()
        self.assertEqual(names[DOCS + "manual.html#herd.barn.Barn"].split(),
                         ["herd.barn.Barn", "herd.Barn"])
        self.assertEqual(names[DOCS + "manual.html#herd.barn.build"].split(),
                         ["herd.barn.build", "herd.build"])
        self.assertEqual(names[DOCS + "manual.html#herd.barn.burn"].split(), ["herd.barn.burn"])

    def test_a_member_a_class_inherits_is_documented_by_the_name_python_finds_it_by(self):
        # pandas' frame.rst lists `DataFrame.loc` and `DataFrame.to_csv`, defined on its bases
        # IndexingMixin and NDFrame: autosummary and autodoc find them as getattr does.
        barn = BARN + ('\n\nclass Roof:\n    def mend(self):\n        """Mend the roof."""\n'
                       '\n    def seal(self):\n        """Seal the roof."""\n'
                       '\n\nclass Shed(Roof):\n    """A small barn."""\n')
        sheds = ("Sheds\n=====\n\n.. currentmodule:: herd.barn\n\n.. autoclass:: Shed\n\n"
                 ".. automethod:: Shed.seal\n\n.. autosummary::\n   :toctree: api/\n\n"
                 "   Shed.mend\n")
        out, _ = built(temporary_directory(self), FILES | {"herd/barn.py": barn,
                                                           "docs/sheds.rst": sheds})
        conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
        try:
            names = {url: names.split() for url, names in conn.execute(
                "SELECT p.url, x.names FROM passages p JOIN passage_fields x ON x.id = p.id")}
        finally:
            conn.close()
        self.assertEqual(names[DOCS + "sheds.html#herd.barn.Shed.seal"],
                         ["herd.barn.Shed.seal", "herd.barn.Roof.seal"])
        self.assertEqual(names[DOCS + "api/herd.barn.Shed.mend.html#herd.barn.Shed.mend"],
                         ["herd.barn.Shed.mend", "herd.barn.Roof.mend"])

    def test_a_member_a_class_inherits_from_a_generic_base_is_found_on_it(self):
        # pandas 1.5.3's `class GroupBy(BaseGroupBy[NDFrameT])`: groupby.rst's
        # `GroupBy.get_group` is BaseGroupBy's method.
        barn = BARN + ('\n\nfrom typing import Generic, TypeVar\n\nT = TypeVar("T")\n\n\n'
                       'class Roof(Generic[T]):\n    def mend(self):\n'
                       '        """Mend the roof."""\n\n\nclass Shed(Roof[int]):\n'
                       '    """A small barn."""\n')
        sheds = ("Sheds\n=====\n\n.. currentmodule:: herd.barn\n\n.. autosummary::\n"
                 "   :toctree: api/\n\n   Shed.mend\n")
        out, _ = built(temporary_directory(self), FILES | {"herd/barn.py": barn,
                                                           "docs/sheds.rst": sheds})
        self.assertEqual(stub_urls(out), ["herd.barn.Shed.mend.html#herd.barn.Shed.mend"])

    def test_one_passage_under_several_names_is_linked_at_the_name_users_import(self):
        # scipy's mstats re-exports stats' zscore, and pandas' Resampler inherits GroupBy's
        # get_group from the class groupby.py defines: the site has a page for each name;
        # the passage, one, is linked at the shortest name, then at the one sharing the path
        # of the file that defines it, wherever the docs name it first.
        barn = BARN + ('\n\nclass Roof:\n    def mend(self):\n        """Mend the roof."""\n'
                       '\n\nclass Shed(Roof):\n    """A small barn."""\n')
        yard = ('"""Yards."""\n\nfrom .barn import Roof, build\n\n\n'
                'class Pen(Roof):\n    """A pen."""\n')
        pens = ("Pens\n====\n\n.. autosummary::\n   :toctree: api/\n\n   herd.yard.Pen.mend\n"
                "   herd.yard.build\n")
        sheds = "Sheds\n=====\n\n.. autosummary::\n   :toctree: api/\n\n   herd.barn.Shed.mend\n"
        index = FILES["docs/index.rst"].replace("   guide\n", "   aisles\n   sheds\n   guide\n")
        out, rows = built(temporary_directory(self), FILES | {
            "herd/barn.py": barn, "herd/yard.py": yard, "docs/aisles.rst": pens,
            "docs/sheds.rst": sheds, "docs/index.rst": index}, (("herd/yard.py", "herd.yard"),))
        conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
        try:
            names = {url.removeprefix(DOCS): names.split() for url, names in conn.execute(
                "SELECT p.url, x.names FROM passages p JOIN passage_fields x ON x.id = p.id")}
        finally:
            conn.close()
        self.assertEqual(names["api.html#herd.build"][0], "herd.build")
        self.assertEqual(set(names["api.html#herd.build"]),
                         {"herd.yard.build", "herd.barn.build", "herd.build"})
        # Its own names first: the name the passage is known by is the one it is linked at.
        self.assertEqual(names["api/herd.barn.Shed.mend.html#herd.barn.Shed.mend"],
                         ["herd.barn.Shed.mend", "herd.barn.Roof.mend", "herd.yard.Pen.mend"])
        self.assertNotIn("api/herd.yard.Pen.mend.html#herd.yard.Pen.mend", names)
        self.assertNotIn("api/herd.yard.build.html#herd.yard.build", names)
        titles = {url.removeprefix(DOCS): title for url, title, *_ in rows}
        self.assertEqual(titles["api.html#herd.build"], "herd.build")

    def test_an_inherited_member_is_linked_under_the_class_that_defines_it(self):
        # sqlalchemy's `ClauseElement.compare` is also `Column.compare`, a shorter name, on the
        # page autodoc's :inherited-members: fill: the defining class's description is its place.
        barn = BARN + ('\n\nclass Roof:\n    def mend(self):\n        """Mend the roof."""\n'
                       '\n\nclass Shed(Roof):\n    """A small barn."""\n')
        init = HERD.replace("from .barn import Barn,", "from .barn import Barn, Shed,")
        pages = {"docs/aisles.rst": "Aisles\n======\n\n.. automethod:: herd.Shed.mend\n",
                 "docs/sheds.rst": "Sheds\n=====\n\n.. automethod:: herd.barn.Roof.mend\n"}
        index = FILES["docs/index.rst"].replace("   guide\n", "   aisles\n   sheds\n   guide\n")
        _, rows = built(temporary_directory(self), FILES | pages | {
            "herd/__init__.py": init, "herd/barn.py": barn, "docs/index.rst": index})
        self.assertEqual([(url.removeprefix(DOCS), title) for url, title, *_ in rows
                          if "mend" in title], [("sheds.html#herd.barn.Roof.mend",
                                                 "herd.barn.Roof.mend")])

    def test_an_inherited_member_is_linked_under_the_nearest_subclass_of_its_definer(self):
        # SQLAlchemy 2.0's `keys`, defined on the mixin `_WithKeys`: `Result.keys`, not the
        # subclass `CursorResult.keys` documented first.
        barn = BARN + ('\n\nclass _Roof:\n    def mend(self):\n        """Mend the roof."""\n'
                       '\n\nclass Shed(_Roof):\n    """A small barn."""\n'
                       '\n\nclass Hut(Shed):\n    """A smaller one."""\n')
        pages = {"docs/aisles.rst": "Aisles\n======\n\n.. automethod:: herd.barn.Hut.mend\n",
                 "docs/sheds.rst": "Sheds\n=====\n\n.. automethod:: herd.barn.Shed.mend\n"}
        index = FILES["docs/index.rst"].replace("   guide\n", "   aisles\n   sheds\n   guide\n")
        _, rows = built(temporary_directory(self), FILES | pages | {
            "herd/barn.py": barn, "docs/index.rst": index})
        self.assertEqual([(url.removeprefix(DOCS), title) for url, title, *_ in rows
                          if "mend" in title], [("sheds.html#herd.barn.Shed.mend",
                                                 "herd.barn.Shed.mend")])

    def test_one_passage_twice_on_a_page_is_linked_at_the_name_users_import(self):
        # automodule's members, then an autofunction of one of them under its exported name.
        _, rows = built(temporary_directory(self), FILES | {"docs/api.rst": (
            "API\n===\n\n.. automodule:: herd.barn\n   :members: build\n\n"
            ".. autofunction:: herd.build\n")})
        self.assertEqual([(url.removeprefix(DOCS), title) for url, title, *_ in rows
                          if "build" in title], [("api.html#herd.build", "herd.build")])

    def test_a_class_template_s_member_tables_give_each_member_a_stub_page(self):
        # pandas' _templates/autosummary/class.rst: a table of `all_methods` and one of
        # `all_attributes`, hidden in a reST comment, each with `:toctree:`: autosummary writes
        # a stub per member listed (`reference/api/pandas.DataFrame.to_numpy.html`).
        barn = BARN + ('\n\nclass Roof:\n    def mend(self):\n        """Mend the roof."""\n'
                       '\n    def _hidden(self):\n        """Hidden."""\n'
                       '\n    def __call__(self):\n        """Call the roof."""\n'
                       '\n\nclass Shed(Roof):\n    """A small barn."""\n'
                       '\n    @property\n    def size(self):\n        """The size."""\n'
                       '\n    def seal(self):\n        """Seal the shed."""\n')
        template = ('{% extends "!autosummary/class.rst" %}\n\n{% block methods %}\n'
                    '{% if methods %}\n\n..\n   HACK -- hidden, but autosummary generates them.\n'
                    '   .. autosummary::\n      :toctree:\n      {% for item in all_methods %}\n'
                    "      {%- if not item.startswith('_') or item in ['__call__'] %}\n"
                    '      {{ name }}.{{ item }}\n      {%- endif -%}\n      {%- endfor %}\n\n'
                    '{% endif %}\n{% endblock %}\n\n{% block attributes %}\n'
                    '..\n   .. autosummary::\n      :toctree:\n'
                    '      {% for item in all_attributes %}\n      {{ name }}.{{ item }}\n'
                    '      {%- endfor %}\n{% endblock %}\n')
        sheds = ("Sheds\n=====\n\n.. currentmodule:: herd.barn\n\n.. autosummary::\n"
                 "   :toctree: api/\n\n   Shed\n\n.. autosummary::\n   :toctree: api/\n"
                 "   :template: autosummary/plain.rst\n\n   Roof\n")
        for conf, expected in (("templates_path = ['../templates']\n", [
                "herd.barn.Roof.html#herd.barn.Roof",
                "herd.barn.Shed.__call__.html#herd.barn.Shed.__call__",
                "herd.barn.Shed.html#herd.barn.Shed",
                "herd.barn.Shed.mend.html#herd.barn.Shed.mend",
                "herd.barn.Shed.seal.html#herd.barn.Shed.seal",
                "herd.barn.Shed.size.html#herd.barn.Shed.size"]), ("", [
                "herd.barn.Roof.html#herd.barn.Roof", "herd.barn.Shed.html#herd.barn.Shed"])):
            out, _ = built(temporary_directory(self), FILES | {
                "herd/barn.py": barn, "docs/sheds.rst": sheds,
                "templates/autosummary/class.rst": template,
                "templates/autosummary/plain.rst": "{{ fullname }}\n",
                "docs/conf.py": "project = 'herd'\n" + conf})
            urls = stub_urls(out)
            self.assertEqual(urls, expected, conf)

    def test_an_automodule_makes_its_module_current_for_the_tables_after_it(self):
        # scipy's reference/signal.rst is `.. automodule:: scipy.signal`, whose docstring's
        # tables name `convolve`: autodoc writes `.. py:module::` first, autosummary reads the
        # docstring under the module, so the stub is scipy.signal.convolve's.
        sheds = ("Sheds\n=====\n\n.. automodule:: herd.barn\n   :no-members:\n\n"
                 ".. autosummary::\n   :toctree: api/\n\n   raze\n")
        barn = BARN + '\n\ndef raze(barn):\n    """Raze a barn."""\n'
        _, rows = built(temporary_directory(self), FILES | {"docs/sheds.rst": sheds,
                                                           "herd/barn.py": barn})
        self.assertIn(DOCS + "api/herd.barn.raze.html#herd.barn.raze",
                      {url for url, *_ in rows})

    def test_conf_py_s_autosummary_filename_map_names_a_stub_s_file(self):
        # scipy's conf.py: `"scipy.signal.czt": "czt-function"`, beside scipy.signal.CZT's.
        sheds = ("Sheds\n=====\n\n.. currentmodule:: herd.barn\n\n"
                 ".. autosummary::\n   :toctree: api/\n\n   raze\n")
        barn = BARN + '\n\ndef raze(barn):\n    """Raze a barn."""\n'
        _, rows = built(temporary_directory(self), FILES | {
            "docs/sheds.rst": sheds, "herd/barn.py": barn, "docs/conf.py":
            "project = 'herd'\nautosummary_filename_map = {'herd.barn.raze': 'raze-it'}\n"})
        self.assertIn(DOCS + "api/raze-it.html#herd.barn.raze", {url for url, *_ in rows})

    def test_an_instance_of_a_class_shows_the_class_s_docstring_as_data(self):
        # scipy.stats' `norm = norm_gen(name='norm')`: autodoc shows module data's __doc__, an
        # instance's being its class's (the class's lines are what it quotes); a class
        # attribute's value shows none (autodoc's NonDataDescriptorMixin), nor does a value
        # a function makes.
        barn = BARN + ('\n\nclass Pen:\n    """A pen for the goats."""\n\n'
                       '    spare = Barn()\n\n\nmain = Pen()\n\nside = build(3)\n'
                       '\n\nclass Mark(Pen):\n    """A mark."""\n\n    def __new__(cls, doc):\n'
                       '        return Pen()\n\n\nSTRAY = Mark("""A stray goat.""")\n')
        sheds = ("Sheds\n=====\n\n.. currentmodule:: herd.barn\n\n.. autosummary::\n"
                 "   :toctree: api/\n\n   main\n   side\n   STRAY\n\n"
                 ".. autoattribute:: Pen.spare\n")
        out, rows = built(temporary_directory(self), FILES | {"herd/barn.py": barn,
                                                             "docs/sheds.rst": sheds})
        # Described as data, as autodoc's DataDocumenter describes it, quoting its class.
        kinds = {url: kind for url, kind, *_ in stub_units(out)}
        self.assertEqual(kinds["herd.barn.main.html#herd.barn.main"], "data")
        lines = barn.split("\n")
        found = {url.removeprefix(DOCS): (start, end) for url, _, start, end, *_ in rows}
        self.assertEqual(found["api/herd.barn.main.html#herd.barn.main"],
                         (lines.index("class Pen:") + 1, lines.index("class Pen:") + 2))
        self.assertEqual(found["api/herd.barn.side.html#herd.barn.side"],
                         (lines.index("side = build(3)") + 1,) * 2)
        self.assertEqual(found["sheds.html#herd.barn.Pen.spare"],
                         (lines.index("    spare = Barn()") + 1,) * 2)
        # A class with a __new__ (its own or a base's) may make anything: SQLAlchemy's
        # `symbol("NAME", """doc""")` gives its value that __doc__.
        self.assertEqual(found["api/herd.barn.STRAY.html#herd.barn.STRAY"],
                         (lines.index('STRAY = Mark("""A stray goat.""")') + 1,) * 2)

    def test_automodule_documents_a_module_s_data_only_where_its_source_documents_it(self):
        # Pillow's `.. automodule:: PIL.BdfFontFile` with :undoc-members: renders no
        # `bdf_slant = {...}`: autodoc's DataDocumenter takes a module's member only where a
        # doc comment or docstring documents it; a name bound to a class or function is
        # documented as one; what `if __name__ == "__main__":` binds is no member at all.
        barn = BARN + ('\n\nSLANT = {"R": "Roman"}\n\n#: The widest barn.\nWIDEST = 9\n\n'
                       'Shed = Barn\n\n\ndef raze(barn):\n    pass\n\n\nerect = raze\n\n'
                       'if __name__ == "__main__":\n    pen = 3\n    """A pen."""\n')
        sheds = ("Sheds\n=====\n\n.. automodule:: herd.barn\n   :members:\n"
                 "   :undoc-members:\n")
        names = sheds_names(self, {"herd/barn.py": barn, "docs/sheds.rst": sheds})
        self.assertEqual(names, {"herd.barn.Barn", "herd.barn.build", "herd.barn.repair",
                                 "herd.barn.WIDEST", "herd.barn.Shed", "herd.barn.raze",
                                 "herd.barn.erect"})

    def test_a_module_level_directive_s_dotted_name_is_its_module_whatever_is_current(self):
        # Pillow's `.. autofunction:: PIL.features.check` under `.. py:currentmodule::
        # PIL.features` (whose module imports PIL) is at #PIL.features.check: autodoc's
        # resolve_name takes the path as the module; a class-level name's one-part path is a
        # class of the current module.
        herd = HERD + "\nimport herd\n"
        sheds = ("Sheds\n=====\n\n.. py:currentmodule:: herd\n\n.. autofunction:: herd.shear\n\n"
                 ".. autoclass:: herd.barn.Barn\n\n.. currentmodule:: herd.barn\n\n"
                 ".. automethod:: Barn.__init__\n\n.. autofunction:: build\n")
        barn = BARN.replace('"""Where the herd sleeps."""',
                            '"""Where the herd sleeps."""\n\n    def __init__(self):\n'
                            '        """Raise it."""')
        names = sheds_names(self, {"herd/__init__.py": herd, "herd/barn.py": barn,
                                   "docs/sheds.rst": sheds})
        self.assertEqual(names, {"herd.shear", "herd.barn.Barn", "herd.barn.Barn.__init__",
                                 "herd.barn.build"})

    def test_sphinxcontrib_apidoc_s_pages_are_written_from_the_package_tree(self):
        # rdflib's and OpenStack's conf.py: sphinx-apidoc runs on each build and writes a page
        # per package (its submodules' automodule inline, or, separate, a page each) and a
        # table of contents, with :members:, :undoc-members:, :show-inheritance:; private
        # modules and the excluded paths are left out.
        conf = ("project = 'herd'\nextensions = ['sphinx.ext.autodoc', "
                "'sphinxcontrib.apidoc']\napidoc_module_dir = '../herd'\n"
                "apidoc_output_dir = 'reference'\napidoc_excluded_paths = ['tests']\n")
        files = FILES | {
            "docs/api.rst": NO_API, "docs/conf.py": conf,
            "herd/pen/__init__.py": '"""Pens."""\n',
            "herd/pen/gate.py": '"""Gates."""\n\n\ndef shut(gate):\n    return gate\n',
            "herd/_secret.py": '"""Secret."""\n\n\ndef hide():\n    """Hide."""\n',
            "herd/tests/__init__.py": "",
            "herd/tests/check.py": 'def check():\n    """Check."""\n'}
        modules = (("herd/pen/__init__.py", "herd.pen"), ("herd/pen/gate.py", "herd.pen.gate"))
        report = io.StringIO()
        _, rows = built(temporary_directory(self), files, modules, report)
        urls = {url.removeprefix(DOCS) for url, *_ in rows}
        self.assertLessEqual({"reference/herd.html#herd.barn.build",
                              "reference/herd.html#herd.graze",
                              "reference/herd.pen.html#herd.pen.gate.shut"}, urls)
        self.assertEqual([url for url in urls if "secret" in url or "tests" in url
                          or "check" in url], [])
        # The pages' own lines are no file of the release: only their objects are units.
        self.assertEqual([url for url in urls if url.startswith("reference/modules.html")], [])
        self.assertIn("build: herd/1.0: sphinxcontrib.apidoc: 3 pages written below "
                      "docs/reference/ from herd/\n", report.getvalue())
        # Each module on a page of its own; a committed copy of a page is written over.
        separate = conf + "apidoc_separate_modules = True\n"
        _, rows = built(temporary_directory(self), files | {
            "docs/conf.py": separate, "docs/reference/herd.barn.rst": "Old\n===\n\nOld.\n"},
            modules)
        urls = {url.removeprefix(DOCS) for url, *_ in rows}
        self.assertLessEqual({"reference/herd.barn.html#herd.barn.build",
                              "reference/herd.pen.gate.html#herd.pen.gate.shut"}, urls)
        self.assertNotIn("reference/herd.barn.html#old", urls)

    def test_a_makefile_s_sphinx_apidoc_recipe_writes_the_project_s_api_pages(self):
        # lxml 4.9's Makefile runs `sphinx-apidoc -e -P -T -o doc/api src/lxml ...` before
        # Sphinx: the same pages, at the project's root, said in the build's line.
        files = FILES | {
            "docs/api.rst": NO_API,
            "Makefile": "apidoc:\n\t@[ -x \"`which sphinx-apidoc`\" ] \\\n"
                        "\t\t&& sphinx-apidoc -e -T -o docs/reference herd \"*tests\"\n",
            "herd/tests/__init__.py": "", "herd/tests/check.py": 'def check():\n    """Check."""\n'}
        report = io.StringIO()
        _, rows = built(temporary_directory(self), files, report=report)
        urls = {url.removeprefix(DOCS) for url, *_ in rows}
        self.assertLessEqual({"reference/herd.barn.html#herd.barn.build",
                              "reference/herd.html#herd.graze"}, urls)
        self.assertEqual([url for url in urls if "check" in url], [])
        self.assertIn("build: herd/1.0: Makefile's sphinx-apidoc: 2 pages written below "
                      "docs/reference/ from herd/\n", report.getvalue())

    def test_an_autoclass_in_a_hand_written_class_s_content_is_named_under_that_class(self):
        # Pillow's `.. class:: UnixViewer` holding `.. autoclass:: PIL.ImageShow.XDGViewer`:
        # the Python domain puts UnixViewer before the name, #PIL.ImageShow.UnixViewer.XDGViewer.
        sheds = ("Sheds\n=====\n\n.. currentmodule:: herd.barn\n\n.. class:: Shelter\n\n"
                 "   Any roof.\n\n   .. autoclass:: herd.barn.Barn\n\n"
                 ".. autofunction:: herd.barn.build\n")
        names = sheds_names(self, {"docs/sheds.rst": sheds})
        self.assertEqual(names, {"herd.barn.Shelter", "herd.barn.Shelter.Barn",
                                 "herd.barn.build"})

    def test_an_automethod_in_a_hand_written_class_s_content_is_that_class_s_member(self):
        # pexpect's `.. class:: spawn` holding `.. automethod:: kill`: autodoc's
        # ClassLevelDocumenter takes the member's class from py:class, which the description's
        # content has: #pexpect.spawn.kill.
        barn = BARN.replace('"""Where the herd sleeps."""',
                            '"""Where the herd sleeps."""\n\n    def mend(self):\n'
                            '        """Mend the roof."""')
        sheds = ("Sheds\n=====\n\n.. currentmodule:: herd.barn\n\n.. class:: Barn\n\n"
                 "   .. automethod:: mend\n")
        names = sheds_names(self, {"herd/barn.py": barn, "docs/sheds.rst": sheds})
        self.assertEqual(names, {"herd.barn.Barn", "herd.barn.Barn.mend"})

    def test_a_class_docstring_s_attributes_section_gives_autodoc_no_members(self):
        # scipy's ArpackNoConvergence (numpydoc `Attributes`, `self.eigenvalues = ...` in
        # __init__) under `:inherited-members:`: numpydoc renders the section in the class's
        # docstring, no `#...ArpackNoConvergence.eigenvalues` id; a `#:` comment makes one.
        barn = BARN.replace('"""Where the herd sleeps."""',
                            '"""Where the herd sleeps.\n\n    Attributes\n    ----------\n'
                            '    stalls : int\n        How many stalls.\n    """\n\n'
                            '    def __init__(self, stalls):\n        self.stalls = stalls\n'
                            '        #: Its roof.\n        self.roof = None\n')
        sheds = "Sheds\n=====\n\n.. autoclass:: herd.barn.Barn\n   :members:\n"
        names = sheds_names(self, {"herd/barn.py": barn, "docs/sheds.rst": sheds})
        self.assertEqual(names, {"herd.barn.Barn", "herd.barn.Barn.roof"})

    def test_a_class_template_is_rendered_for_its_class_as_autosummary_renders_it(self):
        # scipy's _templates/autosummary/class.rst: no `extends`, its tables in a comment
        # below the autoclass ("HACK"), its loop lines less indented than the table's entries,
        # `all_methods` filtered by `not item.startswith('_') or item in [...]`, a loop over
        # `inherited_members` naming the same members again, `{% if attributes %}`. What
        # autosummary lists is rendered from the source: the Attributes section's entries of a
        # docstring (numpydoc's) are no members; each stub at the id autosummary gives it.
        barn = BARN + ('\n\nclass Roof:\n    def mend(self):\n        """Mend the roof."""\n'
                       '\n    def _hidden(self):\n        """Hidden."""\n'
                       '\n    def __call__(self):\n        """Call the roof."""\n'
                       '\n\nclass Shed(Roof):\n    """A small barn.\n\n    Attributes\n'
                       '    ----------\n    height : int\n        How high.\n    """\n'
                       '\n    @property\n    def size(self):\n        """The size."""\n'
                       '\n    def seal(self):\n        """Seal the shed."""\n')
        template = ("{{ fullname }}\n{{ underline }}\n\n.. currentmodule:: {{ module }}\n\n"
                    ".. autoclass:: {{ objname }}\n   :no-members:\n\n"
                    "  {% block methods %}\n   .. HACK -- hidden, yet autosummary generates "
                    "them.\n      .. autosummary::\n         :toctree:\n"
                    "      {% for item in all_methods %}\n"
                    "         {%- if not item.startswith('_') or item in ['__call__'] %}\n"
                    "         {{ name }}.{{ item }}\n         {%- endif -%}\n"
                    "      {%- endfor %}\n      {% for item in inherited_members %}\n"
                    "         {%- if item in ['__call__'] %}\n         {{ name }}.{{ item }}\n"
                    "         {%- endif -%}\n      {%- endfor %}\n  {% endblock %}\n\n"
                    "  {% block attributes %}\n  {% if attributes %}\n"
                    "   .. HACK\n      .. autosummary::\n         :toctree:\n"
                    "      {% for item in all_attributes %}\n"
                    "         {%- if not item.startswith('_') %}\n"
                    "         {{ name }}.{{ item }}\n         {%- endif -%}\n"
                    "      {%- endfor %}\n  {% endif %}\n  {% endblock %}\n")
        # The table names the classes under the automodule's module: it is current there.
        sheds = ("Sheds\n=====\n\n.. automodule:: herd.barn\n   :no-members:\n\n"
                 ".. autosummary::\n   :toctree: api/\n\n   Shed\n")
        for name, expected in (("class.rst", [
                "herd.barn.Shed.__call__.html#herd.barn.Shed.__call__",
                "herd.barn.Shed.html#herd.barn.Shed",
                "herd.barn.Shed.mend.html#herd.barn.Shed.mend",
                "herd.barn.Shed.seal.html#herd.barn.Shed.seal",
                "herd.barn.Shed.size.html#herd.barn.Shed.size"]),
                # What the reader does not evaluate (a filter of Jinja's it does not know)
                # lists no member.
                ("other.rst", ["herd.barn.Shed.html#herd.barn.Shed"])):
            out, _ = built(temporary_directory(self), FILES | {
                "herd/barn.py": barn, "docs/sheds.rst": sheds,
                "templates/autosummary/class.rst": template if name == "class.rst"
                else template.replace("all_methods %}", "all_methods | reverse %}"),
                "docs/conf.py": "project = 'herd'\ntemplates_path = ['../templates']\n"})
            urls = stub_urls(out)
            self.assertEqual(urls, expected, name)

    def test_numpydoc_lists_a_class_s_members_each_a_link_from_its_docstring(self):
        # numpydoc's ClassDoc adds a Methods and an Attributes table to each class docstring
        # (scipy's class pages link each member stub so): its public methods and properties,
        # inherited too, with a docstring (a base's where it has none of its own); a section
        # the docstring writes itself lists its names instead.
        barn = BARN + ('\n\nclass Roof:\n    def mend(self):\n        """Mend the roof."""\n'
                       '\n    def _hidden(self):\n        """Hidden."""\n'
                       '\n\nclass Shed(Roof):\n    """A small barn."""\n'
                       '\n    @property\n    def size(self):\n        """The size."""\n'
                       '\n    def mend(self):\n        pass\n'
                       '\n    def seal(self):\n        """Seal the shed."""\n')
        sheds = ("Sheds\n=====\n\n.. autoclass:: herd.barn.Shed\n\n"
                 ".. automethod:: herd.barn.Shed.seal\n\n.. automethod:: herd.barn.Shed.mend\n\n"
                 ".. autoattribute:: herd.barn.Shed.size\n\n"
                 ".. automethod:: herd.barn.Shed._hidden\n")
        own = barn.replace('"""A small barn."""', '"""A small barn.\n\n    Methods\n'
                           '    -------\n    seal\n        Seal it.\n    """')
        for conf, source, expected in (
                ("extensions = ['numpydoc']\n", barn, [1, 1, 1, 0]),
                ("extensions = ['numpydoc']\nnumpydoc_show_inherited_class_members = False\n",
                 barn, [1, 1, 1, 0]),
                ("extensions = ['numpydoc']\nnumpydoc_show_class_members = False\n", barn,
                 [0, 0, 0, 0]),
                ("extensions = ['numpydoc']\n", own, [1, 0, 1, 0]), ("", barn, [0, 0, 0, 0])):
            _, rows = built(temporary_directory(self), FILES | {
                "herd/barn.py": source, "docs/sheds.rst": sheds,
                "docs/conf.py": "project = 'herd'\n" + conf})
            links = {url.removeprefix(DOCS + "sheds.html#"): in_links
                     for url, *_, in_links in rows}
            self.assertEqual([links[f"herd.barn.Shed.{name}"]
                              for name in ("seal", "mend", "size", "_hidden")], expected, conf)


    def test_an_accessor_s_stubs_describe_what_the_descriptor_gives_as_the_template_says(self):
        # pandas' `str = CachedAccessor("str", StringMethods)` and its templates writing
        # `.. autoaccessormethod::`, a documenter conf.py registers as a method's.
        barn = BARN + (
            '\n\nclass Cached:\n    def __init__(self, name, accessor):\n'
            '        self._name = name\n        self._accessor = accessor\n\n'
            '    def __get__(self, obj, cls):\n        if obj is None:\n'
            '            return self._accessor\n        return self._accessor(obj)\n'
            '\n\ndef _wrapped(name):\n    return name\n'
            '\n\nclass Tools:\n    """The shed\'s tools."""\n\n    def sharpen(self):\n'
            '        """Sharpen each blade."""\n\n    oil = _wrapped("oil")\n'
            '    """Oil each hinge."""\n'
            '\n\nclass Kit(Tools):\n    pass\n'
            '\n\nclass Shed:\n    """A small barn."""\n\n    tools = Cached("tools", Tools)\n'
            '    kit = Cached("kit", Kit)\n')
        conf = ("templates_path = ['../templates']\n\n\nclass AccessorDocumenter(Documenter):\n"
                "    objtype = 'accessor'\n    directivetype = 'method'\n\n\n"
                "class AccessorMethodDocumenter(AccessorDocumenter):\n"
                "    objtype = 'accessormethod'\n\n\ndef setup(app):\n"
                "    app.add_autodocumenter(AccessorDocumenter)\n"
                "    app.add_autodocumenter(AccessorMethodDocumenter)\n")
        sheds = sheds_page((None, "Shed"), ("accessor", "Shed.tools", "Shed.kit"),
                           ("accessor_method", "Shed.tools.sharpen", "Shed.tools.oil"))
        directive = ("{{ fullname }}\n{{ underline }}\n\n.. currentmodule:: herd\n\n"
                     ".. auto%s:: {{ objname }}\n")
        out, _ = built(temporary_directory(self), FILES | {
            "herd/barn.py": barn, "docs/sheds.rst": sheds, "docs/conf.py": conf,
            "templates/autosummary/class.rst": (
                "..\n   .. autosummary::\n      :toctree:\n"
                "      {% for item in all_attributes %}\n      {{ name }}.{{ item }}\n"
                "      {%- endfor %}\n"),
            "templates/autosummary/accessor.rst": directive % "accessor",
            "templates/autosummary/accessor_method.rst": directive % "accessormethod"})
        units = [(url, kind, body) for url, kind, _, body in stub_units(out)]
        # Each stub once: `Shed.tools`, which Shed's template lists too, as its page's entry
        # writes it (a method's, with the docstring of Tools, what Shed.tools is on Shed;
        # Shed.kit's, Kit's, is its base's).
        self.assertEqual(units, [
            ("herd.barn.Shed.html#herd.barn.Shed", "class", "A small barn."),
            ("herd.barn.Shed.kit.html#herd.barn.Shed.kit", "method", "The shed's tools."),
            ("herd.barn.Shed.tools.html#herd.barn.Shed.tools", "method", "The shed's tools."),
            ("herd.barn.Shed.tools.oil.html#herd.barn.Shed.tools.oil", "method",
             "Oil each hinge."),
            ("herd.barn.Shed.tools.sharpen.html#herd.barn.Shed.tools.sharpen", "method",
             "Sharpen each blade.")])

    def test_a_stub_shows_the_docstring_autodoc_shows_quoting_its_own_lines(self):
        # pandas' `density = kde`, `boxplot = pandas.plotting.boxplot_frame` (a function bound
        # in a class body: a method), and a member documented only by its base.
        barn = BARN + ('\n\ndef _plot(shed):\n    """Plot a shed."""\n'
                       '\n\nclass Roof:\n    def mend(self):\n        """Mend the roof."""\n'
                       '\n\nclass Shed(Roof):\n    """A small barn."""\n\n    def kde(self):\n'
                       '        """Estimate a density."""\n\n    density = kde\n'
                       '    plot = _plot\n\n    def mend(self):\n        pass\n')
        out, _ = built(temporary_directory(self), FILES | {
            "herd/barn.py": barn,
            "docs/sheds.rst": sheds_page((None, "Shed.density", "Shed.plot", "Shed.mend"))})
        units = [(url.removeprefix("herd.barn.Shed.").partition(".")[0], kind, text.strip(),
                  body) for url, kind, text, body in stub_units(out)]
        self.assertEqual(units, [
            ("density", "method", "density = kde", "Estimate a density."),
            ("mend", "method", "def mend(self):", "Mend the roof."),
            ("plot", "method", "plot = _plot", "Plot a shed.")])

    def test_a_page_rendered_as_jinja_by_conf_py_reads_its_context_s_text(self):
        # pandas' conf.py: a "source-read" handler renders each page with html_context, and
        # `{{ header }}` is `.. currentmodule:: pandas` (and a hidden ipython block): the
        # page's `:func:`build`` is herd.build's; the section quotes its lines through it.
        conf = ('header = f"""\\\n.. currentmodule:: herd\n\n.. ipython:: python\n'
                '   :suppress:\n\n   import os\n   os.chdir(r\'{os.getcwd()}\')\n"""\n'
                'html_context = {"header": header}\n\n\ndef rstjinja(app, docname, source):\n'
                '    source[0] = app.builder.templates.render_string(\n'
                '        source[0], app.config.html_context)\n\n\ndef setup(app):\n'
                '    app.connect("source-read", rstjinja)\n')
        guide = ("Barn guide\n==========\n\n{{ header }}\n\nCall :func:`build` and "
                 ":func:`build` again.\n")
        for handler, expected in ((conf, 2), (conf.replace("source-read", "build-finished"), 0)):
            _, rows = built(temporary_directory(self), FILES | {
                "docs/conf.py": handler, "docs/guide.rst": guide})
            links = {url: in_links for url, *_, in_links in rows}
            self.assertEqual(links[DOCS + "api.html#herd.build"], expected, handler)
            lines = {url: (start, end) for url, _, start, end, *_ in rows}
            self.assertEqual(lines[DOCS + "guide.html#barn-guide"], (1, 6))
        # Before a page's title, it renders nothing: no unit of the page (unrendered, a
        # paragraph `{{ header }}` is one).
        for handler, expected in ((conf, False), ("project = 'herd'\n", True)):
            _, rows = built(temporary_directory(self), FILES | {
                "docs/conf.py": handler, "docs/guide.rst": ".. _guide:\n\n" + guide.replace(
                    "{{ header }}\n\n", "") + "\n{{ header }}\n"})
            self.assertEqual(DOCS + "guide.html" in {url for url, *_ in rows}, False)
            _, rows = built(temporary_directory(self), FILES | {
                "docs/conf.py": handler, "docs/guide.rst": "{{ header }}\n\n" + guide.replace(
                    "{{ header }}\n\n", "")})
            self.assertEqual(DOCS + "guide.html" in {url for url, *_ in rows}, expected)

    def test_a_stub_page_s_docstring_links_from_it_see_also_too_with_numpydoc(self):
        # autosummary's stub of herd.barn.Shed renders its docstring: its `:func:`repair``
        # links herd.repair; under numpydoc (or napoleon) its "See Also" names link too.
        barn = BARN + ('\n\nclass Shed:\n    """A small barn; see :func:`repair`.\n\n'
                       '    See Also\n    --------\n    build : Build a barn.\n'
                       '        Any size.\n    repair, Barn\n    """\n')
        sheds = ("Sheds\n=====\n\n.. currentmodule:: herd.barn\n\n.. autosummary::\n"
                 "   :toctree: api/\n\n   Shed\n")
        found = {}
        for conf in ("", "extensions = ['numpydoc']\n"):
            _, rows = built(temporary_directory(self), FILES | {
                "herd/barn.py": barn, "docs/sheds.rst": sheds,
                "docs/conf.py": "project = 'herd'\n" + conf})
            links = {url.removeprefix(DOCS + "api.html#"): in_links
                     for url, *_, in_links in rows}
            found[conf] = (links["herd.build"], links["herd.repair"])
        self.assertEqual(found, {"": (0, 1), "extensions = ['numpydoc']\n": (1, 2)})

    def test_an_override_without_a_docstring_is_described_unless_conf_py_says_not(self):
        # autodoc_inherit_docstrings (True unless conf.py sets it False): Shed.mend, with no
        # docstring, shows Roof.mend's, at its own id, quoting its own lines.
        barn = BARN + ('\n\nclass Roof:\n    def mend(self):\n        """Mend the roof."""\n'
                       '\n\nclass Shed(Roof):\n    """A small barn."""\n'
                       '\n    def mend(self):\n        return None\n')
        sheds = "Sheds\n=====\n\n.. autoclass:: herd.barn.Shed\n   :members:\n"
        for conf, expected in (("", ["Mend the roof."]),
                               ("autodoc_inherit_docstrings = False\n", [])):
            out, rows = built(temporary_directory(self), FILES | {
                "herd/barn.py": barn, "docs/sheds.rst": sheds,
                "docs/conf.py": "project = 'herd'\n" + conf})
            conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
            try:
                bodies = [body for body, in conn.execute(
                    "SELECT x.body FROM passages p JOIN passage_fields x ON x.id = p.id "
                    "WHERE p.url = ?", (DOCS + "sheds.html#herd.barn.Shed.mend",))]
            finally:
                conn.close()
            self.assertEqual(bodies, expected, conf)

    def test_an_export_copying_an_inherited_docstring_is_read_as_defined_beside_docs(self):
        # matplotlib's pyplot: `@docstring.copy(Axes.axis)` over `def axis(...)`, axis defined
        # on Axes' base _AxesBase. Beside a docs folder it is read as it is defined.
        barn = BARN + ('\n\nclass Roof:\n    def mend(self):\n        """Mend the roof."""\n'
                       '\n\nclass Shed(Roof):\n    """A small barn."""\n'
                       '\n\ndef copy(source):\n    return lambda f: f\n'
                       '\n\n@copy(Shed.mend)\ndef mend():\n    return Shed().mend()\n')
        files = FILES | {"herd/barn.py": barn,
                         "herd/__init__.py": HERD + "\nfrom .barn import mend\n"}
        out, _ = built(temporary_directory(self), files)
        conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
        try:
            found = conn.execute(
                "SELECT p.url, x.names FROM passages p JOIN passage_fields x ON x.id = p.id "
                "WHERE p.title = 'herd.mend'").fetchall()
        finally:
            conn.close()
        self.assertEqual(len(found), 1, found)
        url, names = found[0]
        start = barn.split("\n").index("@copy(Shed.mend)") + 1
        self.assertEqual(url, f"pypi:herd==1.0/herd/barn.py#L{start}-L{start + 1}")
        self.assertEqual(names.split(), ["herd.mend", "herd.barn.mend"])


class WithoutConfPyTest(unittest.TestCase):
    """A docs folder whose release left its conf.py out (shapely 2.0.1's sdist) is still the
    Sphinx project its root document heads, read with Sphinx's defaults."""

    # FILES' pages, without conf.py: {path below docs/: text}.
    PAGES = {path.removeprefix("docs/"): text for path, text in FILES.items()
             if path.startswith("docs/") and path != "docs/conf.py"}

    def pages(self, pages: dict) -> tuple:
        """Return (the build's report, {(URL, title)}) of herd with pages ({path below docs/:
        text}) for its docs folder."""
        report = io.StringIO()
        files = {path: text for path, text in FILES.items() if not path.startswith("docs/")}
        _, rows = built(temporary_directory(self), files | {
            f"docs/{path}": text for path, text in pages.items()}, report=report)
        return report.getvalue(), {(url, title) for url, title, *_ in rows}

    def test_its_pages_are_sections_and_descriptions_at_sphinx_s_ids(self):
        report, units = self.pages(self.PAGES)
        self.assertIn((DOCS + "guide.html#milking", "Milking"), units)
        self.assertIn((DOCS + "api.html#herd.graze", "herd.graze"), units)
        self.assertIn("build: herd/1.0: docs/ has no conf.py: docs/ read as Sphinx renders it "
                      "by default\n", report)

    def test_its_root_is_the_folder_of_index_rst(self):
        report, units = self.pages({f"source/{path}": text for path, text in self.PAGES.items()})
        self.assertIn((DOCS + "guide.html#milking", "Milking"), units)
        self.assertIn("docs/source/ read as Sphinx renders it by default", report)

    def test_with_a_conf_py_deeper_down_its_files_are_read_paragraph_by_paragraph(self):
        # mpi4py 3.1.4: docs/index.rst beside docs/source/usrman/conf.py, a project of its own.
        report, units = self.pages(self.PAGES | {"source/usrman/conf.py": "project = 'x'\n"})
        self.assertIn((DOCS + "guide.html#milking", "docs/guide.rst"), units)
        self.assertNotIn("no conf.py", report)

    def test_without_index_rst_its_files_are_read_paragraph_by_paragraph(self):
        pages = {path: text for path, text in self.PAGES.items() if path != "index.rst"}
        report, units = self.pages(pages)
        self.assertNotIn((DOCS + "guide.html#milking", "Milking"), units)
        self.assertIn((DOCS + "guide.html#milking", "docs/guide.rst"), units)
        self.assertNotIn("no conf.py", report)


class AutomodapiTest(unittest.TestCase):
    """sphinx-automodapi's `.. automodapi::` (astropy's API pages), written out as the
    extension writes it: the module's section on the page, a stub page below the docs' `api/`
    per public function and class the module defines, a class's own public members on its."""

    BARN = BARN.replace("class Barn:", 'class Door:\n    """A door."""\n\n\nclass Barn:').replace(
        '    """Where the herd sleeps."""\n',
        '    """Where the herd sleeps."""\n\n    door = Door\n    bell = 3\n'
        '    gate = Door\n    """The way in."""\n\n'
        '    def open(self):\n'
        '        """Open the doors."""\n\n    def _hinge(self):\n'
        '        """Oil the hinge."""\n') + (
        '\n\nclass Shed(Barn):\n    """A small barn."""\n'
        '\n\nfrom os.path import join\nfrom herd import graze\n'
        # What __all__ lists and another module defines is not listed all the same.
        '\n__all__ = ["Barn", "Door", "Shed", "build", "repair", "join", "graze"]\n')

    @staticmethod
    def files(page: str) -> dict:
        """Return FILES with herd.barn's classes above, api.rst describing nothing and
        docs/reference/barn.rst the page given."""
        return FILES | {
            "herd/barn.py": AutomodapiTest.BARN, "docs/api.rst": NO_API,
            "docs/conf.py": "project = 'herd'\n"
                            "extensions = ['sphinx_automodapi.automodapi']\n",
            "docs/reference/barn.rst": page}

    @classmethod
    def setUpClass(cls):
        files = cls.files("Barns\n=====\n\nHow the herd is housed.\n\n"
                          ".. automodapi:: herd.barn\n    :skip: repair\n")
        _, rows = built(class_temporary_directory(cls), files)
        cls.units = {(url, title) for url, title, *_ in rows}

    def test_a_stub_page_below_api_describes_each_public_function_and_class(self):
        for name in ("Barn", "build", "Shed"):
            self.assertIn((f"{DOCS}api/herd.barn.{name}.html#herd.barn.{name}",
                           f"herd.barn.{name}"), self.units)

    def test_a_class_s_stub_describes_its_own_public_members(self):
        self.assertIn((DOCS + "api/herd.barn.Barn.html#herd.barn.Barn.open",
                       "herd.barn.Barn.open"), self.units)
        urls = {url for url, _ in self.units}
        self.assertNotIn(DOCS + "api/herd.barn.Barn.html#herd.barn.Barn._hinge", urls)
        self.assertNotIn(DOCS + "api/herd.barn.Shed.html#herd.barn.Shed.open", urls)
        # An attribute bound to a class is of the class documenter's type: none of them.
        self.assertNotIn(DOCS + "api/herd.barn.Barn.html#herd.barn.Barn.door", urls)
        self.assertNotIn(DOCS + "api/herd.barn.Barn.html#herd.barn.Barn.gate", urls)
        self.assertIn(DOCS + "api/herd.barn.Barn.html#herd.barn.Barn.bell", urls)

    def test_what_it_skips_or_imports_has_no_stub(self):
        urls = {url for url, _ in self.units}
        self.assertFalse([url for url in urls if "herd.barn.repair" in url
                          or "herd.barn.join" in url or "herd.barn.graze" in url], urls)

    def test_inherited_members_on_the_directive_shows_a_class_s_bases_members_too(self):
        # Shed's stub describes Barn.open too: the same lines, one passage under both names
        # (at the definer's page).
        for option, named in (("", False), ("    :inherited-members:\n", True)):
            out, _ = built(temporary_directory(self), self.files(
                "Barns\n=====\n\n.. automodapi:: herd.barn\n" + option))
            conn = sqlite3.connect(os.path.join(out, "passages.sqlite"))
            try:
                [(names,)] = conn.execute(
                    "SELECT x.names FROM passages p JOIN passage_fields x ON x.id = p.id "
                    "WHERE p.url = ?", (DOCS + "api/herd.barn.Barn.html#herd.barn.Barn.open",))
            finally:
                conn.close()
            self.assertEqual("herd.barn.Shed.open" in names.split(), named, (option, names))

    def test_the_module_is_a_section_of_the_page_at_its_id(self):
        self.assertIn((DOCS + "reference/barn.html#module-herd.barn", "herd.barn Module"),
                      self.units)


class MkdocstringsTest(unittest.TestCase):
    """mkdocstrings' `::: name` in an MkDocs site's page (humanize's docs): the object and the
    members its options select, each at its dotted name's id on that page."""

    @classmethod
    def setUpClass(cls):
        barn = BARN.replace(
            '    """Where the herd sleeps."""\n',
            '    """Where the herd sleeps."""\n\n    def open(self):\n'
            '        """Open the doors."""\n\n    def close(self):\n'
            '        """Close the doors."""\n')
        files = {path: text for path, text in FILES.items() if not path.startswith("docs/")}
        _, rows = built(class_temporary_directory(cls), files | {
            "herd/barn.py": barn,
            "mkdocs.yml": "site_name: Herd\nplugins:\n  - search\n  - mkdocstrings:\n"
                          "      handlers:\n        python:\n          options:\n"
                          "            show_root_heading: true\n",
            "docs/index.md": "# Herd\n\nWelcome.\n\n```\n::: herd.shear\n```\n",
            "docs/requirements.txt": "mkdocstrings\n",
            "docs/barn.md": "# Barns\n\n::: herd.barn\n    options:\n      members: [build]\n",
            "docs/doors.md": "# Doors\n\n::: herd.barn.Barn\n    options:\n"
                             "      members:\n        - open\n"})
        cls.units = {(url, title) for url, title, *_ in rows}

    def test_a_module_s_members_are_at_their_names_on_its_page(self):
        self.assertIn((DOCS + "barn/#herd.barn", "herd.barn"), self.units)
        self.assertIn((DOCS + "barn/#herd.barn.build", "herd.barn.build"), self.units)

    def test_its_options_select_the_members(self):
        urls = {url for url, _ in self.units}
        self.assertIn(DOCS + "doors/#herd.barn.Barn.open", urls)
        self.assertNotIn(DOCS + "doors/#herd.barn.Barn.close", urls)
        self.assertNotIn(DOCS + "barn/#herd.barn.repair", urls)

    def test_a_name_in_fenced_code_renders_nothing(self):
        self.assertNotIn(DOCS + "#herd.shear", {url for url, _ in self.units})

    def test_a_file_other_than_markdown_is_no_page_of_the_site(self):
        # MkDocs copies it as it is.
        self.assertFalse([url for url, _ in self.units if "requirements" in url])



class AutointerfacePageTest(unittest.TestCase):

    def test_an_autointerface_with_autoclass_options_describes_its_members(self):
        # persistent 4.6's `.. autointerface:: IPersistent` below `.. automodule::` with
        # `:members:` and `:member-order: bysource` (InterfaceDocumenter takes autoclass's
        # options): each Attribute, with the text its call gives, and each method, with a
        # docstring or not, at its own id (0 % -> 100 % of its Debian site's objects).
        _, rows = built(temporary_directory(self), FILES | {
            "herd/ifaces.py": 'from zope.interface import Attribute, Interface\n\n\n'
                              'class IHerd(Interface):\n    """A herd."""\n\n'
                              '    size = Attribute("How many animals.")\n\n'
                              '    def count():\n        """Count them."""\n\n'
                              '    def close():\n        pass\n\n\n'
                              'class IBarn(Interface):\n    """A barn."""\n\n'
                              '    def open():\n        """Open it."""\n',
            "docs/api.rst": "API\n===\n\n.. automodule:: herd.ifaces\n\n"
                            "  .. autointerface:: IHerd\n     :members:\n"
                            "     :member-order: bysource\n\n"
                            ".. autointerface:: herd.ifaces.IBarn\n   :members:\n"},
            modules=(("herd/ifaces.py", "herd.ifaces"),))
        found = [url.removeprefix(f"{DOCS}api.html#herd.ifaces.") for url, *_ in rows
                 if url.startswith(f"{DOCS}api.html#herd.")]
        self.assertEqual(sorted(found), ["IBarn", "IBarn.open", "IHerd", "IHerd.close",
                                         "IHerd.count", "IHerd.size"])  # each once

if __name__ == "__main__":
    unittest.main()
