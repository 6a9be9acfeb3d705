"""The exported programs tests/unit/test_eager_plan.c plans against (it reads node names only):
the H200's models at tiny sizes, exported on CPU with torch.export.save into OUT.

  python3 tests/models/export_plan_programs.py OUT

gpt_tiny.ep.pt2: model_eager_gpt.py's GPT (vocab 8, d=8, 2 heads, 6 layers, seq 4, bfloat16), whose
graph nodes have the names, in the order, of the d=384 export behind tests/data/eager_cuda_gpt;
convbn.ep.pt2 and kvcache.ep.pt2: model_launches.py's ConvBn and KvCache(d=64), the held-out models
of tests/gpu/run_eager_heldout_gpu.sh. Written through a temporary name (never half a file).
"""
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import model_eager_gpt  # noqa: E402
import model_launches  # noqa: E402


def save(ep, out, name):
    tmp = os.path.join(out, f".{os.getpid()}.tmp.{name}")
    torch.export.save(ep, tmp)
    os.replace(tmp, os.path.join(out, name))


def main(out):
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(11)
    gpt = model_eager_gpt.GPT(vocab=8, d=8, heads=2, layers=6, seq=4).eval().to(torch.bfloat16)
    save(torch.export.export(gpt, (torch.randint(0, 8, (2, 4)),)), out, "gpt_tiny.ep.pt2")
    torch.manual_seed(0)
    convbn = model_launches.ConvBn().eval()
    save(torch.export.export(convbn, (torch.randn(1, 3, 8, 8),)), out, "convbn.ep.pt2")
    torch.manual_seed(0)
    kv = model_launches.KvCache(d=64).eval()
    save(torch.export.export(kv, (torch.randn(4, 64),), {"pos": torch.arange(4)}), out, "kvcache.ep.pt2")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
