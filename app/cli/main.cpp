// SPDX-License-Identifier: GPL-3.0-or-later
// fpx: the command-line front end of the exact number-format core.
#include "commands.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

constexpr const char* kUsage = R"(fpx — every number format, exactly

Usage:
  fpx formats [--json]
      Every built-in format: bits, bias, limits (exact), aliases.
  fpx show VALUE [--formats ID,ID,...] [--round MODE] [--overflow POLICY]
                 [--scale S] [--seed N] [--json] [--full] [--color|--no-color]
  fpx show --bits CODE --as FORMAT [same options]
      VALUE rounded into each format (default: all built-ins): bits, exact value,
      error, class, neighbours. With one format, a step-by-step decode.
      With --round sr: both neighbours and the exact probability of rounding
      up; --draws N (at most 10^7) adds the fraction of N seeded draws that did.
  fpx convert --to FORMAT [--from FORMAT] [--round MODE] [--overflow POLICY]
              [--scale S] [--seed N] [--raw]
      Filter stdin to stdout, one result per line: values (or, with --from,
      hex codes of FORMAT) become hex codes of --to. With --raw, packed
      little-endian binary arrays in and out (1, 2, 4, 8, 10 or 16 bytes per
      element; formats under 8 bits one per byte).
  fpx table FORMAT [--json|--csv] [--scale S]
      Every code of a format of at most 16 bits with its class and exact value.
  fpx plot error|ulp|range|values|memory [--formats ID,...] [--range A:B] [--log]
           [--symlog] [--round MODE] [--params N [--training] [--gib]]
           -o FILE.{png,pdf,svg,csv}
      The explorer's plots, rendered headless (rounding error, ULP spacing, range,
      representable values, memory for N parameters).
  fpx memory --params N [--formats ID,...] [--training] [--gib] [--json]
      Exact bytes of N parameters (70B, 350M, 7e9) in each format or block
      quantizer, for inference or mixed-precision training with Adam.
  fpx calc EXPR [--formats ID,...] [--round MODE] [--overflow POLICY] [--seed N]
                [--scale S] [--json] [--full]
      EXPR computed in each format (default: every one with arithmetic): each
      literal rounded first, each operation (+ - * / fma sqrt min max abs)
      rounded once, with IEEE flags; bits, value and error against the exact
      result, every operation in order. With one format, each step written out:
      alignment, exact result, guard/round/sticky bits, the rounding decision.
  fpx calc --explicit EXPR [--round MODE] [--json]
      EXPR computed exactly except where it names a format, which rounds its
      argument once: bf16(0.1)+bf16(0.2), fp32(1 + 2^-30). Each rounding listed.
  fpx bench [--formats ID,...] [--sizes 16k,16M] [--threads N] [--budget S]
            [--distribution normal|subnormal|overflow|nan] [--json F] [--csv F]
      FP32 conversion throughput on this CPU beside its memcpy bandwidth, each
      path verified against the exact core before it is timed.
  fpx accumulate --terms N --values DIST [--element ID] [--accumulator ID,...]
                 [--method sequential|pairwise|kahan|blocked:K] [--round MODE]
                 [--seed S] [--trace K] [--json|--csv]
      N terms summed in each accumulator format, beside the exact sum: error,
      stagnation, trace. DIST: ones, const:V, a distribution (uniform:A:B,
      normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B, student:NU) or file:PATH.
  fpx dot --a LIST|DIST --b LIST|DIST [--terms N] [--element ID]
          [--product ID|exact] [--accumulator ID|exact] [--block K] [--json]
      A dot product with separate element, product and accumulator formats.
  fpx dot --machine M --a LIST|DIST --b LIST|DIST [--element ID] [--c V]
          [--promote N] [--explain] [--json]
      The same on a tensor core (fpx machines): products cut to F bits below
      the largest exponent, instructions chained, promotion into FP32.
  fpx quantize (--input PATH[:TENSOR] [--dtype D] | --dist SPEC --count N [--seed S]
               | --values V1,V2,...) --formats ID,... [--block N|row|tensor]
               [--scale-rule floor|ceil|even] [--json|--csv] [--codes] [--sweep N,...]
               [--histogram BINS] [--output F.safetensors] [--dequantized F.npy]
      A tensor quantized into block formats (mxfp8_e4m3 ... mxfp4, mxint8, nvfp4,
      nf4, nf4_dq, int8, int4) or cast: SQNR, RMSE, max error, clipped, flushed,
      bits per element; each block's scale and codes; the results as files.
  fpx inspect FILE [--json] [--dtype f32|f64|f16|bf16|e4m3|e5m2]
      The tensors in a .npy, .safetensors, raw (--dtype) or text file: name,
      dtype, shape, min, max, absmax, mean, std, zeros, NaN and Inf counts.
  fpx range-fit (--input PATH[:TENSOR] | --dist SPEC --count N [--seed S]
                | --values V1,V2,...) --formats ID,... [--scale S] [--round MODE]
                [--overflow POLICY] [--json]
      Each value times S rounded once into each format: counts and fractions
      zero, flushed, subnormal, normal, overflow; relative error; the 2^k
      scales that overflow nothing and flush the fewest.
  fpx loss-scale (--amax-trace FILE | --steps N --amax SPEC) [--format ID]
                 [--init S] [--growth-factor G] [--backoff B] [--interval N]
                 [--static S] [--dist SPEC [--count N]] [--seed S] [--json|--csv]
      Static or dynamic loss scaling (PyTorch GradScaler's rules) over a run of
      steps: the scale at each step, overflows and skipped steps; with --dist the
      fraction of each step's gradients flushed to zero or left subnormal.
  fpx fp8-scaling (--inputs FILE,... | --steps N --dist SPEC [--count N]
                  [--drift SERIES]) --recipe R,... [--margin M] [--format ID]
                  [--round MODE] [--overflow POLICY] [--seed S] [--json|--csv]
      Per-tensor FP8 scaling recipes side by side (current, delayed:LEN:max,
      delayed:LEN:most_recent, as Transformer Engine defines them): per step the
      scale, the amax, the overflowed and flushed fractions and the SQNR.
  fpx sgd --weight W --lr LR --grads DIST|LIST --steps N --formats ID,...
          [--master fp32] [--grad-format ID] [--update RULE] [--round MODE]
          [--seed S] [--json]
      SGD on one weight held in each format (and with an FP32 master copy)
      against exact arithmetic: final weight, lost updates, error. --update:
      exact (default), pytorch-cpu, pytorch2-cpu, fp32-opmath or a formula such as
      bf16(fp32(w + bf16(-lr)*g)), exact except at the written roundings.
  fpx mixed-precision [--preset NAME] [--gradient G] [--scale S] [--weight W]
                      [--lr LR] [--clip C] [--decay L] [--half ID] [--json]
      One gradient through one step of NVIDIA's mixed-precision recipe: FP32
      master, FP16 copy, loss x S, FP16 backward, x 1/S, inf/NaN check (skip),
      clipping and decay, FP32 update, next FP16 copy; each value exact, its bits.
  fpx lesson [NAME|FILE] [--step K] [--json]
      The built-in lessons, or a lesson's steps: title, prose and the
      fpx-explorer command line of each step's state (docs/lessons.md).
  fpx machines [--json]
      The matrix engines fpx models (NVIDIA tensor cores by generation, AMD
      matrix cores): products per instruction, fraction bits kept, output and
      rounding, and their sources.
  fpx gemm --machine M[,M...] [--element E] [--k K[,K...]] [--dist SPEC]
           [--m M] [--n N] [--promote N[,N...]] [--seed S] [--json|--csv]
      A drawn matrix product on each machine against the exact one: the
      largest and mean relative error and the share off by an FP32 ulp, per K,
      with and without promotion into FP32.

Values: 0.3952  -1.5e-7  1/3  2^-24  3*2^-4  0x1.8p-3  inf  -inf  nan  -0
Formats: fp64 fp32 tf32 bf16 fp16 fp8_e4m3 fp8_e5m2 fp8_e4m3fnuz fp8_e5m2fnuz
  fp8_e4m3b11fnuz fp8_e3m4 fp8_e8m0 fp6_e3m2 fp6_e2m3 fp4_e2m1 fp4_e1m2 fp80
  fp128 int8 int4 int2 uint8 uint4 nf4, their aliases (float16, bfloat16, e4m3,
  float8_e4m3fn, ...), custom specs: e5m10, e4m3fn, e3m3, e6m9b40, e4m3fnuz,
  e8m0fnu, e3m2f (finite only), int6, uint3, and IEEE P3109's
  binary<K>p<P><s|u><e|f> (K = 3..16; binary8p3se, binary8p4uf), and posits:
  posit8 posit16 posit32 (es = 2), posit<n,es> or posit<n>es<es> (n = 3..32, es <= 5).
Rounding (--round): rne (default), rna, rtz, rup, rdn, sr (stochastic, --seed),
  rto (round to odd); P3109's names too (NearestTiesToEven, TowardZero, ToOdd, ...).
  sr:N (N = 1..32): stochastic with N random bits, the residue truncated to N bits
  (P3109 StochasticA, cvt.rs); srb:N, src:N: rounded to N bits (StochasticB, C).
Overflow (--overflow): ieee (default: inf, or NaN where there is no inf),
  saturate (every non-NaN result finite; P3109's SatFinite), and P3109's
  satpropagate (inf stays inf) and satnone (its OvfInf) for show, convert, calc.
Scale (--scale): integer formats store round(x / scale), default 1/qmax;
  nf4 stores the level nearest x / absmax, --scale sets absmax (default 1).

Exit status: 0 success, 1 some input could not be converted, 2 bad usage.
)";

constexpr const char* kCommands =
    "formats, show, convert, table, plot, bench, calc, accumulate, dot, quantize, inspect, "
    "range-fit, loss-scale, fp8-scaling, sgd, mixed-precision, memory, lesson, machines or gemm";

} // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    std::vector<std::string> args(argv + 1, argv + argc);
    fpx::cli::Streams io{std::cin, std::cout, std::cerr, isatty(STDOUT_FILENO) == 1};
    // As a command's own errors: one line that says what is wrong, one that says where help is.
    auto commandLineError = [](const std::string& message) {
        std::cerr << "fpx: " << message << "\nsee fpx --help\n";
        return fpx::cli::kExitUsage;
    };
    if (args.empty())
        return commandLineError("expected a command (" + std::string(kCommands) + ")");
    const std::string command = args.front();
    args.erase(args.begin());
    try {
        if (command == "formats")
            return fpx::cli::runFormats(args, io);
        if (command == "show")
            return fpx::cli::runShow(args, io);
        if (command == "convert")
            return fpx::cli::runConvert(args, io);
        if (command == "table")
            return fpx::cli::runTable(args, io);
        if (command == "plot")
            return fpx::cli::runPlot(args, io);
        if (command == "bench")
            return fpx::cli::runBench(args, io);
        if (command == "calc")
            return fpx::cli::runCalc(args, io);
        if (command == "accumulate")
            return fpx::cli::runAccumulate(args, io);
        if (command == "dot")
            return fpx::cli::runDot(args, io);
        if (command == "quantize")
            return fpx::cli::runQuantize(args, io);
        if (command == "inspect")
            return fpx::cli::runInspect(args, io);
        if (command == "range-fit")
            return fpx::cli::runRangeFit(args, io);
        if (command == "loss-scale")
            return fpx::cli::runLossScale(args, io);
        if (command == "fp8-scaling")
            return fpx::cli::runFp8Scaling(args, io);
        if (command == "memory")
            return fpx::cli::runMemory(args, io);
        if (command == "sgd")
            return fpx::cli::runSgd(args, io);
        if (command == "mixed-precision")
            return fpx::cli::runMixedPrecision(args, io);
        if (command == "machines")
            return fpx::cli::runMachines(args, io);
        if (command == "gemm")
            return fpx::cli::runGemm(args, io);
        if (command == "lesson")
            return fpx::cli::runLesson(args, io);
        if (command == "help" || command == "--help" || command == "-h") {
            std::cout << kUsage;
            return fpx::cli::kExitOk;
        }
        if (command == "--version" || command == "version") {
            std::cout << "fpx " << FPX_VERSION << '\n';
            return fpx::cli::kExitOk;
        }
    } catch (const std::exception& e) {
        std::cerr << "fpx " << command << ": internal error: " << e.what() << '\n';
        return fpx::cli::kExitDataError;
    }
    return commandLineError("unknown command '" + command + "' (use " + kCommands + ")");
}
