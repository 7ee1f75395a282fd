#!/bin/bash
# Builds and runs gpu_probe.cu on a machine with an NVIDIA GPU and CUDA: occupancy from
# NVIDIA's cuda_occupancy.h (compare with the engine's occupancy calculator), pointer-chase
# latencies of L1, L2 and HBM, and read bandwidth against resident warps per SM.
# Usage: tools/probes/run.sh OUTDIR   (h200-results.txt holds one run on an H200 SXM).
set -euo pipefail
out=${1:?usage: run.sh OUTDIR}
mkdir -p "$out"
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,clocks.max.mem,power.limit --format=csv | tee "$out/smi.txt"
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
"$NVCC" -O2 -arch=sm_90 -o "$out/gpu_probe" gpu_probe.cu
"$out/gpu_probe" "$out" | tee "$out/probe.txt"
