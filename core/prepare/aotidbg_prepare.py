#!/usr/bin/env python3
"""aotidbg_prepare: rebuild a debuggable AOTI package from an exported program.

For users who still have the model: takes a torch.export.save file and
compiles it with torch._inductor.aoti_compile_and_package with the debugging
aids baked in, so `aotidbg` sees every kernel with its tensors:

  --printer 1|2|3   the intermediate-value printer (default 1: aotidbg's hooks
                    get every kernel's tensors; 2 prints values; 3 kernel names)
  --nan-asserts     TORCHINDUCTOR_NAN_ASSERTS: "At least one NaN in bufN" at the
                    first kernel that produces one
  --check-inputs    the generated input checks (dtype, shape, strides, device);
                    since torch 2.6 they are always compiled in and run when
                    AOTI_RUNTIME_CHECK_INPUTS=1 is set at run time: this flag
                    verifies they are there and says so
  --device cpu|cuda compile for this device (moves the program if needed)
  --provenance 0|1  provenance tracking (default 1): the package carries
                    kernel_information.json, each kernel call's stack traces
                    and graph nodes, so aotidbg shows the model line of every
                    kernel (trace.provenance_tracking_level)

usage: python3 core/prepare/aotidbg_prepare.py EXPORTED.pt2 -o OUT.pt2
           [--printer 1|2|3] [--nan-asserts] [--check-inputs] [--device cpu|cuda]
           [--provenance 0|1]

Exit codes: 0 built; 1 the compile failed; 2 bad usage or unreadable input.
"""
import argparse
import os
import shutil
import tempfile
import sys
import time
import zipfile


def parse_args(argv):
    p = argparse.ArgumentParser(prog="aotidbg_prepare", description=__doc__.split("\n\n")[0])
    p.add_argument("exported", help="a torch.export.save file (.pt2)")
    p.add_argument("-o", "--output", required=True, help="the package to write (.pt2)")
    p.add_argument("--printer", choices=["0", "1", "2", "3"], default="1")
    p.add_argument("--nan-asserts", action="store_true")
    p.add_argument("--check-inputs", action="store_true")
    p.add_argument("--device", choices=["cpu", "cuda"], default=None)
    p.add_argument("--provenance", choices=["0", "1"], default="1")
    p.add_argument("--filtered-kernels", default=None,
                   help="with --printer 2: only these kernels (comma-separated)")
    return p.parse_args(argv)


def program_device(ep):
    """The device of the exported program's first tensor constant or parameter."""
    import torch
    for t in list(ep.state_dict.values()) + list(ep.constants.values()):
        if isinstance(t, torch.Tensor):
            return t.device.type
    for node in ep.graph.nodes:
        val = node.meta.get("val")
        if node.op == "placeholder" and isinstance(val, torch.Tensor):
            return val.device.type
    return "cpu"


def main(argv):
    args = parse_args(argv)
    if not os.path.isfile(args.exported):
        print(f"aotidbg_prepare: {args.exported}: no such file", file=sys.stderr)
        return 2
    if os.path.abspath(args.exported) == os.path.abspath(args.output):
        print("aotidbg_prepare: -o must differ from the input (the original is never overwritten)",
              file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError as e:
        print(f"aotidbg_prepare: torch is not importable here ({e}): install the torch the "
              "program was exported with", file=sys.stderr)
        return 2
    try:
        ep = torch.export.load(args.exported)
    except Exception as e:  # a .pt2 package or a corrupt file, not an exported program
        hint = ""
        if zipfile.is_zipfile(args.exported):
            with zipfile.ZipFile(args.exported) as z:
                if any("/data/aotinductor/" in n for n in z.namelist()):
                    hint = (" (this is already a compiled AOTI package: to debug it as it is, let "
                            "aotidbg re-instrument it; prepare needs the torch.export.save file)")
        print(f"aotidbg_prepare: {args.exported}: not a torch.export.save file: {e}{hint}",
              file=sys.stderr)
        return 2

    have = program_device(ep)
    device = args.device or have
    if device == "cuda" and not torch.cuda.is_available():
        print("aotidbg_prepare: --device cuda but torch.cuda.is_available() is False here",
              file=sys.stderr)
        return 2
    if device != have:
        from torch.export.passes import move_to_device_pass
        ep = move_to_device_pass(ep, device)

    configs = {"aot_inductor.debug_intermediate_value_printer": args.printer}
    if args.filtered_kernels:
        configs["aot_inductor.filtered_kernel_names"] = args.filtered_kernels
    if args.nan_asserts:
        configs["nan_asserts"] = True
    if args.provenance == "1":
        if hasattr(torch._inductor.config.trace, "provenance_tracking_level"):
            configs["trace.provenance_tracking_level"] = 1
        else:
            print("aotidbg_prepare: this torch has no trace.provenance_tracking_level: the package "
                  "names graph nodes only, no source lines", file=sys.stderr)
    if args.check_inputs:
        # torch < 2.6 read this at compile time; newer ones at run time.
        os.environ["AOTI_RUNTIME_CHECK_INPUTS"] = "1"

    out = os.path.abspath(args.output)
    # Written under its final name in a private folder beside it (AOTI names the archive's root
    # folder after the file), then renamed into place: a failed build leaves nothing behind.
    private = tempfile.mkdtemp(prefix=".aotidbg-prepare.", dir=os.path.dirname(out))
    try:
        return finish_build(args, ep, configs, device, out, os.path.join(private, os.path.basename(out)))
    finally:
        shutil.rmtree(private, ignore_errors=True)


def record_torch_version(path, version):
    """Adds AOTI_TORCH_VERSION to every <key>_metadata.json of the package: torch records
    no version, and a package only promises to run on the torch release that built it
    (aotidbg check's package.torch-version row compares). Entries keep their order and
    their (stored) compression; torch's loader reads the extra key as one more string."""
    import json
    fixed = path + ".v"
    with zipfile.ZipFile(path) as zi, zipfile.ZipFile(fixed, "w") as zo:
        for info in zi.infolist():
            data = zi.read(info)
            if info.filename.endswith("_metadata.json"):
                meta = json.loads(data)
                meta["AOTI_TORCH_VERSION"] = version
                data = json.dumps(meta).encode()
            zo.writestr(info, data)
    os.replace(fixed, path)


def finish_build(args, ep, configs, device, out, tmp):
    import torch
    t0 = time.monotonic()
    try:
        torch._inductor.aoti_compile_and_package(ep, package_path=tmp, inductor_configs=configs)
    except Exception as e:
        print(f"aotidbg_prepare: compiling failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    secs = time.monotonic() - t0
    record_torch_version(tmp, torch.__version__)

    # Verify what was asked for really is in the generated wrapper.
    notes = []
    with zipfile.ZipFile(tmp) as z:
        names = [n for n in z.namelist() if n.endswith(".wrapper.cpp")]
        src = z.read(names[0]).decode("utf-8", "replace") if names else ""
        has_kinfo = any(n.endswith("/kernel_information.json") for n in z.namelist())
    if configs.get("trace.provenance_tracking_level") and not has_kinfo:
        notes.append("warning: provenance tracking requested but the package has no "
                     "kernel_information.json")
    expect = {"1": "aoti_torch_save_tensor_handle(", "2": "aoti_torch_print_tensor_handle(",
              "3": "[ before_launch: "}
    if args.printer in expect and expect[args.printer] not in src:
        notes.append(f"warning: printer level {args.printer} requested but the wrapper has no "
                     f"{expect[args.printer]!r} (no kernel the printer covers?)")
    if args.nan_asserts and "aoti_torch_check_inf_and_nan(" not in src:
        notes.append("warning: --nan-asserts requested but no aoti_torch_check_inf_and_nan call "
                     "was generated")
    if args.check_inputs:
        if "check_input_0(" in src or "assert_size_stride" in src:
            notes.append("input checks compiled in: run with AOTI_RUNTIME_CHECK_INPUTS=1 "
                         "(aotidbg's deterministic mode sets it)")
        else:
            notes.append("warning: --check-inputs requested but no input checks were generated")
    os.replace(tmp, out)
    print(f"aotidbg_prepare: wrote {out} (device {device}, printer {args.printer}"
          f"{', nan asserts' if args.nan_asserts else ''}"
          f"{', input checks' if args.check_inputs else ''}"
          f"{', provenance' if has_kinfo else ''}) in {secs:.1f} s")
    for n in notes:
        print(f"aotidbg_prepare: {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
