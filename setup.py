"""Packaging: the `retrieval` package, its console script, and the embedded fixture snapshot."""

import os

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py


class BuildWithSnapshot(build_py):
    """Copy the top-level snapshot.json into the built package.

    snapshot.json stays at the top of the checkout (where people look for it); installed, the
    package finds it beside itself. One file, two places it is looked up: no copy is committed.
    """

    def run(self):
        super().run()
        target = os.path.join(self.build_lib, "retrieval", "snapshot.json")
        # An editable install builds into an empty directory: make the package's place first.
        self.mkpath(os.path.dirname(target))
        self.copy_file("snapshot.json", target)


setup(
    name="retrieval",
    version="0.1.0",
    description="Budgeted, verifiable documentation retrieval over HTTP (WSGI, Waitress)",
    packages=find_packages(include=["retrieval", "retrieval.*"]),
    package_data={"retrieval": ["static/*"]},
    python_requires=">=3.11",
    # retrieval/server.py admits requests through Waitress's task-dispatcher and channel hooks
    # (create_server's _dispatcher, channel_class, task_class): re-test before a new major.
    install_requires=["waitress>=3.0,<4"],
    # semantic: the optional embedding re-rank (retrieval/semantic.py) reads the model files that
    # exactly this wordllama wheel bundles; their digest is pinned, so the pin is exact.
    # mcp, langchain, llamaindex: `retrieval mcp` and the framework adapters; each maps onto the
    # verifying client (requests). The mcp SDK brings uvicorn and starlette for HTTP transport.
    extras_require={"test": ["requests>=2.28"], "client": ["requests>=2.28"],
                    "semantic": ["wordllama==0.4.0.post1", "numpy>=2", "tokenizers"],
                    "mcp": ["mcp>=2.3,<3", "requests>=2.28"],
                    "langchain": ["langchain-core>=1.0,<2", "requests>=2.28"],
                    "llamaindex": ["llama-index-core>=0.14,<0.15", "requests>=2.28"]},
    entry_points={"console_scripts": ["retrieval = retrieval.__main__:main"]},
    cmdclass={"build_py": BuildWithSnapshot},
)
