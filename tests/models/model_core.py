"""The issue-2 models: small CPU models that cover the common kernel kinds.

mlp_ln:      Linear -> LayerNorm -> ReLU -> Linear, then rows picked by an
             int64 index input (indexing with a runtime tensor).
conv_block:  Conv2d -> BatchNorm2d -> ReLU -> MaxPool2d.
encoder:     nn.TransformerEncoderLayer (d_model 16, 2 heads, no dropout).
All are built with the intermediate-value printer at level 1 (make_models.py).
"""
import torch
from torch import nn


class MlpLn(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.ln = nn.LayerNorm(32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x, idx):
        y = self.fc2(torch.relu(self.ln(self.fc1(x))))
        return y[idx]


class ConvBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        return self.pool(torch.relu(self.bn(self.conv(x))))


def mlp_ln():
    torch.manual_seed(0)
    m = MlpLn().eval()
    x = torch.randn(6, 16)
    idx = torch.tensor([5, 0, 3], dtype=torch.int64)
    return {"module": m, "inputs": (x, idx), "dynamic": None}


def conv_block():
    torch.manual_seed(1)
    m = ConvBlock()
    with torch.no_grad():  # non-trivial running stats so batchnorm does something
        m.bn.running_mean.uniform_(-0.5, 0.5)
        m.bn.running_var.uniform_(0.5, 2.0)
    m = m.eval()
    x = torch.randn(2, 3, 8, 8)
    return {"module": m, "inputs": (x,), "dynamic": None}


def encoder():
    torch.manual_seed(2)
    m = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0,
                                   batch_first=True).eval()
    x = torch.randn(2, 5, 16)
    return {"module": m, "inputs": (x,), "dynamic": None}


MODELS = {"mlp_ln": mlp_ln, "conv_block": conv_block, "encoder": encoder}
