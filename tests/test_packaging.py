"""The package mapping (envs/ and baselines/ installed inside mase) holds together."""

import importlib
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
MAPPING = PYPROJECT["tool"]["setuptools"]["package-dir"]


def installed_name(folder: Path) -> str:
    rel = folder.relative_to(ROOT).as_posix()
    for package, src in sorted(MAPPING.items(), key=lambda kv: -len(kv[1])):
        if rel == src or rel.startswith(src + "/"):
            return (package + rel[len(src) :]).replace("/", ".")
    raise AssertionError(f"{rel} is not under a mapped folder")


def test_every_package_folder_is_listed():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    folders = [p.parent for src in MAPPING.values() for p in (ROOT / src).rglob("__init__.py")]
    found = {installed_name(f) for f in folders}
    assert found == listed, f"missing from pyproject: {found - listed}; stale: {listed - found}"


def test_every_mapped_folder_is_a_package_and_no_root_conftest():
    for src in MAPPING.values():
        assert (ROOT / src / "__init__.py").exists(), src
    assert not (ROOT / "conftest.py").exists()


PACKAGES = PYPROJECT["tool"]["setuptools"]["packages"]
# lists every module of the listed packages (pkgutil does not follow the remapped folders)
LIST_MODULES = (
    "import importlib, pkgutil\n"
    "def all_modules(packages):\n"
    "    names = []\n"
    "    for package in packages:\n"
    "        names.append(package)\n"
    "        path = importlib.import_module(package).__path__\n"
    "        names += [f'{package}.{m.name}' for m in pkgutil.iter_modules(path) if not m.ispkg]\n"
    "    return sorted(names)\n"
)
namespace: dict = {}
exec(LIST_MODULES, namespace)
all_modules = namespace["all_modules"]


def test_every_module_imports():
    names = all_modules(PACKAGES)
    assert "mase.envs.search_rescue.world" in names and "mase.baselines" in names
    for name in names:
        importlib.import_module(name)


def test_the_built_wheel_installs_and_imports_in_a_fresh_venv(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "build",
            "--wheel",
            "--no-isolation",
            "--outdir",
            str(dist),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next(dist.glob("mase_suite-*.whl"))
    target = tmp_path / "venv"
    # the fresh venv sees this interpreter's installed dependencies but not the source tree
    venv.EnvBuilder(system_site_packages=False, with_pip=False).create(target)
    python = target / "bin" / "python"
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    deps = [p for p in sys.path if p.endswith("site-packages")]
    (Path(site) / "deps.pth").write_text("\n".join(deps) + "\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            "--target",
            site,
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    script = LIST_MODULES + (
        f"names = all_modules({PACKAGES!r})\n"
        "[importlib.import_module(n) for n in names]\n"
        "import mase\n"
        "env = mase.make('mase/SearchRescue-v0'); env.reset(seed=0)\n"
        "from importlib import resources\n"
        "from mase.replay import task_drawing\n"
        "assert all((resources.files('mase.replay') / f).is_file()\n"
        "           for f in ('viewer.html', 'viewer.css', 'viewer.js'))\n"
        "assert all(task_drawing(i) for i in ('mase/SearchRescue-v0', 'mase/Avalon-v0',\n"
        "           'mase/Debate-v0', 'mase/MenuDesign-v0', 'mase/Craft-v0',\n"
        "           'mase/AgentVerse-v0'))\n"
        "print(len(names), mase.__file__)\n"
    )
    result = subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert str(target) in result.stdout


def test_import_mase_does_not_import_torch_and_baselines_load_lazily():
    script = (
        "import sys, mase\n"
        "assert 'torch' not in sys.modules\n"
        "assert mase.baselines.CBSPolicy.__name__ == 'CBSPolicy'\n"
        "assert mase.baselines.MAPPOPolicy.__name__ == 'MAPPOPolicy'\n"
        "assert 'torch' in sys.modules\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
