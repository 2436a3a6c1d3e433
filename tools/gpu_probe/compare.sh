#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Compares the accumulator probe's GPU results with fpx's machine models, bit for bit:
#   tools/gpu_probe/compare.sh PROBE_OUTPUT OUTDIR
# PROBE_OUTPUT: the JSON lines of accumulator_probe. For each result it runs
#   fpx dot --machine M --element E --a LIST --b LIST --c C --json
# with the machine that models that instruction on the probe's GPU (its compute capability is
# in the probe's first line) and compares the FP32 bits; an e8m13 result is FP32 with the low 10
# bits zero. cuBLASLt without fast accumulation promotes partial sums at an interval it chooses:
# its result is compared with the machine without promotion and with --promote 16, 32, 64, 128
# (those the machine takes, below K), and agrees when one of them gives its bits.
# Writes OUTDIR/comparison.txt (the table, the cases and a summary) and OUTDIR/comparison.jsonl.
# Exit status: 0 when every modelled result agrees and every layout check passed; 1 when a result
# disagrees, a layout check failed, the probe reported an error or found D elements that should
# be zero; 2 on a usage error. An instruction the GPU lacks is listed as skipped, not a failure.
# Environment: FPX (default build/bin/fpx), FPX_LIBRARY_PATH (the LD_LIBRARY_PATH fpx alone runs
# with), FPX_PROBE_NO_JQ=1 (read JSON with sed even where jq is installed).
set -uo pipefail

probe=${1:-}
outdir=${2:-}
if [ -z "$probe" ] || [ -z "$outdir" ] || [ ! -f "$probe" ]; then
    echo "usage: compare.sh PROBE_OUTPUT OUTDIR" >&2
    exit 2
fi
FPX=${FPX:-build/bin/fpx}
mkdir -p "$outdir"
table="$outdir/comparison.txt"
rows="$outdir/comparison.jsonl"
: >"$rows"

use_jq=0
if [ "${FPX_PROBE_NO_JQ:-0}" != 1 ] && command -v jq >/dev/null; then
    use_jq=1
fi

# get JSON KEY: KEY's value (a string without quotes, or a number or boolean) from one flat JSON
# object, the probe's lines and fpx's report alike.
get() {
    if [ "$use_jq" = 1 ]; then
        jq -r --arg key "$2" '.[$key] // empty' <<<"$1"
        return
    fi
    local text
    text=$(tr -d '\n' <<<"$1")
    if grep -q "\"$2\": *\"" <<<"$text"; then
        sed -n "s/.*\"$2\": *\"\([^\"]*\)\".*/\1/p" <<<"$text"
    else
        sed -n "s/.*\"$2\": *\([-0-9a-z.]*\).*/\1/p" <<<"$text"
    fi
}

run_fpx() {
    if [ -n "${FPX_LIBRARY_PATH:-}" ]; then
        LD_LIBRARY_PATH="$FPX_LIBRARY_PATH" "$FPX" "$@"
    else
        "$FPX" "$@"
    fi
}

# model INSTRUCTION CC: the fpx machine for that instruction on that GPU, or nothing.
# MMA-Sim's models: mma.sync on Ampere and Ada sums k16 (f16) and k32 (e4m3) in two chained
# halves; on Hopper it is one group at F = 25 with an FP32 output, e4m3 included (the e8m13
# output and F = 13 are wgmma's), which fpx's fp16 instruction of nvidia-hopper is and, for
# e4m3, fused:25:32; Blackwell's are one group at F = 25.
model() {
    local instruction=$1 cc=$2
    case "$instruction" in
    mma.sync.m16n8k16.*)
        case "$cc" in
        80 | 86 | 87) echo nvidia-ampere ;;
        89) echo nvidia-ada ;;
        90) echo nvidia-hopper ;;
        100 | 103) echo nvidia-blackwell ;;
        esac
        ;;
    mma.sync.m16n8k32.*)
        case "$cc" in
        89) echo nvidia-ada ;;
        90) echo fused:25:32 ;;
        100 | 103) echo nvidia-blackwell ;;
        esac
        ;;
    wgmma.*)
        [ "$cc" = 90 ] && echo nvidia-hopper
        ;;
    cublasLt.*)
        case "$cc" in
        89) echo nvidia-ada ;;
        90) echo nvidia-hopper ;;
        100 | 103) echo nvidia-blackwell ;;
        esac
        ;;
    esac
}

# model_bits MACHINE ELEMENT A B C [fpx options]: the model's result as FP32 bits (0x%08x), or
# "error: ..." when fpx refuses.
model_bits() {
    local machine=$1 element=$2 a=$3 b=$4 c=$5 report bits format
    shift 5
    if ! report=$(run_fpx dot --machine "$machine" --element "$element" --a "$a" --b "$b" \
        --c "$c" "$@" --json 2>&1); then
        echo "error: $(head -n 1 <<<"$report")"
        return
    fi
    if [ "$use_jq" = 1 ]; then
        read -r bits format < <(jq -r '"\(.bits) \(.result_format)"' <<<"$report")
    else
        bits=$(get "$report" bits)
        format=$(get "$report" result_format)
    fi
    case "$format" in
    fp32) printf '0x%08x\n' "$((bits))" ;;
    e8m13) printf '0x%08x\n' "$((bits << 10))" ;;
    *) echo "error: result format '$format'" ;;
    esac
}

# fields LINE: the probe line's fields in the order the loop reads them, separated by the
# ASCII unit separator (not a blank, so that empty fields stay fields); one jq call per line
# where jq is there.
sep=$'\x1f'
keys=(instruction skipped check ok detail case error element a b c k gpu_bits gpu_value strays tells)
fields() {
    if [ "$use_jq" = 1 ]; then
        jq -r '[.instruction, .skipped, .check, .ok, .detail, .case, .error, .element, .a, .b,
                .c, .k, .gpu_bits, .gpu_value, .strays, .tells]
               | map(if . == null then "" else tostring end) | join("\u001f")' <<<"$1"
        return
    fi
    local key out=""
    for key in "${keys[@]}"; do
        out+="$(get "$1" "$key")$sep"
    done
    printf '%s\n' "${out%"$sep"}"
}

header=$(head -n 1 "$probe")
cc=$(get "$header" cc)
device=$(get "$header" device)
if [ -z "$cc" ]; then
    echo "compare.sh: the probe's first line names no compute capability: $header" >&2
    exit 1
fi

failures=0
agreed=0
unmodelled=0
skipped=()
problems=()
lines=()
legend=()
seen_cases=" "
format_row() { printf '%-24s | %-44s | %-10s | %-10s | %-5s | %s\n' "$@"; }

while IFS= read -r line || [ -n "$line" ]; do
    [ -z "$line" ] && continue
    case "$line" in
    *'"probe":'*) continue ;;
    esac
    IFS=$sep read -r instruction why check ok detail id error element a b c k gpu gpu_value \
        strays tells < <(fields "$line")
    if [ -n "$why" ]; then
        skipped+=("$instruction: skipped ($why)")
        continue
    fi
    if [ "$check" = layout ]; then
        if [ "$ok" != true ]; then
            problems+=("$instruction: layout check failed: $detail")
            failures=$((failures + 1))
        fi
        continue
    fi
    if [ -n "$error" ]; then
        problems+=("$id on $instruction: $error")
        failures=$((failures + 1))
        continue
    fi
    if [ "${seen_cases#* "$id" }" = "$seen_cases" ]; then
        seen_cases="$seen_cases$id "
        legend+=("$id: $tells")
    fi
    machine=$(model "$instruction" "$cc")
    verdict=""
    shown_machine=$machine
    if [ -z "$machine" ]; then
        mbits="-"
        verdict="no model"
        shown_machine="(no model for sm_$cc)"
        unmodelled=$((unmodelled + 1))
    else
        mbits=$(model_bits "$machine" "$element" "$a" "$b" "$c")
        if [ "$gpu" = "$mbits" ]; then
            verdict=yes
        elif [ "$instruction" = cublasLt.e4m3.f32 ]; then
            # Promotion at an interval of cuBLASLt's choosing: any interval below K that the
            # machine takes.
            for n in 16 32 64 128; do
                [ "$n" -lt "$k" ] || continue
                candidate=$(model_bits "$machine" "$element" "$a" "$b" "$c" --promote "$n")
                case "$candidate" in error:*) continue ;; esac
                if [ "$candidate" = "$gpu" ]; then
                    mbits=$candidate
                    verdict=yes
                    shown_machine="$machine --promote $n"
                    break
                fi
            done
            [ -n "$verdict" ] || shown_machine="$machine (also --promote 16..128 below K)"
        fi
        case "$mbits" in
        error:*)
            problems+=("$id on $instruction: fpx: ${mbits#error: }")
            verdict=NO
            ;;
        esac
        [ -n "$verdict" ] || verdict=NO
        if [ "${strays:-0}" != 0 ]; then
            problems+=("$id on $instruction: $strays elements of D other than D[0][0] not zero")
            verdict=NO
        fi
        if [ "$verdict" = yes ]; then
            agreed=$((agreed + 1))
        else
            failures=$((failures + 1))
        fi
    fi
    lines+=("$(format_row "$id" "$instruction" "$gpu" "$mbits" "$verdict" "$shown_machine")")
    printf '{"case":"%s","instruction":"%s","element":"%s","k":%s,"gpu_bits":"%s","gpu_value":"%s","model":"%s","model_bits":"%s","same":"%s"}\n' \
        "$id" "$instruction" "$element" "$k" "$gpu" "$gpu_value" "$shown_machine" "$mbits" \
        "$verdict" >>"$rows"
done <"$probe"

{
    echo "Accumulator probe on ${device:-?} (sm_$cc) against fpx's machines"
    echo
    format_row "case" "instruction" "GPU bits" "model bits" "same?" "model"
    format_row "------------------------" "--------------------------------------------" \
        "----------" "----------" "-----" "-----"
    for row in ${lines[@]+"${lines[@]}"}; do
        echo "$row"
    done
    echo
    echo "What each case tells apart:"
    for entry in ${legend[@]+"${legend[@]}"}; do
        echo "  $entry"
    done
    if [ ${#skipped[@]} -gt 0 ]; then
        echo
        for entry in "${skipped[@]}"; do
            echo "$entry"
        done
    fi
    if [ ${#problems[@]} -gt 0 ]; then
        echo
        for entry in "${problems[@]}"; do
            echo "PROBLEM: $entry"
        done
    fi
    echo
    echo "agree: $agreed; disagree or failed: $failures; without a model: $unmodelled;" \
        "instructions skipped: ${#skipped[@]}"
} | tee "$table"

[ "$failures" -eq 0 ]
