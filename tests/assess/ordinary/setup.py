import os

from setuptools import find_packages, setup

here = os.path.abspath(os.path.dirname(__file__))
about = {}
with open(os.path.join(here, "mytool", "__version__.py")) as f:
    exec(f.read(), about)

with open(os.path.join(here, "README.md"), encoding="utf-8") as f:
    long_description = f.read()

setup(
    name="mytool",
    version=about["__version__"],
    description="A small command-line tool",
    long_description=long_description,
    long_description_content_type="text/markdown",
    packages=find_packages(exclude=["tests"]),
    python_requires=">=3.8",
    install_requires=["requests>=2.25", "click>=8"],
    entry_points={"console_scripts": ["mytool=mytool.cli:main"]},
)
