"""CUB (NVIDIA CCCL, the headers the nvcc wheels ship): the device-wide algorithms every CUDA
library builds on. Each driver calls one algorithm, which instantiates its tuned kernels
(policies differ per architecture)."""

from __future__ import annotations

from nvcc_jobs import NvccJob

ALGORITHMS = (
    ("device_reduce", "cub::DeviceReduce::Sum(temp, bytes, in, out, 1 << 20);", True),
    ("device_scan", "cub::DeviceScan::ExclusiveSum(temp, bytes, in, out, 1 << 20);", False),
    ("device_radix_sort", "cub::DeviceRadixSort::SortKeys(temp, bytes, keys, keys_out, 1 << 20);", False),
    ("device_segmented_reduce", "cub::DeviceSegmentedReduce::Sum(temp, bytes, in, out, 64, offsets, offsets + 1);", False),
    ("device_select", "cub::DeviceSelect::Flagged(temp, bytes, in, keys, out, count, 1 << 20);", False),
    ("device_histogram", "cub::DeviceHistogram::HistogramEven(temp, bytes, in, keys_out, 257, 0.0f, 1.0f, 1 << 20);", False),
)
ARCHS = ("sm_90a", "sm_100a")
_SIGNATURE = "void instantiate(float *in, float *out, int *keys, int *keys_out, int *offsets, int *count, void *temp, size_t bytes)"


def jobs() -> list[NvccJob]:
    return [
        NvccJob("cub", arch, name, f"#include <cub/cub.cuh>\n{_SIGNATURE} {{ {call} }}\n", (), ("-std=c++17",),
                quick and arch == "sm_90a")
        for name, call, quick in ALGORITHMS
        for arch in ARCHS
    ]
