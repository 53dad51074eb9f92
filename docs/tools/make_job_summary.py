#!/usr/bin/env python3
"""Writes a many-rank split's summary.tsv of N ranks (two chunk rows each, rank 613 the
straggler) for timing the Job view without splitting N traces:

    docs/tools/make_job_summary.py 1000 /tmp/split1000/summary.tsv
    steadyscope /tmp/split1000 --screenshot /tmp/job1000.png     # prints "open: N ms"
"""
import os
import random
import sys

HEADER = ("trace output_dir outcome gate chunk num_gpu_events busy_ratio chunk_verdict message rank events "
          "gpu_events steps step_median_us step_p90_us first_step_ts_us gpu_busy_us comm_busy_us compute_busy_us "
          "overlap_us split_status chunk_mode selected_busy_ratio selected_num_gpu_events verdict reason").split()


def main():
    ranks, out = int(sys.argv[1]), sys.argv[2]
    random.seed(1)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    lines = ["\t".join(HEADER)]
    for r in range(ranks):
        med = 1459 + random.random() * 20 + (600 if r == 613 else 0)
        for c in range(2):
            lines.append("\t".join(map(str, [
                f"traces/rank{r}.json", f"rank{r}", "split", "accepted", f"rank{r}_generic_{c}.json", 960, 0.98,
                "selected" if c == 0 else "ok", "", r, 40401, 20000, 254, f"{med:.3f}", f"{med * 1.01:.3f}",
                f"{1000 + r * 37:.3f}", "349000.000", "77000.000", "345000.000", "75000.000", "split", "generic",
                "0.9800", 960, "accepted", ""])))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
