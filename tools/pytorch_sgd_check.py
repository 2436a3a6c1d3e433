#!/usr/bin/env python3
"""Check `fpx sgd --update RULE` against PyTorch's own torch.optim.SGD on the CPU.

Runs torch.optim.SGD (no momentum, the CPU defaults) on parameters of 64 equal
elements in BF16 and FP16, so that every element goes through the vectorised
loop, for several runs of random weight, lr and gradients; then runs
`fpx sgd --weight W --lr LR --grads G1,G2,... --formats F --update RULE
--trajectory N --json` on the same values and compares the weight after every
step.  The rules and where they come from: docs/behaviour.md, "Update rules".

Needs PyTorch (Debian 12: apt-get install python3-torch, which is 1.13; run it
with /usr/bin/python3 when another Python comes first on PATH).  Not part of the
test suite, which must not depend on PyTorch.

Usage:  /usr/bin/python3 tools/pytorch_sgd_check.py [--fpx build/bin/fpx]
            [--rule pytorch-cpu] [--runs 4] [--steps 200] [--seed 5]
Exit status 0 when every step agrees, 1 otherwise, 2 without PyTorch.
"""

import argparse
import json
import random
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fpx", default="build/bin/fpx")
    parser.add_argument("--rule", default="pytorch-cpu")
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("pytorch_sgd_check: PyTorch is not installed for", sys.executable)
        return 2
    rng = random.Random(args.seed)
    mismatches = 0
    for dtype, format_id in [(torch.bfloat16, "bf16"), (torch.float16, "fp16")]:
        for run in range(args.runs):
            lr = rng.uniform(1e-3, 0.2)
            weight = float(torch.tensor(rng.uniform(-2, 2), dtype=dtype).float())
            grads = [torch.tensor([rng.gauss(0, 1)] * 64, dtype=dtype) for _ in range(args.steps)]
            parameter = torch.nn.Parameter(torch.tensor([weight] * 64, dtype=dtype))
            optimizer = torch.optim.SGD([parameter], lr=lr)
            expected = []
            for grad in grads:
                parameter.grad = grad.clone()
                optimizer.step()
                expected.append(float(parameter.detach()[0].float()))
            command = [args.fpx, "sgd", "--weight", repr(weight), "--lr", repr(lr),
                       "--grads", ",".join(repr(float(g[0].float())) for g in grads),
                       "--formats", format_id, "--update", args.rule,
                       "--trajectory", str(args.steps + 1), "--json"]
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode != 0:
                print(done.stderr, end="")
                return 1
            trajectory = json.loads(done.stdout)["results"][0]["trajectory"]
            by_step = {point["step"]: float(point["weight"]) for point in trajectory}
            differ = sum(1 for step, want in enumerate(expected, start=1)
                         if by_step[step] != want)
            mismatches += differ
            print(f"{format_id} run {run}: lr {lr:.6g}, {args.steps} steps, "
                  f"{differ} mismatches, final torch {expected[-1]!r} fpx {by_step[args.steps]!r}")
    print(f"torch {torch.__version__}, rule {args.rule}: {mismatches} mismatches in "
          f"{2 * args.runs * args.steps} steps")
    return 0 if mismatches == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
