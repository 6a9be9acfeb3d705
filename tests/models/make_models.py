"""Builds the real AOTI packages the tests run (torch CPU, AOTI).

Every tests/models/model_*.py module defines MODELS: a dict name -> builder,
where builder() returns a dict:
    module:   a torch.nn.Module (eval mode)
    inputs:   a tuple of example tensors
    kwargs:   keyword example tensors (exported as kwargs: their names reach the
              package's in_spec_), optional; inputs.pt holds args then kwargs
    dynamic:  dynamic_shapes for torch.export.export, or None
    configs:  extra inductor_configs (merged over printer level 1), optional
    programs: {SUFFIX: module}, optional: more exported programs of the same
              inputs, each written with torch.export.save to
              OUTDIR/<name>.SUFFIX.ep.pt2 (the program the package was
              compiled from, a changed one: the eager references of --eager)
    build:    build(package_path, configs) -> None, optional: writes the package
              itself (several models in one archive, ...) instead of the export
              and aoti_compile_and_package of module
    runs:     more input tuples to run (other branches, other dynamic sizes),
              optional; OUTDIR/<name>.runs.pt holds [(inputs, eager outputs), ...]
              for the example inputs and each of these
    guard:    a context-manager factory (e.g. deterministic algorithms) around
              the eager runs, the export and the compile, optional
A module with HASH_PER_MODEL = True is stamped per model: the hash of its
builder's source (plus shared_source(), when it defines one), so editing one
model rebuilds that model alone (the AOTI suite's builders are self-contained).
The package is written to OUTDIR/<name>.pt2, with OUTDIR/<name>.inputs.pt
(the example inputs) and OUTDIR/<name>.expected.pt (eager outputs) beside it.
A package is rebuilt only when the builder's module source changes
(OUTDIR/<name>.stamp holds the hash).

usage: python3 tests/models/make_models.py OUTDIR [NAME ...]
"""
import contextlib
import glob
import hashlib
import importlib.util
import inspect
import os
import shutil
import tempfile
import sys


def registry():
    models = {}
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "model_*.py"))):
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        with open(path, "rb") as f:
            file_hash = hashlib.sha256(f.read()).hexdigest()
        shared = mod.shared_source() if hasattr(mod, "shared_source") else ""
        for name, builder in mod.MODELS.items():
            if name in models:
                raise SystemExit(f"{path}: model {name!r} is defined twice")
            src_hash = file_hash
            if getattr(mod, "HASH_PER_MODEL", False):
                src_hash = hashlib.sha256((inspect.getsource(builder) + shared).encode()).hexdigest()
            models[name] = (builder, src_hash)
    return models


def build(outdir, name, builder, src_hash):
    import torch
    stamp_path = os.path.join(outdir, name + ".stamp")
    pkg = os.path.join(outdir, name + ".pt2")
    stamp = f"{src_hash} {torch.__version__}"
    if os.path.exists(pkg) and os.path.exists(stamp_path) and open(stamp_path).read() == stamp:
        return pkg
    with _compile_lock():
        # another process may have built it while this one waited
        if os.path.exists(pkg) and os.path.exists(stamp_path) and open(stamp_path).read() == stamp:
            return pkg
        spec = builder()
        guard = spec.get("guard") or contextlib.nullcontext
        with guard():
            return _build(outdir, name, spec, pkg, stamp_path, stamp)


@contextlib.contextmanager
def _compile_lock():
    """One AOTI compile at a time across processes that share inductor's cache folder: two
    processes compiling the same graph write the same cache files, and one can package the
    other's half-written wrapper_metadata.json (seen: a 0-byte one, then 'not a JSON object')."""
    import fcntl
    from torch._inductor.runtime.cache_dir_utils import cache_dir
    os.makedirs(cache_dir(), exist_ok=True)
    with open(os.path.join(cache_dir(), "aotidbg-test-compile.lock"), "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _build(outdir, name, spec, pkg, stamp_path, stamp):
    import torch
    module, inputs, kwargs = spec["module"], spec["inputs"], spec.get("kwargs") or {}
    configs = {"aot_inductor.debug_intermediate_value_printer": "1"}
    configs.update(spec.get("configs") or {})
    with torch.no_grad():
        # eager first on copies: a model may mutate its buffers (the export sees the originals)
        import copy
        runs = []
        for args in [tuple(inputs)] + [tuple(r) for r in spec.get("runs") or []]:
            m = copy.deepcopy(module)
            runs.append((args, m(*copy.deepcopy(args), **copy.deepcopy(kwargs))))
        expected = runs[0][1]
    # Several test processes may build the same model at once: write privately, rename into place.
    # The package is written under its final name in a private folder: AOTI names the archive's
    # root folder after the file, and a temporary name there would show in every listing.
    tag = f".{os.getpid()}.tmp"
    private = tempfile.mkdtemp(prefix=f".{name}.", dir=outdir)
    try:
        built = os.path.join(private, os.path.basename(pkg))
        if spec.get("build"):
            spec["build"](built, configs)
        else:
            ep = torch.export.export(module, tuple(inputs), kwargs=kwargs or None,
                                     dynamic_shapes=spec.get("dynamic"))
            torch._inductor.aoti_compile_and_package(ep, package_path=built, inductor_configs=configs)
        programs = []
        for suffix, prog in (spec.get("programs") or {}).items():
            ep = torch.export.export(prog, tuple(inputs), kwargs=kwargs or None, dynamic_shapes=spec.get("dynamic"))
            dst = os.path.join(outdir, f"{name}.{suffix}.ep.pt2")
            torch.export.save(ep, dst[:-4] + tag + ".pt2")   # torch wants the .pt2 ending
            programs.append(dst)
        torch.save(tuple(inputs) + tuple(kwargs.values()), os.path.join(outdir, name + ".inputs.pt" + tag))
        torch.save(expected, os.path.join(outdir, name + ".expected.pt" + tag))
        torch.save(runs, os.path.join(outdir, name + ".runs.pt" + tag))
        with open(stamp_path + tag, "w") as f:
            f.write(stamp)
        for suffix in (".inputs.pt", ".expected.pt", ".runs.pt"):
            os.replace(os.path.join(outdir, name + suffix + tag), os.path.join(outdir, name + suffix))
        for dst in programs:
            os.replace(dst[:-4] + tag + ".pt2", dst)
        os.replace(built, pkg)
    finally:
        shutil.rmtree(private, ignore_errors=True)
    os.replace(stamp_path + tag, stamp_path)
    return pkg


def main(argv):
    if len(argv) < 2:
        raise SystemExit(__doc__)
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    models = registry()
    names = argv[2:] or sorted(models)
    for name in names:
        if name not in models:
            raise SystemExit(f"unknown model {name!r}; known: {', '.join(sorted(models))}")
        builder, src_hash = models[name]
        print(build(outdir, name, builder, src_hash), flush=True)


if __name__ == "__main__":
    main(sys.argv)
