"""PyTorch's own AOTInductor test models, re-created on CPU (issue 15).

Each model here is a module of test/inductor/test_aot_inductor.py (torch 2.13; the
control-flow ones are its CondModels / WhileLoopModels from test_control_flow.py),
with the inputs and inductor configs the test uses, named aoti_<test name>. Sizes are
cut down where the test's point does not depend on them (a 128x2048 add is a 16x32
add here). `runs` repeats what check_model_with_multiple_inputs does: every
predicate value, several loop counts, several dynamic sizes.
tests/integration/test_aoti_suite.py runs every one with `aotidbg run`, compares every
output with eager torch and counts the kernels.

Left out, and why (the closing note of issue 15 counts them):
  test_same_backing            a Python custom op (torch.library): AOTI calls it through
                               the proxy executor, which finds ops in the process's
                               registry; outside Python (torch's C++ loader, aotidbg's
                               runner) it is not registered ("Could not find schema")
  test_normal_functional       random numbers: nothing to compare with eager
  test_large_weight, test_large_mmaped_weights
                               250-500 MB of weights: too slow for CI on 2 cores (the
                               mmap'd form is covered by reinstrument's tests)
  GPU-only tests (Triton user kernels, fp8, sdpa bf16, multi-GPU, cubins)
                               no GPU here: the H200 scripts cover CUDA
"""
import inspect

import torch
from torch import nn
from torch.export import Dim

HASH_PER_MODEL = True


def spec(module, inputs, runs=None, dynamic=None, configs=None, guard=None):
    return {"module": module.eval() if isinstance(module, nn.Module) else module, "inputs": tuple(inputs),
            "runs": runs, "dynamic": dynamic, "configs": configs, "guard": guard}


def predicates(inputs, n=1):
    """Every predicate combination in front of the inputs (test_control_flow.prepend_predicates)."""
    import itertools
    return [tuple(torch.tensor(v) for v in vals) + tuple(inputs)
            for vals in itertools.product([False, True], repeat=n)]


def counters(inputs, n=1, values=(0, 1, 5)):
    import itertools
    return [tuple(torch.tensor(v) for v in vals) + tuple(inputs) for vals in itertools.product(values, repeat=n)]


def shared_source():
    return "".join(inspect.getsource(f) for f in (spec, predicates, counters))


def _seed():
    torch.manual_seed(0)


# ---- straight-line models ---------------------------------------------------------

def aoti_simple():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(10, 10)

        def forward(self, x, y):
            return x + self.linear(y)
    return spec(Model(), (torch.randn(10, 10), torch.randn(10, 10)))


def aoti_small_constant():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(4, 4)

        def forward(self, x):
            return self.linear(x)
    return spec(Model(), (torch.randn(4, 4),), configs={"always_keep_tensor_constants": True})


def aoti_constant_folding():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.w_pre = torch.randn(4, 4)
            self.b = torch.randn(4)

        def forward(self, x):
            w = torch.nn.functional.relu(torch.transpose(self.w_pre, 0, 1)) + self.b
            return torch.matmul(x, w)
    return spec(Model(), (torch.randn(4, 4),), configs={"aot_inductor.use_runtime_constant_folding": True})


def aoti_with_offset():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.orig_tensor = torch.randn(2, 15, 10)[0]
            self.tensor = self.orig_tensor[5:, :]

        def forward(self, x, y):
            return x + torch.nn.functional.linear(y, self.orig_tensor[:10, :]) + self.tensor
    return spec(Model(), (torch.randn(10, 10), torch.randn(10, 10)))


def aoti_freezing():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.randn(9, 10)
            self.padding = torch.randn(1, 10)

        def forward(self, x, y):
            padded_weight = torch.cat((self.weight, self.padding), dim=0)
            return x + torch.nn.functional.linear(y, padded_weight)
    return spec(Model(), (torch.randn(10, 10), torch.randn(10, 10)), configs={"freezing": True})


def aoti_conv_freezing():
    _seed()
    groups, iC, oC = 2, 2, 3

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.randn(oC * groups, iC, 3, 3)

        def forward(self, y):
            return torch.nn.functional.conv2d(y, self.weight, groups=groups)
    return spec(Model(), (torch.randn(2, iC * groups, 10, 10),), configs={"freezing": True})


def aoti_deconv_freezing():
    _seed()
    groups, iC, oC = 2, 4, 2

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.randn(iC, oC * groups, 2, 2)

        def forward(self, y):
            return torch.nn.functional.conv_transpose2d(y, self.weight, groups=groups)
    return spec(Model(), (torch.randn(1, iC, 3, 3),), configs={"freezing": True})


def aoti_linear_freezing():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.randn(10, 10)
            self.bias = torch.randn(10)

        def forward(self, y):
            return torch.nn.functional.linear(y, self.weight, self.bias)
    return spec(Model(), (torch.randn(10, 10),), configs={"freezing": True})


def aoti_empty_cat_dtype_promotion():
    _seed()

    class Model(nn.Module):
        def forward(self, x, y):
            return torch.cat([x, y], dim=1).to(dtype=torch.bfloat16) * 2
    return spec(Model(), (torch.randn(4, 10, dtype=torch.bfloat16), torch.randn(4, 0)))


def aoti_missing_output():
    _seed()

    class Model(nn.Module):
        def forward(self, x, y):
            return torch.cos(torch.mm(torch.sin(x), y))
    return spec(Model(), (torch.randn(10, 10), torch.randn(10, 10)))


def aoti_output_misaligned():
    _seed()

    class Model(nn.Module):
        def forward(self, x, y):
            cat = torch.cat([torch.unsqueeze(x, dim=0), torch.unsqueeze(y, dim=0)], dim=0)
            return torch.sigmoid(cat[0]), cat[1]
    return spec(Model(), (torch.randn(10, 10), torch.randn(10, 10)),
                configs={"aot_inductor.use_runtime_constant_folding": True})


def aoti_seq():
    _seed()
    layernorm = nn.LayerNorm(10)
    net = nn.Sequential(layernorm, nn.ReLU(), layernorm, nn.ReLU())
    return spec(net, (torch.randn(10),))


def aoti_addmm():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.randn(6, 16)
            self.bias = torch.randn(6)

        def forward(self, a):
            return torch.nn.functional.linear(a, self.weight, self.bias)
    return spec(Model(), (torch.randn(2, 8, 16),))


def aoti_aliased_buffer_reuse():
    _seed()

    class Model(nn.Module):
        def forward(self, x, y):
            x = 2 * x
            y = 2 * y
            d = 1 + torch.cat([x, y], dim=-1)
            return torch.mm(d, d)[:, :2] + x
    return spec(Model(), (torch.randn(4, 2), torch.randn(4, 2)))


def aoti_buffer_reuse():
    _seed()

    class Model(nn.Module):
        def forward(self, x, y):
            e = torch.sigmoid(torch.relu(torch.mm(torch.sin(x), torch.cos(y))))
            return e + torch.mm(x, y)
    return spec(Model(), (torch.randn(4, 4), torch.randn(4, 4)))


def aoti_duplicated_params():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.p = nn.Parameter(torch.rand(6))
            self.q = self.p

        def forward(self, x):
            return self.p * x + self.q
    return spec(Model(), (torch.rand(6),))


def aoti_simple_dynamic():
    _seed()

    class Model(nn.Module):
        def forward(self, x, y):
            return torch.nn.functional.relu(input=x + y, inplace=False)
    d = Dim("dim0_x", min=1, max=2048)
    return spec(Model(), (torch.randn(16, 32), torch.randn(16, 32)), dynamic={"x": {0: d}, "y": {0: d}},
                runs=[(torch.randn(5, 32), torch.randn(5, 32))])


def aoti_poi_multiple_dynamic():
    _seed()

    class Model(nn.Module):
        def forward(self, x, y):
            return torch.nn.functional.relu(input=x + y, inplace=False)
    d = Dim("dim0_x", min=1, max=2048)
    return spec(Model(), (torch.randn(16, 64), torch.randn(16, 64)), dynamic={"x": {0: d}, "y": {0: d}},
                runs=[(torch.randn(8, 64), torch.randn(8, 64)), (torch.randn(21, 64), torch.randn(21, 64))])


def aoti_foreach_multiple_dynamic():
    _seed()

    class Model(nn.Module):
        def forward(self, x, y):
            return torch.cat([torch.unsqueeze(x, dim=0), torch.unsqueeze(y, dim=0)], dim=0)
    d = Dim("dim0_x", min=1, max=2048)
    return spec(Model(), (torch.randn(16, 64), torch.randn(16, 64)), dynamic={"x": {0: d}, "y": {0: d}},
                runs=[(torch.randn(8, 64), torch.randn(8, 64)), (torch.randn(21, 64), torch.randn(21, 64))])


def aoti_zero_grid_with_unbacked_symbols():
    _seed()

    class Repro(nn.Module):
        def forward(self, x, y):
            nz = torch.nonzero(x)
            b = torch.ones_like(nz, dtype=torch.float16)
            c = torch.zeros_like(nz, dtype=torch.float16)
            return ((b + c) @ y).sum()
    return spec(Repro(), (torch.tensor([1, 1, 1]), torch.randn((1, 32), dtype=torch.float16)))


def aoti_stride_with_unbacked_expr():
    _seed()

    class Repro(nn.Module):
        def forward(self, x, y):
            u0 = x.item()
            torch._check(u0 >= 1)
            expr = u0 * y.size(0)
            sevens = torch.empty_strided(size=(10, expr, 32), stride=(expr * 32, 32, 1)).fill_(7)
            return sevens * 3
    return spec(Repro(), (torch.scalar_tensor(2, dtype=torch.int), torch.ones(8)))


def aoti_aoti_constant_tensor():
    _seed()

    class Foo(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.ones(4, 4)
            self.b = torch.ones(4, 4)

        def forward(self, x):
            return torch.ops.aten.linear.default(x, self.a, self.b)
    return spec(Foo(), (torch.ones(4, 4),))


def aoti_return_constant():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.cst = torch.randn(5, 5)

        def forward(self, x):
            return (x, self.cst.clone())
    return spec(Model(), (torch.randn(5),))


def aoti_return_view_constant():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.cst = torch.randn(5, 5)

        def forward(self, x):
            return (x, torch.transpose(self.cst, 0, 1))
    return spec(Model(), (torch.randn(5),))


def aoti_repeat_output():
    _seed()

    class Model(nn.Module):
        def forward(self, x):
            y = torch.sin(x)
            return y, y
    return spec(Model(), (torch.randn(3, 10),))


def aoti_view_outputs():
    _seed()

    class Model(nn.Module):
        def forward(self, x):
            y = torch.sin(x)
            return y, y.view(*y.shape), y.view(1, *y.shape)
    return spec(Model(), (torch.randn(3, 10),))


def aoti_empty_graph():
    _seed()

    class Model(nn.Module):
        def forward(self, x):
            return x
    return spec(Model(), (torch.randn(8, 4, 4),))


def aoti_constant():
    _seed()

    class M(nn.Module):
        def forward(self, x):
            t = torch.sqrt(torch.tensor(x.size(-1), dtype=torch.float) * 3)
            return x * t
    return spec(M(), (torch.randn(5, 5),))


def aoti_repeat_interleave():
    _seed()

    class Repro(nn.Module):
        def forward(self, x):
            return torch.ops.aten.repeat_interleave.Tensor(x, output_size=12)
    return spec(Repro(), (torch.ones((1,), dtype=torch.int32) * 12,))


def aoti_dynamic_cat():
    _seed()

    class Model(nn.Module):
        def forward(self, a, b):
            return torch.cat([a, b], dim=0)
    return spec(Model(), (torch.randn(2, 4), torch.randn(3, 4)),
                dynamic={"a": {0: Dim("dim0_a", min=1, max=10)}, "b": {0: Dim("dim0_b", min=1, max=20)}},
                runs=[(torch.randn(7, 4), torch.randn(2, 4))])   # the export makes min=1 a 2 (0/1 specialisation)


def aoti_buffer_mutation_1():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = nn.Buffer(torch.randn(4, 4))

        def forward(self, x):
            self.foo.add_(1)
            return self.foo + x
    return spec(Model(), (torch.rand(4, 4),))


def aoti_buffer_mutation_2():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = nn.Buffer(torch.arange(10))
            self.bar = nn.Buffer(torch.arange(10))

        def forward(self, x):
            self.bar.mul_(2)
            self.foo[5] = self.bar[0]
            return x + self.bar, x * self.foo
    return spec(Model(), (torch.randn(10),))


def aoti_buffer_mutation_3():
    _seed()

    class KVCache(nn.Module):
        def __init__(self, max_batch_size, max_seq_length, n_heads, head_dim):
            super().__init__()
            cache_shape = (max_batch_size, n_heads, max_seq_length, head_dim)
            self.k_cache = nn.Buffer(torch.zeros(cache_shape))
            self.v_cache = nn.Buffer(torch.zeros(cache_shape))

        def update(self, input_pos, k_val, v_val):
            self.k_cache[:, :, input_pos] = k_val
            self.v_cache[:, :, input_pos] = v_val

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.kv_cache = KVCache(1, 16, 6, 8)

        def forward(self, inp_pos, k, v):
            self.kv_cache.update(inp_pos, k, v)
            return self.kv_cache.k_cache + 1, self.kv_cache.v_cache / 2
    return spec(Model(), (torch.tensor([3]), torch.randn(1, 6, 1, 8), torch.randn(1, 6, 1, 8)))


def aoti_pytree_inputs():
    _seed()

    class M(nn.Module):
        def forward(self, x: dict):
            add_ = torch.zeros(5)
            mul_ = torch.ones(5)
            for v in x.values():
                add_ += v
                mul_ *= v
            return [add_, mul_]
    return spec(M(), ({"x": torch.rand(5), "y": torch.rand(5) + 1},))


def aoti_reuse_kernel():
    _seed()

    class Model(nn.Module):
        def forward(self, x, y):
            b = torch.mm(torch.sin(x), y)
            return torch.mm(b, torch.sin(b))
    return spec(Model(), (torch.randn(23, 23) / 4, torch.randn(23, 23) / 4))


def aoti_dup_unbacked_sym_decl():
    _seed()

    class Model(nn.Module):
        def forward(self, x):
            eq = torch.ops.aten.eq.Scalar(torch.ops.aten.lt.Scalar(torch.ops.aten.abs.default(x), 0.001), 0)
            sin = torch.ops.aten.sin.default(torch.ops.aten.index.Tensor(x, [eq]))
            return torch.ops.aten.div.Tensor(sin, torch.ops.aten.index.Tensor(x, [eq]))
    return spec(Model(), (torch.randn(4, 4, 4, 4),))


def aoti_scatter_fallback():
    _seed()

    class Model(nn.Module):
        def forward(self, inp, index, src):
            return torch.scatter(inp, 1, index, src)
    return spec(Model(), (torch.ones((3, 5), dtype=torch.int64), torch.tensor([[0, 1, 2, 0]]),
                          torch.zeros((2, 5), dtype=torch.int64)))


def aoti_scatter_reduce_fallback():
    _seed()

    class Model(nn.Module):
        def forward(self, inp, index, src):
            return torch.scatter_reduce(inp, 0, index, src, reduce="sum")
    return spec(Model(), (torch.tensor([1, 10, 100, 1000]), torch.tensor([0, 1, 0, 1, 2, 1]),
                          torch.tensor([1, 2, 3, 4, 5, 6])))


def aoti_index_put_fallback():
    _seed()
    import contextlib

    @contextlib.contextmanager
    def deterministic():   # the test's DeterministicGuard(True): index_put falls back then
        was = torch.are_deterministic_algorithms_enabled()
        torch.use_deterministic_algorithms(True)
        try:
            yield
        finally:
            torch.use_deterministic_algorithms(was)

    class Model(nn.Module):
        def forward(self, self_tensor, mask, values):
            return torch.index_put(self_tensor, (mask,), values, accumulate=True)
    return spec(Model(), (torch.ones(4, dtype=torch.int64), torch.tensor([1, 1, 0, 0], dtype=torch.bool),
                          torch.ones(2, dtype=torch.int64)), guard=deterministic)


def aoti_zero_size_weight():
    _seed()

    class Model(nn.Module):
        def __init__(self, channel, r=8):
            super().__init__()
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.net = nn.Sequential(nn.Linear(channel, channel // r, bias=False), nn.ReLU(inplace=True),
                                     nn.Linear(channel // r, channel, bias=False), nn.Sigmoid())

        def forward(self, inp):
            b, c, _, _ = inp.shape
            x = self.net(self.pool(inp).view(b, c)).view(b, c, 1, 1)
            return inp * x
    return spec(Model(4), (torch.rand(4, 4, 4, 4),))


def aoti_zero_size_buffer():
    _seed()

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = nn.Buffer(torch.zeros((0, 0)))

        def forward(self, x):
            return x + 1, self.foo
    return spec(Model(), (torch.rand(4, 4),))


def aoti_no_args():
    _seed()

    class Model(nn.Module):
        def __init__(self, m, n):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(m, n))
            self.alpha = nn.Parameter(torch.randn(m, n))

        def forward(self):
            return self.weight * self.alpha
    return spec(Model(6, 4), ())


def aoti_masked_select_dynamic():
    _seed()

    class M(nn.Module):
        def forward(self, x):
            return torch.masked_select(x, x.ge(0.5))
    return spec(M(), (torch.randn(3, 4, 5),),
                dynamic={"x": {0: Dim("dim0_x", max=100), 1: Dim("dim1_x_max", max=7)}},
                runs=[(torch.randn(9, 2, 5),)])


def aoti_fqn():
    _seed()

    class NestedChild(nn.Module):
        def __init__(self):
            super().__init__()
            self.nestedchild3buffer = nn.Buffer(torch.ones(2, 3) * 3)

        def forward(self, x):
            return x / self.nestedchild3buffer

    class Child1(nn.Module):
        def __init__(self):
            super().__init__()
            self.nested = NestedChild()
            self.register_parameter("child1param", nn.Parameter(torch.ones(2, 3)))

        def forward(self, x):
            return self.nested(x) + self.child1param

    class Child2(nn.Module):
        def __init__(self):
            super().__init__()
            self.child2buffer = nn.Buffer(torch.ones(2, 3) * 2)

        def forward(self, x):
            return x - self.child2buffer

    class MyModule(nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = Child1()
            self.bar = Child2()
            self.register_parameter("rootparam", nn.Parameter(torch.ones(2, 3) * 4))

        def forward(self, x):
            return self.bar(self.foo(x * self.rootparam))
    return spec(MyModule(), (torch.randn(2, 3),))


def aoti_shifted_constraint_ranges():
    _seed()

    class Model(nn.Module):
        def forward(self, x, y):
            torch._check(y.size(0) == x.size(0) + 1)
            return x.sum(0) + y.sum(0)
    d = Dim("dim0_x", min=2, max=1024)
    return spec(Model(), (torch.randn(4, 5), torch.randn(5, 5)), dynamic={"x": {0: d}, "y": {0: d + 1}},
                runs=[(torch.randn(9, 5), torch.randn(10, 5))])


def aoti_run_with_grad_enabled():
    _seed()

    class Model(nn.Module):
        def forward(self, x, weight, bias):
            return torch.ops.aten.addmm(bias, weight, x)
    return spec(Model(), (torch.rand(8, 8), torch.rand(8, 8), torch.rand(8)))


def aoti_with_no_triton_profiler():
    _seed()

    class Model(nn.Module):
        def forward(self, x):
            return torch.permute(x, (1, 0))
    return spec(Model(), (torch.randn(10, 10),), configs={"profile_bandwidth": "1", "profile_bandwidth_regex": ""})


# ---- torch.cond (CondModels) ------------------------------------------------------

def aoti_cond_simple():
    _seed()

    class Simple(nn.Module):
        def forward(self, p, a, b):
            return torch.cond(p, lambda x, y: x + y, lambda x, y: x - y, [a, b])
    ins = predicates((torch.randn(10, 20), torch.randn(10, 20)))
    d = Dim("s0", min=2, max=1024)
    return spec(Simple(), ins[0], runs=ins[1:], dynamic={"p": {}, "a": {0: d, 1: None}, "b": {0: d, 1: None}})


def aoti_cond_nested():
    _seed()

    class Nested(nn.Module):
        def forward(self, p0, p1, p2, a, b, c):
            def true_fn(x0, y0, z0):
                def true_true_fn(x1, y1, z1):
                    return (x1 - y1 * z1) * 3.14

                def true_false_fn(x1, y1, z1):
                    return torch.cond(p2, lambda x2, y2, z2: (x2 * y2 * z2) / 2.71,
                                      lambda x2, y2, z2: (x2 + y2 + z2) * 1.23, [x1, y1, z1])
                return torch.cond(p1, true_true_fn, true_false_fn, [x0, y0, z0])

            def false_fn(x0, y0, z0):
                def false_true_fn(x1, y1, z1):
                    return torch.cond(p2, lambda x2, y2, z2: (x2 - y2 - z2) + 1.23,
                                      lambda x2, y2, z2: (x2 / y2 / z2) - 3.14, [x1, y1, z1])

                def false_false_fn(x1, y1, z1):
                    return (x1 - y1 * z1) / 2.71
                return torch.cond(p1, false_true_fn, false_false_fn, [x0, y0, z0])
            return torch.cond(p0, true_fn, false_fn, [a, b, c])
    ins = predicates((torch.randn(10, 20), torch.randn(10, 20), torch.randn(10, 20)), n=3)
    d = Dim("s0", min=2, max=1024)
    return spec(Nested(), ins[0], runs=ins[1:],
                dynamic={"p0": {}, "p1": {}, "p2": {}, "a": {0: d, 1: None}, "b": {0: d, 1: None},
                         "c": {0: d, 1: None}})


def aoti_cond_with_parameters():
    _seed()

    class Parameters(nn.Module):
        class InnerModel1(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = nn.Linear(20, 30)

            def forward(self, x):
                return self.layer(x + 1) * 3.14

        class InnerModel2(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer1 = nn.Linear(20, 10)
                self.layer2 = nn.Linear(10, 30)

            def forward(self, x):
                return self.layer2(self.layer1(x - 2)) * 3.14

        def __init__(self):
            super().__init__()
            self.true_fn = self.InnerModel1()
            self.false_fn = self.InnerModel2()

        def forward(self, p, a):
            return torch.cond(p, self.true_fn, self.false_fn, [a])
    ins = predicates((torch.randn(10, 20),))
    return spec(Parameters(), ins[0], runs=ins[1:], dynamic={"p": {}, "a": {0: Dim("s0", min=2, max=1024), 1: None}})


def aoti_cond_with_reinterpret_view_inputs_outputs():
    _seed()

    class ReinterpretView(nn.Module):
        def forward(self, p, a, b):
            def true_fn(x, y):
                return (x + y)[2:], (x - y)[:, 4:].contiguous()

            def false_fn(x, y):
                return (x - y)[2:], (x + y)[:, 4:].contiguous()
            return torch.cond(p, true_fn, false_fn, [a[:-1], b[:-1]])
    ins = predicates((torch.randn(10, 20), torch.randn(10, 20)))
    d = Dim("s0", min=5, max=1024)
    return spec(ReinterpretView(), ins[0], runs=ins[1:],
                dynamic={"p": {}, "a": {0: d, 1: None}, "b": {0: d, 1: None}})


def aoti_cond_with_multiple_outputs():
    _seed()

    class MultipleOutputs(nn.Module):
        def forward(self, p, a, b, c):
            def true_fn(x, y, z):
                return x * y, z / 2.71, (y - x).sum(dim=1)

            def false_fn(x, y, z):
                return y / x, z * 3.14, (x + y).mean(dim=1)
            return torch.cond(p, true_fn, false_fn, [a, b, c])
    ins = predicates((torch.randn(10, 20), torch.randn(10, 20), torch.randn(30, 40)))
    d, dc = Dim("s0", min=2, max=1024), Dim("s1", min=2, max=1024)
    return spec(MultipleOutputs(), ins[0], runs=ins[1:],
                dynamic={"p": {}, "a": {0: d, 1: None}, "b": {0: d, 1: None}, "c": {0: dc, 1: None}})


def aoti_cond_with_outer_code_before_after():
    _seed()

    class OuterCode(nn.Module):
        def forward(self, p, a, b):
            c = a * b + 3.14
            d = a / b - 2.71
            e = torch.cond(p, lambda x, y: x + y, lambda x, y: x - y, [c, d])
            return e * e / 1.41
    ins = predicates((torch.randn(10, 20), torch.randn(10, 20)))
    d = Dim("s0", min=2, max=1024)
    return spec(OuterCode(), ins[0], runs=ins[1:], dynamic={"p": {}, "a": {0: d, 1: None}, "b": {0: d, 1: None}})


def aoti_cond_use_buffers_from_outer_scope():
    _seed()

    class OuterBuffers(nn.Module):
        def forward(self, p, a, b, c):
            d = a * 2
            e = b / 2
            return torch.cond(p, lambda x: x + d, lambda x: x - e, [c])
    ins = predicates((torch.randn(10, 20), torch.randn(10, 20), torch.randn(10, 20)))
    d = Dim("s0", min=2, max=1024)
    return spec(OuterBuffers(), ins[0], runs=ins[1:],
                dynamic={"p": {}, "a": {0: d, 1: None}, "b": {0: d, 1: None}, "c": {0: d, 1: None}})


def aoti_cond_non_tensor_predicates():
    _seed()

    class WithNonTensorPredicate(nn.Module):
        def forward(self, a, b):
            return torch.cond(a.size(0) > b.size(0), lambda x, y: x.sum(0) / 3.14, lambda x, y: y.sum(0) * 2.71,
                              [a, b])
    return spec(WithNonTensorPredicate(), (torch.randn(10, 20), torch.randn(15, 20)),
                dynamic={"a": {0: Dim("s0", min=2, max=1024), 1: None}, "b": {0: Dim("s1", min=2, max=1024), 1: None}},
                runs=[(torch.randn(10, 20), torch.randn(5, 20))])


def aoti_cond_symint_input():
    _seed()

    class M(nn.Module):
        def forward(self, x, y, z):
            a = y.shape[0]
            b = z.shape[0]
            return torch.cond(x.shape[0] > 5, lambda x: x + a, lambda x: x + b * z, (x,))
    return spec(M(), (torch.ones(3, 3), torch.ones(5), torch.ones(3, 3)),
                dynamic={"x": {0: Dim("d")}, "y": {0: Dim("d1")}, "z": {0: Dim("d")}},
                runs=[(torch.ones(10, 3), torch.ones(6), torch.ones(10, 3))])


# ---- while_loop (WhileLoopModels) -------------------------------------------------

def aoti_while_loop_simple():
    _seed()

    class Simple(nn.Module):
        def forward(self, ci, a, b):
            return torch._higher_order_ops.while_loop(lambda i, x, y: i > 0, lambda i, x, y: (i - 1, x + y, y - x),
                                                      [ci, a, b])
    ins = counters((torch.randn(10, 20), torch.randn(10, 20)))
    d = Dim("s0", min=2, max=1024)
    return spec(Simple(), ins[1], runs=[ins[0], ins[2]],
                dynamic={"ci": {}, "a": {0: d, 1: None}, "b": {0: d, 1: None}})


def aoti_while_loop_nested():
    _seed()

    class Nested(nn.Module):
        def forward(self, ci, cj, a, b):
            def body_fn(i1, j1, x1, y1):
                i1, j1, x1, y1 = torch._higher_order_ops.while_loop(
                    lambda i2, j2, x2, y2: j2 > 0, lambda i2, j2, x2, y2: (i2.clone(), j2 - 1, x2 + 3.14, y2 - 2.71),
                    [i1, j1, x1, y1])
                return i1 - 1, j1.clone(), x1 * 2, y1 / 2
            return torch._higher_order_ops.while_loop(lambda i1, j1, x1, y1: i1 > 0, body_fn, (ci, cj, a, b))
    ins = counters((torch.randn(10, 20), torch.randn(10, 20)), n=2, values=(0, 1, 3))
    d = Dim("s0", min=2, max=1024)
    return spec(Nested(), ins[4], runs=[ins[0], ins[8]],
                dynamic={"ci": {}, "cj": {}, "a": {0: d, 1: None}, "b": {0: d, 1: None}})


def aoti_while_loop_with_outer_code():
    _seed()

    class OuterCode(nn.Module):
        def forward(self, c, a, b):
            d = a * b + 3.14
            e = a / b - 2.71
            _, f, g = torch._higher_order_ops.while_loop(lambda c, x, y: c > 0, lambda c, x, y: (c - 1, y - x, x + y),
                                                         [c, d, e])
            return f * g / 1.41
    ins = counters((torch.randn(10, 20), torch.randn(10, 20)))
    d = Dim("s0", min=2, max=1024)
    return spec(OuterCode(), ins[1], runs=[ins[0], ins[2]],
                dynamic={"c": {}, "a": {0: d, 1: None}, "b": {0: d, 1: None}})


def aoti_while_loop_with_parameters():
    _seed()

    class Parameters(nn.Module):
        class InnerModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.layer1 = nn.Linear(20, 30, dtype=torch.float64)
                self.layer2 = nn.Linear(30, 20, dtype=torch.float64)

            def forward(self, c, x):
                return c - 1, self.layer2(self.layer1(x - 2)) * 3.14

        def __init__(self):
            super().__init__()
            self.body_fn = self.InnerModel()
            self.cond_fn = lambda c, x: c > 0

        def forward(self, c, a):
            return torch._higher_order_ops.while_loop(self.cond_fn, self.body_fn, [c, a])
    ins = counters((torch.randn(10, 20, dtype=torch.float64),))
    return spec(Parameters(), ins[1], runs=[ins[0], ins[2]],
                dynamic={"c": {}, "a": {0: Dim("s0", min=2, max=1024), 1: None}})


def aoti_while_loop_with_outer_buffers():
    _seed()

    class OuterBuffers(nn.Module):
        def forward(self, c, a, b):
            d = a * 2
            e = b / 2
            return torch._higher_order_ops.while_loop(lambda c, x, y: c > 0, lambda c, x, y: (c - 1, x + d, y - e),
                                                      [c, a, b])
    ins = counters((torch.randn(10, 20), torch.randn(10, 20)))
    return spec(OuterBuffers(), ins[1], runs=[ins[0], ins[2]])


def aoti_while_loop_with_pytree_inputs():
    _seed()

    class PytreeCarry(nn.Module):
        def forward(self, it, pytree_input):
            def body_fn(it, pytree_input):
                x = pytree_input[0][0]
                y = pytree_input[1]["x"]
                z = pytree_input[1]["y"]
                return it - 1, ([y.sin()], {"x": z.cos(), "y": x + 1})
            return torch._higher_order_ops.while_loop(lambda it, p: it > 0, body_fn, (it, pytree_input))
    return spec(PytreeCarry(), (torch.tensor(2), ([torch.randn(10, 20)], {"x": torch.randn(10, 20),
                                                                          "y": torch.randn(10, 20)})))


def aoti_while_loop_with_conv():
    _seed()

    class Conv(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv2d = nn.Conv2d(4, 4, (3, 3), stride=(1, 1), padding=(1, 1), dtype=torch.float64)

        def forward(self, c, x):
            return torch._higher_order_ops.while_loop(lambda i, x: i < x.size(0),
                                                      lambda i, x: (i + 1, self.conv2d(x) + 1), (c, x))
    ins = counters((torch.randn(2, 4, 4, 4, dtype=torch.float64),))
    return spec(Conv(), ins[0], runs=[ins[1], ins[2]])


MODELS = {n: f for n, f in sorted(globals().items()) if n.startswith("aoti_") and callable(f)}
