#!/usr/bin/env bash
# Regenerates every picture that README.md and docs/*.md show (docs/images/ and
# docs/images/plots/), each with the command the docs list next to it. Where the docs give no
# command for a picture, the command below is the one that draws what its caption describes.
#
#   tools/screenshots.sh [BIN_DIR]    # BIN_DIR holds fpx and fpx-explorer (default build/bin)
#
# Everything is rendered offscreen and without remembered settings (--no-settings), so the
# pictures do not depend on the desktop or on an earlier run of the explorer.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$root/build/bin}"
[[ -d "$bin" ]] || { echo "screenshots.sh: no directory $bin" >&2; exit 2; }
bin="$(cd "$bin" && pwd)"
cd "$root"
fpx="$bin/fpx"
explorer="$bin/fpx-explorer"
for program in "$fpx" "$explorer"; do
    [[ -x "$program" ]] || { echo "screenshots.sh: $program not found (build first)" >&2; exit 2; }
done

export QT_QPA_PLATFORM=offscreen
images=docs/images
plots=docs/images/plots
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

shot() { echo "  $*" >&2; "$@"; }

echo "README.md" >&2

# explorer-0.3952.png: "The explorer showing 0.3952 in FP16, BF16, FP8 E4M3 and FP8 E5M2"
# (the command README's "The explorer" section gives, at the picture's size).
shot "$explorer" --no-settings --value 0.3952 --formats fp16,bf16,fp8_e4m3,fp8_e5m2 \
    --select fp8_e4m3 --size 1300x760 --screenshot "$images/explorer-0.3952.png"

# explorer-fp4-nf4-int4.png: "FP4, NF4, INT4, FP6 and FP8 side by side, NF4 selected".
shot "$explorer" --no-settings --value 0.3952 --formats fp4_e2m1,nf4,int4,fp6_e2m3,fp8_e4m3 \
    --select nf4 --size 1200x720 --screenshot "$images/explorer-fp4-nf4-int4.png"

# format-manager.png, same-bits.png, bit-diagram.png: the Formats dialog adding e4m3b11fnuz,
# code 0x80 in every 8-bit format, and 0.3952's bit diagram in FP16, BF16 and the FP8 pair.
# The explorer has no option that opens a dialog or exports a diagram, so the test that
# checks them writes them (tests/gui/tst_explorer.cpp, FPX_TEST_SCREENSHOTS).
if [[ -x "$bin/tst_explorer" ]]; then
    mkdir -p "$tmp/dialogs"
    shot env FPX_TEST_SCREENSHOTS="$tmp/dialogs" "$bin/tst_explorer" \
        exportsAreWritten sameBitsEveryFormat >/dev/null
    for picture in format-manager same-bits bit-diagram; do
        cp "$tmp/dialogs/$picture.png" "$images/$picture.png"
    done
else
    echo "screenshots.sh: $bin/tst_explorer not built: format-manager.png, same-bits.png and" \
        "bit-diagram.png kept as they are" >&2
fi

# explorer-1024x768.png: see docs/presentation.md below.

# lesson-what-is-a-float.png: "Lesson 1, step 2: FP32's fields".
shot "$explorer" --no-settings --lesson what-is-a-float --step 2 --size 1400x800 \
    --screenshot "$images/lesson-what-is-a-float.png"

# benchmarks.png: see docs/plots.md below.

# arithmetic-expression.png: "The Arithmetic page: 0.1+0.2 in every format" (README's command).
shot "$explorer" --no-settings --page arithmetic --expr 0.1+0.2 --size 1400x820 \
    --screenshot "$images/arithmetic-expression.png"

# quantization-weights.png: "The Quantization page: a weight matrix in six formats, MXFP4
# selected" (README's command, with the repository's example weight matrix as FILE).
shot "$explorer" --no-settings --page quantize --input resources/examples/weights.npy \
    --formats mxfp8_e4m3,mxfp4,nvfp4,nf4,int4,fp8_e4m3 --select mxfp4 --size 1400x820 \
    --screenshot "$images/quantization-weights.png"

# training-range.png: "The Training page: lognormal gradients against FP16, BF16 and FP8
# E5M2" (README's command; the range view draws lognormal:-12:2 by default).
shot "$explorer" --no-settings --page training --training-view range \
    --formats fp16,bf16,fp8_e5m2 --size 1400x900 --screenshot "$images/training-range.png"

# plots/error.png, plots/values-fp4-nf4-int4.png, explorer-memory.png: see docs/plots.md below.

echo "docs/plots.md" >&2
shot "$fpx" plot error --formats fp16,bf16,fp8_e4m3,fp8_e5m2 --range 0.0625:8 -o "$plots/error.png"
shot "$fpx" plot error --formats fp32,bf16,fp16 --range 1e-6:1e6 --log -o "$plots/error-log.png"
shot "$fpx" plot ulp -o "$plots/ulp.png"
shot "$fpx" plot precision -o "$plots/precision.png"
shot "$fpx" plot range -o "$plots/range.png"
shot "$fpx" plot values --formats fp4_e2m1,nf4,int4 -o "$plots/values-fp4-nf4-int4.png"
shot "$fpx" plot values --formats fp8_e4m3,fp6_e2m3,fp4_e2m1,nf4,int4 --symlog \
    -o "$plots/values-symlog.png"
shot "$fpx" plot codes --formats fp8_e4m3,fp8_e5m2,fp6_e2m3,fp4_e2m1,int4 -o "$plots/codes.png"
shot "$fpx" plot memory --params 70B -o "$plots/memory.png"
shot "$fpx" plot memory --params 70B --recipe training -o "$plots/memory-training.png"
shot "$explorer" --no-settings --formats fp32,bf16,fp16,fp8_e4m3 --value 0.3952 --plot error \
    --screenshot "$images/explorer-plots.png"
shot "$explorer" --no-settings --size 1024x768 --formats fp16,bf16,fp8_e4m3,fp4_e2m1,int4,nf4 \
    --plot memory --params 70B --screenshot "$images/explorer-memory.png"
shot "$explorer" --no-settings --value 0.3952 --screenshot "$images/explorer-all-formats.png"
# benchmarks.png measures this machine (in cache, about 15 s): its bars are this CPU's, and
# on a busy machine the saved and the live run disagree by noise, so run it on an idle one.
shot "$fpx" bench --formats bf16,fp8_e4m3,nf4 --sizes 32k --threads 1 --budget 0.1 \
    --json "$tmp/saved.json" >/dev/null
shot "$explorer" --no-settings --page benchmarks --bench-run --bench-formats bf16,fp8_e4m3,nf4 \
    --bench-sizes 32k --bench-budget 0.1 --bench-compare "$tmp/saved.json" \
    --screenshot "$images/benchmarks.png"

echo "docs/presentation.md" >&2
shot "$explorer" --no-settings --size 1024x768 --screenshot "$images/explorer-1024x768.png"
QT_SCALE_FACTOR=1.5 shot "$explorer" --no-settings --size 1024x768 \
    --screenshot "$images/explorer-1024x768-scale1.5.png"
# Presentation mode fills its screen: a fake 1024 × 768 projector.
echo '{"screens":[{"name":"projector","x":0,"y":0,"width":1024,"height":768}]}' \
    > "$tmp/projector.json"
QT_QPA_PLATFORM="offscreen:configfile=$tmp/projector.json" shot "$explorer" --no-settings \
    --formats fp32,fp16,bf16,fp8_e4m3,fp8_e5m2,fp4_e2m1 --select fp8_e4m3 --presentation \
    --screenshot "$images/explorer-presentation.png"
shot "$explorer" --no-settings --size 1024x768 --lesson what-is-a-float --step 2 \
    --screenshot "$images/lesson-1024x768.png"
QT_QPA_PLATFORM="offscreen:configfile=$tmp/projector.json" shot "$explorer" --no-settings \
    --lesson what-is-a-float --step 3 --slides --screenshot "$images/slides-what-is-a-float.png"
QT_QPA_PLATFORM="offscreen:configfile=$tmp/projector.json" shot "$explorer" --no-settings \
    --lesson inside-a-tensor-core --step 5 --slides \
    --screenshot "$images/slides-inside-a-tensor-core.png"

echo "docs/pages.md" >&2
shot "$explorer" --no-settings --value 0.37 --formats fp16,fp8_e4m3 --select fp8_e4m3 \
    --round rtz --size 1024x768 --screenshot "$images/explorer-number-line.png"
shot "$explorer" --no-settings --page arithmetic --lab accumulation --terms 4096 --values ones \
    --accumulator fp16,bf16,fp32 --method sequential,pairwise,kahan --size 1400x820 \
    --screenshot "$images/arithmetic-accumulation.png"
shot "$explorer" --no-settings --page arithmetic --lab stochastic --size 1400x820 \
    --screenshot "$images/arithmetic-stochastic.png"
shot "$explorer" --no-settings --page arithmetic --lab weights --size 1400x820 \
    --screenshot "$images/arithmetic-weights.png"
shot "$explorer" --no-settings --page quantize --dist normal:0:1 --count 65536 --seed 1 \
    --outliers 0.001:100 --block 16 --formats mxfp4,nvfp4,nf4,int4 --select nvfp4 \
    --size 1400x820 --screenshot "$images/quantization-outliers.png"
for view in loss-scale fp8 master; do
    shot "$explorer" --no-settings --page training --training-view "$view" --size 1400x900 \
        --screenshot "$images/training-$view.png"
done
# machines-instruction.png is README's picture of the Machines page too.
shot "$explorer" --no-settings --page machines --size 1400x820 \
    --screenshot "$images/machines-instruction.png"
shot "$explorer" --no-settings --page machines --machine-view error --size 1400x820 \
    --screenshot "$images/machines-error.png"
shot "$explorer" --no-settings --page machines --machine-view table --machine-c 1 \
    --machine-a 0.0078125,0.0078125,0.5,0.0078125 --machine-b 0.1171875,0.0078125,0.375,0.015625 \
    --size 1400x820 --screenshot "$images/machines-table.png"
# A block-scaled instruction: a and b quantized into MXFP4, then Blackwell's kind::mxf4 runs.
shot "$explorer" --no-settings --page machines --machine nvidia-blackwell --machine-element mxfp4 \
    --machine-a 1,2,3,5 --machine-b 1,1,1,0.25 --size 1400x820 \
    --screenshot "$images/machines-block.png"
