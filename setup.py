"""Build hook: compiles the per-packet hot path with mypyc when it can, else installs it as
plain Python (the same source, the same results, slower).

The modules in HOT are ordinary typed Python. With a C compiler on the machine (Debian's
gcc) and mypy's `mypyc` in the build environment (pyproject.toml's build requirements),
`pip install` turns them into C extensions that Python imports in place of the .py files.
Compilation is skipped, and the package installed as pure Python, when
`TRACEPCAP_PURE=1` is set, when there is no compiler or no mypyc, or when compiling fails
for any reason: a warning says so and the install goes on. At run time `TRACEPCAP_PURE=1`
makes the package import the .py files even where compiled ones are installed
(src/tracepcap/_pure.py).
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig

from setuptools import setup
from setuptools.command.build_ext import build_ext

# The modules every packet goes through (benchmarks/extract_bench.py --profile): the
# reader's record loop, frame decoding to the transport header, the flow table, the TCP
# stream heads, the walk that hands packets to the extractors.
HOT = [
    "src/tracepcap/extract/reader.py",
    "src/tracepcap/extract/packet.py",
    "src/tracepcap/extract/flows.py",
    "src/tracepcap/extract/streams.py",
    "src/tracepcap/extract/decoders/ethernet.py",
    "src/tracepcap/extract/decoders/ipv4.py",
    "src/tracepcap/extract/decoders/ipv6.py",
    "src/tracepcap/extract/decoders/tcp.py",
    "src/tracepcap/extract/decoders/udp.py",
    # the walk's own loop and the contract its extractors meet (plug-ins subclass it from
    # Python), and the extractors and decoders the most packets reach (their results are
    # plain classes in extract/results.py and extract/facts.py, kept as Python: they are pickled)
    "src/tracepcap/extract/pipeline.py",
    "src/tracepcap/extract/extractor.py",
    "src/tracepcap/extract/segments.py",
    "src/tracepcap/extract/extractors/dns.py",
    "src/tracepcap/extract/extractors/dns_answers.py",
    "src/tracepcap/extract/extractors/http.py",
    "src/tracepcap/extract/extractors/tls.py",
    "src/tracepcap/extract/extractors/services.py",
    "src/tracepcap/extract/extractors/ttl.py",
    "src/tracepcap/extract/extractors/link_paths.py",
    "src/tracepcap/extract/decoders/dns.py",
    "src/tracepcap/extract/decoders/http.py",
    "src/tracepcap/extract/decoders/tls.py",
]
GROUP = "tracepcap.extract._hot"  # the shared library: tracepcap/extract/_hot__mypyc.*.so
# Written beside the compiled modules once they are built: each HOT module's sha256. The
# package runs them only while every .py still matches (src/tracepcap/_pure.py), so an edited
# source is never shadowed by a stale build.
MANIFEST = "_compiled.json"
DIGESTS: dict[str, str] = {}  # module -> sha256 of the source mypyc compiled


def _digests(here: str) -> dict[str, str]:
    import hashlib
    found = {}
    for path in HOT:
        name = path[len("src/"):-len(".py")].replace("/", ".")
        with open(os.path.join(here, path), "rb") as source:
            found[name] = hashlib.sha256(source.read()).hexdigest()
    return found


def _warn(why: str) -> None:
    print(f"tracepcap: installing the pure-Python hot path ({why})", file=sys.stderr)


def _compiler() -> str | None:
    cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    return shutil.which(cc)


# setup.py runs several times per install (requirements, metadata, the build): mypyc's code
# generation runs only for the commands that build extensions
BUILDS = {"build", "build_ext", "bdist_wheel", "editable_wheel", "develop", "install"}


def hot_extensions() -> list:
    if not BUILDS & set(sys.argv[1:]):
        return []
    if os.environ.get("TRACEPCAP_PURE") == "1":
        _warn("TRACEPCAP_PURE=1")
        return []
    if _compiler() is None:
        _warn("no C compiler found")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _warn("mypyc is not installed in the build environment")
        return []
    here = os.path.dirname(os.path.abspath(__file__))
    cwd = os.getcwd()
    try:
        os.chdir(here)  # mypyc resolves module names from the paths given
        DIGESTS.update(_digests(here))  # before mypyc reads them
        return mypycify(["--ignore-missing-imports", "--follow-imports=silent", *HOT],
                        group_name=GROUP, opt_level="3")
    except BaseException as err:  # noqa: BLE001 - a type error or a mypyc bug: go pure
        if isinstance(err, KeyboardInterrupt):
            raise
        _warn(f"mypyc failed: {err!r}")
        return []
    finally:
        os.chdir(cwd)


def _manifest_path(command: build_ext) -> str:
    return os.path.join(os.path.dirname(command.get_ext_fullpath("tracepcap.extract.packet")), MANIFEST)


class OptionalBuildExt(build_ext):
    """Builds the compiled modules all or none: if one fails, the ones built are removed
    and the package stays pure Python. Once all are built, writes the manifest."""

    def run(self) -> None:
        manifest = _manifest_path(self)
        if os.path.exists(manifest):
            os.remove(manifest)  # until this build succeeds, nothing compiled is trusted
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as err:  # noqa: BLE001 - a compiler error: go pure
            _warn(f"compiling failed: {err}")
            self._remove_outputs()
            return
        import json
        os.makedirs(os.path.dirname(manifest), exist_ok=True)
        with open(manifest, "w") as out:
            json.dump(DIGESTS, out, indent=1, sort_keys=True)

    def _remove_outputs(self) -> None:
        for ext in self.extensions:
            path = self.get_ext_fullpath(ext.name)
            if os.path.exists(path):
                os.remove(path)
            if self.inplace:
                rel = self.get_ext_filename(ext.name)
                for root in ("src", "."):
                    path = os.path.join(root, rel)
                    if os.path.exists(path):
                        os.remove(path)
        self.extensions = []

    def get_outputs(self) -> list[str]:
        if not self.extensions:
            return []
        return [*super().get_outputs(), _manifest_path(self)]


setup(ext_modules=hot_extensions(), cmdclass={"build_ext": OptionalBuildExt})
