"""quality/env_vs_pypi.py's comparison: two builds' API objects, raw and by any name."""

import unittest

from quality.env_vs_pypi import Pin, compare_objects, why_lacking
from retrieval.core.diff import ApiObject
from retrieval.core.model import Passage

TIER = "unit"


def api_object(name, *aliases, source_id="flask/app.py", prose="Make an app."):
    passage = Passage(f"p-{name}", source_id, "2.2.2", "u", 1, 2, "t", "0" * 64, "0" * 64, "r", 1)
    return ApiObject(name, (name, *aliases), "class", "", prose, None, passage)


class CompareObjectsTest(unittest.TestCase):

    def test_a_spelling_differs_raw_but_not_by_any_name(self):
        pypi = [api_object("flask.app.Flask"), api_object("flask.json.dumps"),
                api_object("flask.only_in_docs", source_id="docs/api.rst")]
        env = [api_object("flask.Flask", "flask.app.Flask"),
               api_object("flask.json.dumps", "flask.json.provider.dumps"),
               api_object("flask.helpers.only_in_env")]
        found = compare_objects(pypi, env)
        self.assertEqual((found.pypi, found.env), (3, 3))
        self.assertEqual(found.env_lacks, ("flask.app.Flask", "flask.only_in_docs"))
        self.assertEqual(found.env_lacks_any, ("flask.only_in_docs",))
        self.assertEqual(found.pypi_lacks, ("flask.Flask", "flask.helpers.only_in_env"))
        self.assertEqual(found.pypi_lacks_any, ("flask.helpers.only_in_env",))
        self.assertEqual(found.figures()["env_lacks_any_name"], 1)
        self.assertEqual(found.env_lacks_name, ("flask.only_in_docs",))

    def test_an_inherited_member_is_held_by_its_pypi_name_only_where_env_names_it(self):
        # The pypi build knows flask.Flask.route by its defining name too: "any" holds it.
        pypi = [api_object("flask.Flask.route", "flask.scaffold.Scaffold.route")]
        found = compare_objects(pypi, [api_object("flask.scaffold.Scaffold.route")])
        self.assertEqual((found.env_lacks_any, found.env_lacks_name),
                         ((), ("flask.Flask.route",)))
        found = compare_objects(pypi, [api_object("flask.scaffold.Scaffold.route",
                                                  "flask.Flask.route")])
        self.assertEqual(found.env_lacks_name, ())

    def test_an_alias_matches_from_either_side(self):
        # The pypi object knows the alias the env object is titled by.
        found = compare_objects([api_object("click.core.Command", "click.Command")],
                                [api_object("click.Command")])
        self.assertEqual((found.env_lacks, found.env_lacks_any), (("click.core.Command",), ()))
        self.assertEqual(found.pypi_lacks_any, ())

    def test_why_the_env_build_lacks_an_object(self):
        noindex = {"flask.sessions.SessionInterface"}
        cases = [
            (api_object("flask.cli.FLASK_APP", source_id="docs/config.rst"), "docs page"),
            (api_object("flask.sessions.SessionInterface"), "env noindex"),
            (api_object("flask.ctx._AppCtxGlobals"), "private name"),
            (api_object("mssql.TIME.__init__"), "private name"),
            # A private module's object a public name re-exports is not private.
            (api_object("pool._ConnectionFairy", "pool.Fairy", prose=""), "no docstring"),
            (api_object("ext.orderinglist.OrderingList"), "other"),
        ]
        for obj, why in cases:
            with self.subTest(obj.name):
                self.assertEqual(why_lacking(obj, noindex), why)
        # A module the sdist ships beside the package (SQLAlchemy's examples, read where
        # conf.py's sys.path puts them) is installed by no environment.
        installed = {"flask", "mssql", "pool", "ext"}
        self.assertEqual(why_lacking(api_object("examples.adjacency_list"), noindex, installed),
                         "not installed")
        self.assertEqual(why_lacking(api_object("ext.orderinglist.OrderingList"), noindex,
                                     installed), "other")


class PinTest(unittest.TestCase):

    def test_parse(self):
        pin = Pin.parse("SQLAlchemy==1.4.46")
        self.assertEqual((pin.name, pin.version, pin.collection),
                         ("SQLAlchemy", "1.4.46", "sqlalchemy"))
        for text in ("flask", "flask==", "==2.2.2", "flask>=2"):
            with self.assertRaises(ValueError):
                Pin.parse(text)


if __name__ == "__main__":
    unittest.main()
