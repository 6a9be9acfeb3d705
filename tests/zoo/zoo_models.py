"""The model zoo of `--eager` (tests/zoo/zoo_eager.py): real architectures, tiny random configs.

Each entry builds (module, example inputs, dtype) on the CPU. The hand-written families are the
ones torch's own transformers use less of (GroupNorm UNets in float16, MoE blocks in bfloat16,
conv nets with batch norm, a while_loop); the rest are Hugging Face `transformers` models built
from their config classes with random weights (no download: nothing here reads a hub), so the
zoo runs where `transformers` is importable (DESIGN.md §12: pip install --target DIR transformers).

ZOO maps a name to (kind, builder); kind is "hand" or "hf". CI_SUBSET is the fast part CI runs.
"""
import torch

torch.manual_seed(0)


# ---- hand-written families ----------------------------------------------------------------

class RopeDecoder(torch.nn.Module):
    """A llama-style block: RMSNorm, rotary embeddings (cat of neg and slices), grouped-query
    attention with a causal mask, SwiGLU MLP."""

    def __init__(self, d=64, heads=4, kv=2, t=16):
        super().__init__()
        self.h, self.kv, self.hd = heads, kv, d // heads
        self.q = torch.nn.Linear(d, d, bias=False)
        self.k = torch.nn.Linear(d, kv * self.hd, bias=False)
        self.v = torch.nn.Linear(d, kv * self.hd, bias=False)
        self.o = torch.nn.Linear(d, d, bias=False)
        self.up = torch.nn.Linear(d, 2 * d, bias=False)
        self.gate = torch.nn.Linear(d, 2 * d, bias=False)
        self.down = torch.nn.Linear(2 * d, d, bias=False)
        self.n1 = torch.nn.Parameter(torch.ones(d))
        self.n2 = torch.nn.Parameter(torch.ones(d))
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        f = torch.outer(torch.arange(t).float(), inv)
        emb = torch.cat([f, f], -1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())

    @staticmethod
    def rms(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    @staticmethod
    def rot(x):
        a, b = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
        return torch.cat([-b, a], -1)

    def forward(self, x):
        B, T, D = x.shape
        h = self.rms(x, self.n1)
        q = self.q(h).view(B, T, self.h, self.hd).transpose(1, 2)
        k = self.k(h).view(B, T, self.kv, self.hd).transpose(1, 2)
        v = self.v(h).view(B, T, self.kv, self.hd).transpose(1, 2)
        q = q * self.cos[:T] + self.rot(q) * self.sin[:T]
        k = k * self.cos[:T] + self.rot(k) * self.sin[:T]
        k = k.repeat_interleave(self.h // self.kv, 1)
        v = v.repeat_interleave(self.h // self.kv, 1)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(B, T, D))
        h = self.rms(x, self.n2)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class VitCls(torch.nn.Module):
    """A ViT stem: patch conv, cls token cat, position add, LayerNorm, one encoder layer."""

    def __init__(self, d=64, p=4, img=16):
        super().__init__()
        self.patch = torch.nn.Conv2d(3, d, p, p)
        n = (img // p) ** 2
        self.cls = torch.nn.Parameter(torch.randn(1, 1, d) * 0.02)
        self.pos = torch.nn.Parameter(torch.randn(1, n + 1, d) * 0.02)
        self.ln = torch.nn.LayerNorm(d)
        self.enc = torch.nn.TransformerEncoderLayer(d, 4, 128, dropout=0.1, batch_first=True, norm_first=True)
        self.head = torch.nn.Linear(d, 10)

    def forward(self, x):
        h = self.patch(x).flatten(2).transpose(1, 2)
        h = torch.cat([self.cls.expand(h.shape[0], -1, -1), h], 1) + self.pos
        h = self.enc(torch.nn.functional.dropout(self.ln(h), 0.1, self.training))
        return self.head(h[:, 0])


class GnUnet(torch.nn.Module):
    """A small UNet: conv, GroupNorm, SiLU, a downsample, an upsample and a skip with a bias."""

    def __init__(self, c=16):
        super().__init__()
        self.c1 = torch.nn.Conv2d(4, c, 3, padding=1)
        self.g1 = torch.nn.GroupNorm(4, c)
        self.down = torch.nn.Conv2d(c, 2 * c, 3, stride=2, padding=1)
        self.g2 = torch.nn.GroupNorm(4, 2 * c)
        self.up = torch.nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.g3 = torch.nn.GroupNorm(4, c)
        self.skip_bias = torch.nn.Parameter(torch.randn(1, c, 1, 1) * 0.1)
        self.out = torch.nn.Conv2d(c, 4, 3, padding=1)

    def forward(self, x):
        s = torch.nn.functional.silu(self.g1(self.c1(x)))
        h = torch.nn.functional.silu(self.g2(self.down(s)))
        h = torch.nn.functional.silu(self.g3(self.up(h)) + s + self.skip_bias)
        return self.out(h)


class MoeBlock(torch.nn.Module):
    """A dense-dispatch mixture of experts: a bfloat16 router linear, float32 softmax, top-2 weights,
    every expert computed and mixed (no data-dependent shapes)."""

    def __init__(self, d=64, e=4):
        super().__init__()
        self.router = torch.nn.Linear(d, e, bias=False)
        self.w1 = torch.nn.Parameter(torch.randn(e, d, 2 * d) * 0.05)
        self.w2 = torch.nn.Parameter(torch.randn(e, 2 * d, d) * 0.05)

    def forward(self, x):
        logits = self.router(x).float()
        p = torch.softmax(logits, -1)
        top, idx = p.topk(2, -1)
        gates = torch.zeros_like(p).scatter(-1, idx, top / top.sum(-1, keepdim=True)).to(x.dtype)
        h = torch.einsum("td,edf->tef", x, self.w1)
        y = torch.einsum("tef,efd->ted", torch.nn.functional.gelu(h), self.w2)
        return (y * gates.unsqueeze(-1)).sum(1)


class ConvBn(torch.nn.Module):
    """A resnet-style conv net with batch norm (eval), a residual and a pooled head."""

    def __init__(self, c=16):
        super().__init__()
        self.c1, self.b1 = torch.nn.Conv2d(3, c, 3, padding=1, bias=False), torch.nn.BatchNorm2d(c)
        self.c2, self.b2 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False), torch.nn.BatchNorm2d(c)
        self.c3, self.b3 = torch.nn.Conv2d(c, c, 3, padding=1, bias=False), torch.nn.BatchNorm2d(c)
        self.fc = torch.nn.Linear(c, 10)
        for b in (self.b1, self.b2, self.b3):
            b.running_mean.normal_(0, 0.1)
            b.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        h = torch.relu(self.b1(self.c1(x)))
        h = torch.relu(h + self.b3(self.c3(torch.relu(self.b2(self.c2(h))))))
        return self.fc(h.mean((2, 3)))


class LoopRnn(torch.nn.Module):
    """An RNN cell in a while_loop (torch._higher_order_ops.while_loop): the loop's kernels are
    not compared (subgraphs), the ones around it are."""

    def __init__(self, d=32):
        super().__init__()
        self.inp = torch.nn.Linear(d, d)
        self.cell = torch.nn.Linear(d, d)
        self.out = torch.nn.Linear(d, d)

    def forward(self, x):
        from torch._higher_order_ops.while_loop import while_loop
        h = torch.tanh(self.inp(x))
        w, b = self.cell.weight, self.cell.bias

        def cond(i, h):
            return i < 4

        def body(i, h):
            return i + 1, torch.tanh(h @ w.t() + b)
        _, h = while_loop(cond, body, (torch.zeros((), dtype=torch.int64), h))
        return self.out(h)


class Bf16Upcast(torch.nn.Module):
    """A bfloat16 linear whose output is scaled, shifted and upcast for a float32 softmax: eager rounds
    to bfloat16 after the mul and the add, Inductor's fused kernel keeps float32 throughout (nearer the
    exact math), so the float32 softmax differs from eager's by more than float32's tolerance while
    it is closer to float64 than eager is (pytorch#131595)."""

    def __init__(self, d=64):
        super().__init__()
        self.fc = torch.nn.Linear(d, d)

    def forward(self, x):
        h = self.fc(x)
        return torch.softmax((h * 1.1 + 0.3).float(), -1)


def hand(cls, shape, dtype=torch.float32, **kw):
    def build():
        m = cls(**kw).eval().to(dtype)
        return m, (torch.randn(*shape).to(dtype),)
    return build


# ---- Hugging Face transformers (tiny random configs) ------------------------------------------

TEXT = dict(vocab_size=128, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
            max_position_embeddings=64)


def hf(cfg_name, model_name, cfg, inputs, out="last_hidden_state"):
    def build():
        import transformers
        c = getattr(transformers, cfg_name)(**cfg)
        try:
            c._attn_implementation = "sdpa"
            m = getattr(transformers, model_name)(c).eval()
        except ValueError:   # a model with no attention to choose (ConvNeXt, ResNet)
            c = getattr(transformers, cfg_name)(**cfg)
            m = getattr(transformers, model_name)(c).eval()

        class W(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.m = m

            def forward(self, *a):
                r = self.m(*a)
                return getattr(r, out) if hasattr(r, out) else r[0]
        return W().eval(), inputs()
    return build


def ids(b=2, t=12, v=128):
    return lambda: (torch.randint(0, v, (b, t)),)


def img(c=3, s=32):
    return lambda: (torch.randn(1, c, s, s),)


def wave(n=1600):
    return lambda: (torch.randn(1, n),)


def encdec(b=1, t=8, v=128):
    return lambda: (torch.randint(0, v, (b, t)), torch.ones(b, t, dtype=torch.int64),
                    torch.randint(0, v, (b, t)))


VIS = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128, image_size=32,
           patch_size=8)

ZOO = {
    # hand-written
    "rope_decoder": ("hand", hand(RopeDecoder, (2, 16, 64))),
    "vit_cls": ("hand", hand(VitCls, (2, 3, 16, 16))),
    "gn_unet_fp16": ("hand", hand(GnUnet, (1, 4, 16, 16), torch.float16)),
    "moe_bf16": ("hand", hand(MoeBlock, (8, 64), torch.bfloat16)),
    "convbn": ("hand", hand(ConvBn, (2, 3, 16, 16))),
    "rope_decoder_bf16": ("hand", hand(RopeDecoder, (2, 16, 64), torch.bfloat16)),
    "loop_rnn": ("hand", hand(LoopRnn, (4, 32))),
    "bf16_upcast": ("hand", hand(Bf16Upcast, (16, 64), torch.bfloat16)),
    # text encoders
    "bert": ("hf", hf("BertConfig", "BertModel", TEXT, ids())),
    "roberta": ("hf", hf("RobertaConfig", "RobertaModel", dict(TEXT, pad_token_id=1), ids())),
    "albert": ("hf", hf("AlbertConfig", "AlbertModel", dict(TEXT, embedding_size=32), ids())),
    "distilbert": ("hf", hf("DistilBertConfig", "DistilBertModel",
                            dict(vocab_size=128, dim=64, n_layers=2, n_heads=4, hidden_dim=128), ids())),
    "electra": ("hf", hf("ElectraConfig", "ElectraModel", dict(TEXT, embedding_size=32), ids())),
    "deberta_v2": ("hf", hf("DebertaV2Config", "DebertaV2Model", dict(TEXT, relative_attention=True,
                                                                     position_buckets=16), ids())),
    "mobilebert": ("hf", hf("MobileBertConfig", "MobileBertModel",
                            dict(TEXT, embedding_size=32, intra_bottleneck_size=32, true_hidden_size=32,
                                 num_feedforward_networks=2), ids())),
    # decoders
    "gpt2": ("hf", hf("GPT2Config", "GPT2Model", dict(vocab_size=128, n_embd=64, n_layer=2, n_head=4,
                                                      n_positions=64), ids())),
    "llama": ("hf", hf("LlamaConfig", "LlamaModel", dict(TEXT, num_key_value_heads=2), ids())),
    "qwen2": ("hf", hf("Qwen2Config", "Qwen2Model", dict(TEXT, num_key_value_heads=2), ids())),
    "mistral": ("hf", hf("MistralConfig", "MistralModel", dict(TEXT, num_key_value_heads=2, sliding_window=8),
                         ids())),
    "phi": ("hf", hf("PhiConfig", "PhiModel", dict(TEXT, partial_rotary_factor=0.5), ids())),
    "gemma": ("hf", hf("GemmaConfig", "GemmaModel", dict(TEXT, num_key_value_heads=1, head_dim=16), ids())),
    "gpt_neo": ("hf", hf("GPTNeoConfig", "GPTNeoModel", dict(vocab_size=128, hidden_size=64, num_layers=2,
                                                             num_heads=4, attention_types=[[["global", "local"], 1]],
                                                             window_size=8, max_position_embeddings=64), ids())),
    "opt": ("hf", hf("OPTConfig", "OPTModel", dict(vocab_size=128, hidden_size=64, num_hidden_layers=2,
                                                   num_attention_heads=4, ffn_dim=128, word_embed_proj_dim=64,
                                                   max_position_embeddings=64), ids())),
    "bloom": ("hf", hf("BloomConfig", "BloomModel", dict(vocab_size=128, hidden_size=64, n_layer=2, n_head=4),
                       ids())),
    "falcon": ("hf", hf("FalconConfig", "FalconModel", dict(vocab_size=128, hidden_size=64, num_hidden_layers=2,
                                                            num_attention_heads=4, new_decoder_architecture=True,
                                                            num_kv_heads=2), ids())),
    # encoder-decoder
    "t5": ("hf", hf("T5Config", "T5Model", dict(vocab_size=128, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                                num_heads=4, relative_attention_num_buckets=8), encdec())),
    "bart": ("hf", hf("BartConfig", "BartModel", dict(vocab_size=128, d_model=64, encoder_layers=1, decoder_layers=1,
                                                      encoder_attention_heads=4, decoder_attention_heads=4,
                                                      encoder_ffn_dim=128, decoder_ffn_dim=128,
                                                      max_position_embeddings=64), encdec())),
    # vision
    "vit": ("hf", hf("ViTConfig", "ViTModel", VIS, img())),
    "deit": ("hf", hf("DeiTConfig", "DeiTModel", VIS, img())),
    "beit": ("hf", hf("BeitConfig", "BeitModel", dict(VIS, use_relative_position_bias=True), img())),
    "dinov2": ("hf", hf("Dinov2Config", "Dinov2Model", VIS, img())),
    "swin": ("hf", hf("SwinConfig", "SwinModel", dict(image_size=32, patch_size=4, embed_dim=16, depths=[1, 1],
                                                      num_heads=[2, 2], window_size=4), img())),
    "convnext": ("hf", hf("ConvNextConfig", "ConvNextModel", dict(hidden_sizes=[16, 32], depths=[1, 1], num_stages=2),
                          img())),
    "resnet": ("hf", hf("ResNetConfig", "ResNetModel", dict(hidden_sizes=[16, 32], depths=[1, 1], embedding_size=16),
                        img())),
    "segformer": ("hf", hf("SegformerConfig", "SegformerModel", dict(num_encoder_blocks=2, depths=[1, 1],
                                                                     sr_ratios=[2, 1], hidden_sizes=[16, 32],
                                                                     num_attention_heads=[1, 2],
                                                                     patch_sizes=[7, 3], strides=[4, 2],
                                                                     mlp_ratios=[2, 2]), img())),
    "mobilevit": ("hf", hf("MobileViTConfig", "MobileViTModel", dict(image_size=32, hidden_sizes=[16, 24, 32],
                                                                     neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 48]),
                           img())),
    "regnet": ("hf", hf("RegNetConfig", "RegNetModel", dict(hidden_sizes=[16, 32], depths=[1, 1], groups_width=8,
                                                            embedding_size=16), img())),
    "levit": ("hf", hf("LevitConfig", "LevitModel", dict(image_size=32, hidden_sizes=[32, 48, 64],
                                                         num_attention_heads=[1, 2, 2], depths=[1, 1, 1],
                                                         key_dim=[8, 8, 8]), img())),
    # audio
    "wav2vec2": ("hf", hf("Wav2Vec2Config", "Wav2Vec2Model", dict(hidden_size=64, num_hidden_layers=2,
                                                                  num_attention_heads=4, intermediate_size=128,
                                                                  conv_dim=(16, 16), conv_kernel=(10, 3),
                                                                  conv_stride=(5, 2), num_conv_pos_embeddings=16,
                                                                  num_conv_pos_embedding_groups=4), wave())),
    "hubert": ("hf", hf("HubertConfig", "HubertModel", dict(hidden_size=64, num_hidden_layers=2,
                                                            num_attention_heads=4, intermediate_size=128,
                                                            conv_dim=(16, 16), conv_kernel=(10, 3), conv_stride=(5, 2),
                                                            num_conv_pos_embeddings=16,
                                                            num_conv_pos_embedding_groups=4), wave())),
}

# The fast part CI runs (no transformers needed): the families the issue named.
CI_SUBSET = ["rope_decoder", "vit_cls", "gn_unet_fp16", "moe_bf16", "convbn", "bf16_upcast"]
