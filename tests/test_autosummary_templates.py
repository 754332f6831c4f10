"""An autosummary template rendered for a class from the package source, without Jinja.

autosummary_templates.render evaluates the part of Jinja autosummary's templates use (text,
expressions, for/if/set/block, `extends` of autosummary's own, whitespace control) and refuses
the rest; class_context gives the names autosummary renders a class's template with.
"""

import unittest

from retrieval.ingest.readers.autosummary_templates import Unrendered, class_context, render
from retrieval.ingest.readers.docstrings import PackageSource, parse_module

TIER = "unit"

CONTEXT = {"fullname": "herd.barn.Shed", "module": "herd.barn", "objname": "Shed",
           "name": "Shed", "underline": "=" * 14, "all_methods": ["__call__", "_hide", "mend"],
           "methods": ["mend"], "attributes": [], "inherited_members": {"mend"}}


class RenderTest(unittest.TestCase):

    def test_expressions_loops_and_conditions_render_as_jinja_does(self):
        template = ("{{ fullname | escape | underline }}\n"
                    "{% for item in all_methods %}\n"
                    "   {%- if not item.startswith('_') or item in ['__call__'] %}\n"
                    "   {{ name }}.{{ item }}\n   {%- endif -%}\n{%- endfor %}\n"
                    "{% if attributes %}none{% elif 'mend' in inherited_members %}"
                    "inherited{% else %}own{% endif %}\n"
                    "{# a comment #}{% set first = all_methods[0] %}{{ first }} "
                    "{{ module.split('.')[1:] | join('-') }} {{ _('Methods') }}\n")
        self.assertEqual(render(template, CONTEXT),
                         "herd.barn.Shed\n==============\n\n   Shed.__call__\n   Shed.mend\n"
                         "inherited\n__call__ barn Methods")

    def test_a_template_extending_autosummary_s_own_renders_its_blocks(self):
        # pandas' class.rst: `{% extends "!autosummary/class.rst" %}` and its blocks; what is
        # outside them is not rendered (Jinja's rule for a child template).
        template = ('{% extends "!autosummary/class.rst" %}\nignored\n'
                    '{% block methods %}\n{% for item in methods %}\n'
                    '   ~{{ name }}.{{ item }}{% endfor %}\n{% endblock %}\n')
        self.assertEqual(render(template, CONTEXT),
                         ".. currentmodule:: herd.barn\n\n\n\n   ~Shed.mend\n")

    def test_what_the_reader_does_not_evaluate_renders_nothing(self):
        for template in ("{% for item in methods | reverse %}{{ item }}{% endfor %}",
                         "{% include 'other.rst' %}", "{{ loop.index }}",
                         "{% if methods %}unclosed", "{% extends 'mine.rst' %}",
                         "{{ item for item in methods }}", "{{ methods.pop() }}"):
            with self.assertRaises(Unrendered, msg=template):
                render(template, CONTEXT)

    def test_a_template_that_would_render_without_end_is_not_rendered(self):
        # A template is the archive's: loops nested over the members, a string doubled or
        # grown again and again, a huge join; each stops at its bound, none runs on.
        many = dict(CONTEXT, methods=[f"m{number}" for number in range(100)])
        nested = "{% for a in methods %}{% for b in methods %}{% for c in methods %}" \
                 "{{ c }}{% endfor %}{% endfor %}{% endfor %}"
        # (A `set` in a loop's body is the loop's own, as Jinja scopes it: it cannot compound.)
        doubled = "{% set s = 'ab' %}" + "{% set s = s + s %}" * 30
        grown = "{% set s = 'a' %}" + "{% set s = s.replace('a', 'aaaaaaaaaa') %}" * 9
        for template in (nested, doubled, grown,
                         "{% set s = 'x' + 'y' %}{{ methods | join('" + "-" * 20000 + "') }}"):
            with self.assertRaises(Unrendered, msg=template[:60]):
                render(template, many)


class ClassContextTest(unittest.TestCase):

    def test_a_class_s_members_are_its_own_and_its_bases_in_dir_order(self):
        source = ('class Roof:\n    def mend(self):\n        """Mend."""\n\n'
                  '    def _patch(self):\n        """Patch."""\n\n\n'
                  'class Shed(Roof):\n    """A shed.\n\n    Attributes\n    ----------\n'
                  '    height : int\n        How high.\n    """\n\n'
                  '    colour = "red"  #: Its colour.\n\n'
                  '    @property\n    def size(self):\n        """The size."""\n\n'
                  '    def __init__(self):\n        """Make it."""\n\n'
                  '    def seal(self):\n        """Seal."""\n')
        module = parse_module("herd.barn", "herd/barn.py", source.encode())
        package = PackageSource(modules={"herd.barn": module})
        context = class_context(package, module, module.objects["Shed"], "herd.barn.Shed")
        self.assertEqual(
            {key: context[key] for key in ("module", "name", "objname", "all_methods",
                                           "methods", "all_attributes", "attributes",
                                           "inherited_members")},
            {"module": "herd.barn", "name": "Shed", "objname": "Shed",
             "all_methods": ["__init__", "_patch", "mend", "seal"],
             "methods": ["__init__", "mend", "seal"],
             # The docstring's Attributes entry `height` is no member (dir() has none).
             "all_attributes": ["colour", "size"], "attributes": ["colour", "size"],
             "inherited_members": {"_patch", "mend"}})
        # A Cython `cdef class`'s (it has no instance __dict__: its attributes are
        # descriptors, `property n:` blocks the Cython reader does not read), not a Python
        # class's in a Cython module (scipy's ConvexHull: its instances have their own).
        pen = ('cdef class Pen:\n    """A pen.\n\n    Attributes\n    ----------\n'
               '    n : int\n        How many.\n    """\n\n    property n:\n'
               '        def __get__(self): return 1\n')
        for source, expected in ((pen, ["n"]), (pen.replace("cdef class", "class"), [])):
            module = parse_module("herd.pen", "herd/pen.pyx", source.encode())
            package = PackageSource(modules={"herd.pen": module})
            context = class_context(package, module, module.objects["Pen"], "herd.pen.Pen")
            self.assertEqual(context["attributes"], expected, source)


if __name__ == "__main__":
    unittest.main()
