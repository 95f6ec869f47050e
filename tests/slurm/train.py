# Tiny GPT-style training on CPU (one process), printing Megatron's iteration lines. The mode
# says how the job ends: shape (RuntimeError at iteration 3), hang (stops at iteration 3 until the
# time limit), wait (stops at iteration 3 until cancelled), oom (host memory until the cgroup kill).
import sys
import time

mode = sys.argv[1]
if mode == "oom":
    blocks = []
    print("allocating host memory", flush=True)
    while True:
        blocks.append(bytearray(32 << 20))  # zero-filled: every page is touched

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402

torch.manual_seed(1234)
model = nn.Sequential(nn.Linear(64, 256), nn.GELU(), nn.Linear(256, 64))
opt = torch.optim.Adam(model.parameters(), lr=1e-4)
print("training ...", flush=True)
for it in range(1, 13):
    t0 = time.time()
    x = torch.randn(8, 96 if (mode == "shape" and it == 3) else 64)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f" iteration {it:8d}/{12:8d} | consumed samples: {it * 8:12d} "
          f"| elapsed time per iteration (ms): {(time.time() - t0) * 1000:.1f} | learning rate: 1.000E-04 "
          f"| lm loss: {loss.item():.6E} | number of skipped iterations:   0 |", flush=True)
    if it == 3 and mode in ("hang", "wait"):
        time.sleep(3600)
